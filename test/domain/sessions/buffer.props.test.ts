import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { pushLine, restoreLines, summariseForBuffer } from "../../../src/domain/sessions/buffer.js"
import { hasLoneSurrogate, runeCount, trimSpace } from "../../../src/domain/text/utf8.js"

const RUNS = 3000

// Markdown syntax, filler openers, sentence ends and multi-unit runes, so every step and the cut are exercised.
const token = fc.constantFrom(
  "```",
  "```ts\n",
  "\n```\n",
  "`",
  "**",
  "__",
  "*",
  "_",
  "# ",
  "###### ",
  "- ",
  "* ",
  "+ ",
  "> ",
  "3. ",
  "12.\t",
  "\n",
  "\r\n",
  "\t",
  " ",
  "  ",
  "\u00a0",
  "\u3000",
  "![",
  "[",
  "](",
  "]",
  ")",
  "http://x.test/a",
  ".",
  "!",
  "?",
  "Sure. ",
  "Okay! ",
  "got it? ",
  "Surely ",
  "I'll help. ",
  "no problem.",
  "word",
  "memory",
  "é",
  "漢字",
  "😀",
  "👨‍👩‍👧",
  "🎉",
  "\u0301",
  "…"
)
const markdown = fc.array(token, { minLength: 40, maxLength: 320, size: "max" }).map((ts) => ts.join(""))
// Words of 1–120 runes between spaces and sentence ends reach all three cuts: sentence end, last space, hard cut.
const word = fc.string({ unit: fc.constantFrom("a", "é", "😀", "漢"), minLength: 1, maxLength: 120, size: "max" })
const longText = fc
  .array(fc.oneof({ arbitrary: word, weight: 3 }, { arbitrary: fc.constantFrom(" ", ". ", "! ", "? "), weight: 2 }), {
    minLength: 2,
    maxLength: 30,
    size: "max"
  })
  .map((parts) => parts.join(""))
const wellFormed = fc
  .oneof(
    { arbitrary: markdown, weight: 4 },
    { arbitrary: longText, weight: 4 },
    { arbitrary: fc.fullUnicodeString({ maxLength: 400, size: "max" }), weight: 2 },
    { arbitrary: fc.lorem({ maxCount: 80, mode: "sentences" }), weight: 1 }
  )
  .filter((s) => !hasLoneSurrogate(s))
// Any UTF-16, lone surrogates included, as a session file edited by hand could hold.
const anyUtf16 = fc.string({ unit: "binary", maxLength: 500, size: "max" })

describe("summariseForBuffer properties", () => {
  it(
    "is one line, at most 201 runes, trimmed and collapsed, " + "deterministic, and well-formed for well-formed input",
    () => {
      let inputs = 0
      let overLimit = 0
      const cuts = { sentence: 0, hard: 0, space: 0 }
      fc.assert(
        fc.property(wellFormed, (message) => {
          const summary = summariseForBuffer(message)
          inputs++
          if (runeCount(message) > 200) overLimit++
          if (summary.endsWith("…") && !message.endsWith("…")) {
            if (/[.!?]…$/u.test(summary)) cuts.sentence++
            else if (runeCount(summary) === 201) cuts.hard++
            else cuts.space++
          }
          expect(summary).not.toMatch(/[\n\r\t]/)
          expect(runeCount(summary)).toBeLessThanOrEqual(201)
          if (runeCount(summary) > 200) expect(summary.endsWith("…")).toBe(true)
          expect(trimSpace(summary)).toBe(summary)
          expect(summary).not.toContain("  ")
          expect(hasLoneSurrogate(summary)).toBe(false)
          expect(summariseForBuffer(message)).toBe(summary)
        }),
        { numRuns: RUNS }
      )
      // the generators must actually reach each branch of the 200-rune cut, not just pass under it
      expect(overLimit / inputs).toBeGreaterThan(0.5)
      expect((cuts.sentence + cuts.hard + cuts.space) / inputs).toBeGreaterThan(0.4)
      for (const n of Object.values(cuts)) expect(n / inputs).toBeGreaterThan(0.02)
    }
  )

  it("keeps a summary of its own output within the bounds (it need not be a fixed point)", () => {
    fc.assert(
      fc.property(wellFormed, (message) => {
        const again = summariseForBuffer(summariseForBuffer(message))
        expect(again).not.toMatch(/[\n\r\t]/)
        expect(runeCount(again)).toBeLessThanOrEqual(201)
        expect(hasLoneSurrogate(again)).toBe(false)
      }),
      { numRuns: RUNS }
    )
  })

  it("is one line and at most 201 runes for any UTF-16 input", () => {
    fc.assert(
      fc.property(anyUtf16, (message) => {
        const summary = summariseForBuffer(message)
        expect(summary).not.toMatch(/[\n\r\t]/)
        expect(runeCount(summary)).toBeLessThanOrEqual(201)
      }),
      { numRuns: RUNS }
    )
  })
})

const line = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom("a\nb", "\t", "x\r\ny"))
const capacity = fc.integer({ min: -3, max: 25 })
// Many more lines than the capacity, so eviction happens on most runs.
const lines = fc.array(line, { minLength: 0, maxLength: 60, size: "max" })
const sanitise = (s: string) => s.replace(/[\n\r\t]/g, " ")

describe("pushLine and restoreLines properties", () => {
  it("pushLine never exceeds the capacity and keeps the newest lines in order", () => {
    let runs = 0
    let evicted = 0
    fc.assert(
      fc.property(lines, capacity, (appended, cap) => {
        runs++
        if (appended.length > cap && cap > 0) evicted++
        let buffer: ReadonlyArray<string> = []
        for (const [i, l] of appended.entries()) {
          buffer = pushLine(buffer, l, cap)
          expect(buffer.length).toBeLessThanOrEqual(Math.max(0, cap))
          expect(buffer).toEqual(
            cap > 0
              ? appended
                  .slice(0, i + 1)
                  .slice(-cap)
                  .map(sanitise)
              : []
          )
        }
      }),
      { numRuns: RUNS }
    )
    expect(evicted / runs).toBeGreaterThan(0.3)
  })

  it("restoreLines equals clearing and pushing each saved line", () => {
    fc.assert(
      fc.property(lines, capacity, (saved, cap) => {
        const restored = restoreLines(saved, cap)
        expect(restored).toEqual(saved.reduce<ReadonlyArray<string>>((acc, l) => pushLine(acc, l, cap), []))
        expect(restored.length).toBeLessThanOrEqual(Math.max(0, cap))
      }),
      { numRuns: RUNS }
    )
  })
})
