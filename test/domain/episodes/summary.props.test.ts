import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { capSummary, indexPreview } from "../../../src/domain/episodes/summary.js"
import { hasLoneSurrogate, utf8Bytes } from "../../../src/domain/text/utf8.js"

// A pattern repeated to a target size: pieces of 1–4-byte runes, words, early and late sentence ends.
const sized = (pieces: ReadonlyArray<string>, maxBytes: number, minBytes = 0) =>
  fc
    .tuple(
      fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 12 }),
      fc.integer({ min: minBytes, max: maxBytes })
    )
    .map(([units, bytes]) => {
      const pattern = units.join("")
      return pattern.repeat(Math.max(1, Math.floor(bytes / utf8Bytes(pattern))))
    })

const SUMMARY_PIECES = ["a", "é", "€", "😀", " ", "word ", "e.g. ", "v1.2 ", ". ", "!", "?", "\n", "。", "x."]
const NO_END_PIECES = ["a", "é", "€", "😀", " ", "word ", "v1.2", "\n", "。", "x.y"]

describe("capSummary properties", () => {
  it("is at most 2,048 bytes, valid UTF-8, and a prefix of the input apart from a trailing …", () => {
    let over = 0
    let bySentence = 0
    let byEllipsis = 0
    // Early sentence ends followed by text without any: the cut must not collapse onto "e.g." or "Done."
    const earlyOnly = fc
      .tuple(
        fc.constantFrom("Done. ", "The agent used e.g. the v1.2 parser. ", "Fixed it! ", "Why? ", "x."),
        sized(NO_END_PIECES, 4200, 1500)
      )
      .map(([a, b]) => a + b)
    const text = fc.oneof(
      sized(SUMMARY_PIECES, 4200, 1500),
      fc.tuple(fc.fullUnicodeString({ maxLength: 40 }), sized(SUMMARY_PIECES, 4200, 1500)).map(([a, b]) => a + b),
      earlyOnly
    )
    fc.assert(
      fc.property(text, (s) => {
        const out = capSummary(s)
        expect(utf8Bytes(out)).toBeLessThanOrEqual(2048)
        expect(hasLoneSurrogate(out)).toBe(false)
        if (utf8Bytes(s) <= 2048) {
          expect(out).toBe(s)
          return
        }
        over++
        if (out.endsWith("…")) {
          byEllipsis++
          const body = out.slice(0, -1)
          expect(s.startsWith(body)).toBe(true)
          expect(utf8Bytes(body)).toBeGreaterThan(1024)
          // cut before whitespace, or a hard cut that leaves no room for one more rune
          if (!/^\s/u.test(s.slice(body.length))) expect(utf8Bytes(body)).toBeGreaterThanOrEqual(2045 - 3)
        } else {
          bySentence++
          expect(s.startsWith(out)).toBe(true)
          expect(out).toMatch(/[.!?]$/)
          expect(utf8Bytes(out)).toBeGreaterThan(1024)
        }
      }),
      { numRuns: 2000 }
    )
    expect(over).toBeGreaterThanOrEqual(800)
    expect(bySentence).toBeGreaterThanOrEqual(100)
    expect(byEllipsis).toBeGreaterThanOrEqual(100)
  })
})

describe("indexPreview properties", () => {
  it("is at most 120 bytes, valid, and the input or its prefix + ...", () => {
    let over = 0
    fc.assert(
      fc.property(sized(["a", "é", "€", "😀", " ", "b."], 200, 60), (s) => {
        const out = indexPreview(s)
        expect(utf8Bytes(out)).toBeLessThanOrEqual(120)
        expect(hasLoneSurrogate(out)).toBe(false)
        if (utf8Bytes(s) <= 120) expect(out).toBe(s)
        else {
          over++
          expect(out.endsWith("...")).toBe(true)
          expect(s.startsWith(out.slice(0, -3))).toBe(true)
          expect(utf8Bytes(out)).toBeGreaterThanOrEqual(117)
        }
      }),
      { numRuns: 3000 }
    )
    expect(over).toBeGreaterThanOrEqual(1000)
  })
})
