import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import {
  canonicalEntries,
  entryIndex,
  entryProblem,
  parseEntries,
  renderEntries,
  usedBytes
} from "../../../src/domain/facts/codec.js"
import { trimSpace } from "../../../src/domain/text/utf8.js"
import { validEntry } from "./arbitraries.js"

describe("fact file codec", () => {
  it("reads as odek does: whole-text trim, exact 4-byte separator, entries not trimmed", () => {
    expect(parseEntries("")).toEqual([])
    expect(parseEntries("  \n\t ")).toEqual([])
    expect(parseEntries("a\n§\n  b")).toEqual(["a", "  b"])
    expect(parseEntries("a\r\n§\r\nb")).toEqual(["a\r\n§\r\nb"])
    expect(parseEntries("Uses § as delimiter in section headers")).toEqual(["Uses § as delimiter in section headers"])
    expect(parseEntries("\n one \n§\ntwo\n\n")).toEqual(["one ", "two"])
  })

  it("writes entries joined by the separator, no header, no trailing newline", () => {
    expect(renderEntries([])).toBe("")
    expect(renderEntries(["a", "b"])).toBe("a\n§\nb")
  })

  it("counts UTF-8 bytes and 4 per separator", () => {
    expect(usedBytes([])).toBe(0)
    expect(usedBytes(["x".repeat(40), "y".repeat(45)])).toBe(89)
    expect(usedBytes(["é"])).toBe(2)
    expect(usedBytes(["😀", "中"])).toBe(4 + 4 + 3)
  })

  it("refuses text that would not come back as one entry, or that no entry may hold", () => {
    expect(entryProblem("ok fact")).toBeUndefined()
    expect(entryProblem("a\n§\nb")).toBe('entry must not contain the entry separator "\\n§\\n"')
    expect(entryProblem("a\n§")).toMatch(/must not start with "§\\n" or end with "\\n§"/)
    expect(entryProblem("§\na")).toMatch(/must not start with/)
    expect(entryProblem("nul\u0000byte")).toBe("content contains a NUL byte; remove it and retry")
    expect(entryProblem("esc\u001b[31m")).toBe("content contains control character U+001B; remove it and retry")
    expect(entryProblem("lone \ud800 surrogate")).toMatch(/not valid UTF-8/)
    expect(entryProblem("tabs\tand\nnewlines\r\nare fine")).toBeUndefined()
  })

  it("lists entries oldest first on one line each, or says the file is empty", () => {
    expect(entryIndex([])).toBe("Entries (oldest first): (file is empty)")
    expect(entryIndex(["first\nline", "é".repeat(70)])).toBe(
      `Entries (oldest first):\n[1] 10c "first line"\n[2] 140c "${"é".repeat(60)}…"`
    )
  })

  it("round-trips every list of entries that passes validation (property c)", () => {
    fc.assert(
      fc.property(fc.array(validEntry, { minLength: 0, maxLength: 12 }), (entries) => {
        expect(parseEntries(renderEntries(entries))).toEqual(entries)
      }),
      { numRuns: 2000 }
    )
  })

  it(
    "canonical entries are a fixed point of read-after-write, and appending never disturbs them, " +
      "whatever a hand edit left",
    () => {
      const anyText = fc
        .array(fc.oneof(fc.constantFrom("\n§\n", "§", "\n§", "§\n", "\n", " ", "a", "é", "\t"), fc.string()), {
          minLength: 0,
          maxLength: 20
        })
        .map((xs) => xs.join(""))
      fc.assert(
        fc.property(anyText, fc.nat(5), validEntry, (text, drop, next) => {
          const parsed = parseEntries(text)
          const edited = canonicalEntries(parsed.filter((_, i) => i !== drop))
          expect(parseEntries(renderEntries(edited))).toEqual(edited)
          expect(parseEntries(renderEntries([...edited, next]))).toEqual([...edited, next])
        }),
        { numRuns: 3000 }
      )
      expect(canonicalEntries(parseEntries("!\n§\n"))).toEqual(["!"])
    }
  )

  it("trims like Go: U+FEFF is kept, U+0085 is space", () => {
    expect(trimSpace("\u0085 x \u3000")).toBe("x")
    expect(trimSpace("\ufeffx")).toBe("\ufeffx")
  })
})

describe("trimSpace", () => {
  it("strips exactly Go's space set from both ends", () => {
    const goSpaces = [
      "\t",
      "\n",
      "\v",
      "\f",
      "\r",
      " ",
      "\u0085",
      "\u00a0",
      "\u1680",
      "\u2000",
      "\u200a",
      "\u2028",
      "\u2029",
      "\u202f",
      "\u205f",
      "\u3000"
    ]
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...goSpaces, "\ufeff", "x", "é", "\u200b")), (chars) => {
        const s = chars.join("")
        // reference: the regular-expression definition of the same set
        const ref = s.replace(
          new RegExp(
            [
              String.raw`^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r `,
              String.raw`\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$`
            ].join(""),
            "gu"
          ),
          ""
        )
        expect(trimSpace(s)).toBe(ref)
      }),
      { numRuns: 3000 }
    )
  })
})
