import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import {
  extractiveParts,
  extractiveSummary,
  flattenContent,
  renderExtractive
} from "../../../src/domain/episodes/extractive.js"
import { capSummary, looksLikeEpisode, SUMMARY_CAP_BYTES } from "../../../src/domain/episodes/summary.js"
import type { ChatMessage } from "../../../src/domain/sessions/message.js"
import { hasLoneSurrogate, trimSpace, utf8Bytes } from "../../../src/domain/text/utf8.js"

// Words that score (names, numbers, cue words), words that do not (fillers, function words), openings that would
// fail looksLikeEpisode on their own, other scripts, and what must be flattened or made well-formed.
const TOKENS = [
  "deploy",
  "Berlin",
  "Mary",
  "port",
  "3306",
  "decided",
  "failed",
  "timeout",
  "v1.2",
  "e.g.",
  "2024-05-01",
  "8 May, 2023",
  "kiln",
  "the",
  "and",
  "a",
  "you",
  "your",
  "Sure,",
  "Hi!",
  "Hey",
  "thanks",
  "NONE",
  "I'm sorry.",
  "Let me",
  "ok",
  "東京",
  "слово",
  "مرحبا",
  "한국어",
  "🙂",
  "。",
  "！",
  "…",
  "[Ana]",
  "[You]",
  "[Hi]",
  "[Session date]",
  ".",
  "?",
  "!",
  "\n",
  "\t",
  "  ",
  "\u2028",
  "\u0000",
  "\u0085",
  "\udc00",
  "\ud83d"
]
const text = (maxTokens: number) =>
  fc
    .tuple(fc.array(fc.constantFrom(...TOKENS), { maxLength: maxTokens, size: "max" }), fc.constantFrom(" ", "", ". "))
    .map(([ts, sep]) => ts.join(sep))
const toolName = fc.constantFrom("shell", "read_file", "you", "Sure", "a b", "x".repeat(60), "東京")
const message = (content: fc.Arbitrary<string>): fc.Arbitrary<ChatMessage> =>
  fc.record(
    {
      role: fc.constantFrom<ChatMessage["role"]>("system", "user", "assistant", "tool"),
      content,
      toolCalls: fc.array(fc.record({ name: toolName, arguments: fc.constant("{}") }), { maxLength: 2 })
    },
    { requiredKeys: ["role", "content"] }
  )
// a speaker tag opening most turns, as a chat transcript has, so tagged framings and labels are reached
const tagged = (content: fc.Arbitrary<string>) =>
  fc.tuple(fc.constantFrom("", "[Ana] ", "[Bo] ", "[You] ", "[Hi] "), content).map(([tag, c]) => tag + c)

const sessions: fc.Arbitrary<ReadonlyArray<ChatMessage>> = fc.oneof(
  fc.constant([]),
  // a few long turns: the budget binds
  fc.array(message(tagged(text(400))), { maxLength: 12, size: "max" }),
  // many tiny turns
  fc.array(message(tagged(text(3))), { maxLength: 1500, size: "max" }),
  fc.array(message(fc.fullUnicodeString({ maxLength: 40 })), { maxLength: 20 }),
  fc.array(message(fc.string({ unit: "binary", maxLength: 40 })), { maxLength: 20 })
)

const SPOKEN = new Set(["user", "assistant"])

