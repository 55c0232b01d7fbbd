import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import {
  buildExtractionTranscript,
  TRANSCRIPT_CAP_BYTES,
  TRANSCRIPT_HEAD_BYTES
} from "../../../src/domain/episodes/transcript.js"
import type { ChatMessage } from "../../../src/domain/sessions/message.js"
import { hasLoneSurrogate, trimSpace, utf8Bytes } from "../../../src/domain/text/utf8.js"

// Content is a short pattern repeated up to ~6,000 bytes, so single messages straddle the 4 KiB cap and 5–30 of
// them straddle the 32 KiB cap; the alphabet puts 1-, 2-, 3- and 4-byte runes (and a lone surrogate) at every cut.
const unit = fc.constantFrom("a", "é", "€", "😀", " ", "\n", "word ", "\udc00", "。")
const content = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.array(unit, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 6000 }))
      .map(([units, bytes]) => {
        const pattern = units.join("")
        return pattern.repeat(Math.floor(bytes / utf8Bytes(pattern)))
      })
  },
  { weight: 1, arbitrary: fc.fullUnicodeString({ maxLength: 40 }) }
)
const message: fc.Arbitrary<ChatMessage> = fc.record({
  role: fc.constantFrom("system", "user", "assistant", "assistant", "user", "tool"),
  content
})
const mixed = fc.array(message, { minLength: 0, maxLength: 40, size: "max" })
// The head is cut mid-line only when no line break lies in its second half: a first line of 4,071–4,096 bytes
// followed by a capped (newline-free) line. Random sizes almost never land there, so aim at it.
const denseUnit = fc.constantFrom("a", "é", "€", "😀", "。")
const dense = (min: number, max: number) =>
  fc.tuple(fc.array(denseUnit, { minLength: 1, maxLength: 4 }), fc.integer({ min, max })).map(([units, bytes]) => {
    const pattern = units.join("")
    let out = pattern.repeat(Math.floor(bytes / utf8Bytes(pattern)))
    while (utf8Bytes(out) < min) out += "a"
    return out
  })
const headEdge = fc
  .tuple(dense(4065, 4090), fc.array(dense(4097, 6000), { minLength: 8, maxLength: 12 }))
  .map(([first, rest]): ReadonlyArray<ChatMessage> => [
    { role: "user", content: first },
    ...rest.map((content) => ({ role: "assistant" as const, content }))
  ])
const session = fc.oneof({ weight: 3, arbitrary: mixed }, { weight: 1, arbitrary: headEdge })

const MARKER = /\n\[… (\d+) bytes of the session omitted …\]\n/g
const CAP = 4096

// Independent oracle for the un-elided transcript: per-message cap by whole code points.
const wellFormed = (s: string) => s.replace(/\p{Surrogate}/gu, "\ufffd")
const capped = (s: string) => {
  const w = wellFormed(s)
  if (utf8Bytes(w) <= CAP) return w
  let out = ""
  let bytes = 0
  for (const ch of w) {
    bytes += utf8Bytes(ch)
    if (bytes > CAP) break
    out += ch
  }
  return `${out} …[truncated]`
}
const fullTranscript = (msgs: ReadonlyArray<ChatMessage>) =>
  msgs
    .flatMap((m) =>
      m.role === "system"
        ? []
        : m.role === "tool"
          ? [`tool: [output omitted, ${utf8Bytes(m.content)} bytes]`]
          : m.role === "assistant" && trimSpace(m.content) === ""
            ? []
            : [`${m.role}: ${capped(m.content)}`]
    )
    .map((l) => `${l}\n`)
    .join("")

describe("buildExtractionTranscript properties", () => {
  it("fits 32 KiB, is valid UTF-8, and is the whole transcript or head + one marker + tail", () => {
    let elided = 0
    let cappedMessages = 0
    let whole = 0
    let midLineHeads = 0
    fc.assert(
      fc.property(session, (msgs) => {
        const out = buildExtractionTranscript(msgs)
        const full = fullTranscript(msgs)
        if (msgs.some((m) => m.role !== "system" && m.role !== "tool" && utf8Bytes(m.content) > CAP)) cappedMessages++
        expect(utf8Bytes(out)).toBeLessThanOrEqual(TRANSCRIPT_CAP_BYTES)
        expect(hasLoneSurrogate(out)).toBe(false)
        const markers = [...out.matchAll(MARKER)]
        expect(markers.length).toBeLessThanOrEqual(1)
        if (utf8Bytes(full) <= TRANSCRIPT_CAP_BYTES) {
          whole++
          expect(out).toBe(full)
          return
        }
        elided++
        expect(markers).toHaveLength(1)
        const m = markers[0]!
        const head = out.slice(0, m.index)
        // a head ends at a line break whenever one lies in its second half
        expect(utf8Bytes(head)).toBeGreaterThan(TRANSCRIPT_HEAD_BYTES / 2 - 4)
        if (full[head.length] !== "\n") {
          midLineHeads++
          expect(utf8Bytes(head.slice(0, Math.max(0, head.lastIndexOf("\n"))))).toBeLessThan(utf8Bytes(head) / 2)
        }
        const tail = out.slice(m.index + m[0].length)
        // the head is the transcript's own start (the first kept line), the tail its own end, the count exact
        expect(head.length).toBeGreaterThan(0)
        expect(full.startsWith(head)).toBe(true)
        expect(full.endsWith(tail)).toBe(true)
        expect(utf8Bytes(head)).toBeLessThanOrEqual(TRANSCRIPT_HEAD_BYTES)
        expect(utf8Bytes(head) + Number(m[1]) + utf8Bytes(tail)).toBe(utf8Bytes(full))
        // capped lines are < 4 KiB + 64, so the first half of a ~24 KiB tail always holds a line start
        expect(full[full.length - tail.length - 1]).toBe("\n")
        // the tail may give back at most a line: it stays close to the longest that fits
        expect(utf8Bytes(out)).toBeGreaterThan(TRANSCRIPT_CAP_BYTES - 2 * CAP - 64)
      }),
      { numRuns: 1500 }
    )
    expect(elided).toBeGreaterThanOrEqual(250)
    expect(whole).toBeGreaterThanOrEqual(250)
    expect(midLineHeads).toBeGreaterThanOrEqual(100)
    expect(cappedMessages).toBeGreaterThanOrEqual(200)
  })
})