/** Every invariant of one summary; returns what it reached, for the coverage counts. */
const check = (msgs: ReadonlyArray<ChatMessage>) => {
  const out = extractiveSummary(msgs)
  const parts = extractiveParts(msgs)
  expect(renderExtractive(parts)).toBe(out)
  // within budget, well-formed, one line, stored as is
  expect(utf8Bytes(out)).toBeLessThanOrEqual(SUMMARY_CAP_BYTES)
  expect(hasLoneSurrogate(out)).toBe(false)
  expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
  expect(trimSpace(out)).toBe(out)
  expect(capSummary(out)).toBe(out)
  expect(looksLikeEpisode(out)).toBe(true)
  // deterministic: the same messages (not the same objects) give the same text
  expect(extractiveSummary(structuredClone(msgs) as ReadonlyArray<ChatMessage>)).toBe(out)
  // extracted, not written: each sentence stands where it says in a user or assistant message, in session order
  expect(utf8Bytes(parts.opening)).toBeLessThanOrEqual(800)
  expect(utf8Bytes(parts.closing)).toBeLessThanOrEqual(300)
  let prev: { message: number; end: number } | undefined
  for (const s of parts.sentences) {
    const m = msgs[s.message]!
    expect(SPOKEN.has(m.role)).toBe(true)
    expect(s.text).not.toBe("")
    expect(flattenContent(m.content).slice(s.start, s.start + s.text.length)).toBe(s.text)
    if (prev !== undefined)
      expect(s.message > prev.message || (s.message === prev.message && s.start >= prev.end)).toBe(true)
    prev = { message: s.message, end: s.start + s.text.length }
  }
  // system prompts and tool output do not steer it
  const steered = msgs.map((m) =>
    m.role === "system" || m.role === "tool" ? { ...m, content: "Mallory decided 9999 transfers. Hi you!" } : m
  )
  expect(extractiveSummary(steered)).toBe(out)
  const spokenBytes = msgs.reduce((n, m) => n + (SPOKEN.has(m.role) ? utf8Bytes(m.content) : 0), 0)
  return { out, parts, spokenBytes }
}

describe("extractiveSummary properties", () => {
  it(
    "fits the cap, is well-formed, deterministic, reads as a record, " +
      "and holds only session sentences in session order",
    () => {
      const seen = { empty: 0, pressed: 0, full: 0, safeOpening: 0, otherScript: 0, loneSurrogateIn: 0, many: 0 }
      fc.assert(
        fc.property(sessions, (msgs) => {
          const { out, parts, spokenBytes } = check(msgs)
          if (msgs.length === 0) seen.empty++
          if (msgs.length > 500) seen.many++
          if (spokenBytes > 2 * SUMMARY_CAP_BYTES) seen.pressed++
          if (utf8Bytes(out) > SUMMARY_CAP_BYTES - 300) seen.full++
          if (parts.opening.startsWith("Session notes.")) seen.safeOpening++
          if (/[\u0400-\u04ff\u0600-\u06ff\u3040-\u9fff\uac00-\ud7af]/.test(out)) seen.otherScript++
          if (msgs.some((m) => hasLoneSurrogate(m.content))) seen.loneSurrogateIn++
        }),
        // shrinking a 1,500-turn session takes minutes; the first counterexample is reported as found
        { numRuns: 400, endOnFailure: true }
      )
      expect(seen.empty).toBeGreaterThanOrEqual(10)
      expect(seen.many).toBeGreaterThanOrEqual(20)
      expect(seen.pressed).toBeGreaterThanOrEqual(40)
      expect(seen.full).toBeGreaterThanOrEqual(25)
      expect(seen.safeOpening).toBeGreaterThanOrEqual(10)
      expect(seen.otherScript).toBeGreaterThanOrEqual(50)
      expect(seen.loneSurrogateIn).toBeGreaterThanOrEqual(50)
    }
  )

  it("holds for huge sessions (megabytes of text, run-on turns without any sentence end)", () => {
    const huge = fc
      .tuple(
        fc.array(message(tagged(text(60))), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 600_000, max: 1_500_000 }),
        fc.boolean()
      )
      .map(([ms, bytes, runOn]) =>
        // every message is spoken and never blank, so every run is megabytes of session the summary reads
        ms
          .map((m, i) => ({
            ...m,
            role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
            content: `Status ${m.content}`
          }))
          .map((m) => {
            const unit = runOn ? m.content.replace(/[.!?。！？…]/g, " ") : m.content
            return { ...m, content: unit.repeat(Math.floor(bytes / Math.max(1, utf8Bytes(unit)) / ms.length)) }
          })
      )
    let big = 0
    fc.assert(
      fc.property(huge, (msgs) => {
        if (check(msgs).spokenBytes > 500_000) big++
      }),
      { numRuns: 6, endOnFailure: true }
    )
    expect(big).toBeGreaterThanOrEqual(1)
  })
})
