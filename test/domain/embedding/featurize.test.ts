import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { bigrams, featurize, lowerSimple, normalize, tokenize } from "../../../src/domain/embedding/featurize.js"

describe("normalize (spec §5.1)", () => {
  it.each([
    ["Postgres,", "postgres"],
    ["uses Postgres.", "uses postgres"],
    ["  hello  world  ", "hello world"],
    ["123abc!", "123abc"],
    ["go test ./...", "go test"],
    ["", ""],
    ["x² ½ Ⅻ", "x² ½ ⅻ"], // N* survives normalization
    ["Ünïcödé—Straße", "ünïcödé straße"]
  ])("%j → %j", (text, expected) => {
    expect(normalize(text)).toBe(expected)
  })
})

describe("bigrams / featurize (spec §5.1)", () => {
  it("appends every adjacent pair after the words", () => {
    expect(featurize("Uses Postgres, for storage!")).toBe(
      "uses postgres for storage uses_postgres postgres_for for_storage"
    )
  })
  it("leaves texts of fewer than two words unchanged", () => {
    expect(bigrams("")).toBe("")
    expect(bigrams("solo")).toBe("solo")
    expect(featurize("  Solo!! ")).toBe("solo")
  })
})

describe("tokenize (spec §5.2)", () => {
  it("splits bigrams back into words, so interior words weigh 3 and end words 2", () => {
    expect(tokenize(featurize("alpha beta gamma"))).toStrictEqual([
      "alpha",
      "beta",
      "gamma",
      "alpha",
      "beta",
      "beta",
      "gamma"
    ])
    expect(tokenize(featurize("solo"))).toStrictEqual(["solo"])
  })
  it("drops tokens under 2 UTF-8 bytes: single ASCII characters never count, single non-ASCII letters do", () => {
    expect(tokenize(featurize("a b"))).toStrictEqual([])
    expect(tokenize("x 1 é 日")).toStrictEqual(["é", "日"])
  })
  it("splits on numbers that are not decimal digits", () => {
    expect(tokenize(featurize("x²"))).toStrictEqual([])
    expect(tokenize("ab²cd ef½gh")).toStrictEqual(["ab", "cd", "ef", "gh"])
    expect(tokenize("١٢٣ 42")).toStrictEqual(["١٢٣", "42"]) // Arabic-Indic digits are Nd
  })
})

describe("lowerSimple (Go's per-rune unicode.ToLower)", () => {
  it("has no final-sigma rule and maps İ to a single i", () => {
    expect(lowerSimple("ΟΔΟΣ")).toBe("οδοσ")
    expect(lowerSimple("İSTANBUL")).toBe("istanbul")
    expect("ΟΔΟΣ".toLowerCase()).toBe("οδος") // what the context-sensitive API would have done
  })

  // Go's simple mapping is rune → rune; this checks the two-exception shortcut against this runtime's Unicode tables.
  it("maps every code point to exactly one code point", () => {
    const multi: Array<string> = []
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue
      const lowered = lowerSimple(String.fromCodePoint(cp))
      if (lowered.codePointAt(0) === undefined || String.fromCodePoint(lowered.codePointAt(0)!) !== lowered) {
        multi.push(cp.toString(16))
      }
    }
    expect(multi).toStrictEqual([])
  })

  const greekish = FastCheck.string({
    unit: FastCheck.constantFrom("Σ", "σ", "ς", "İ", "I", "i", "A", " ", ".", "Ω", "ǅ", "ẞ", "😀"),
    minLength: 1,
    maxLength: 40
  })
  it.prop(
    "is context-free: lower-casing the whole equals lower-casing each code point",
    [FastCheck.oneof(greekish, FastCheck.fullUnicodeString({ maxLength: 40 }))],
    ([s]) => {
      expect(lowerSimple(s)).toBe(Array.from(s, (c) => lowerSimple(c)).join(""))
    },
    { fastCheck: { numRuns: 500 } }
  )

  it.prop(
    "normalize is idempotent and yields single-space-separated words",
    [FastCheck.fullUnicodeString({ maxLength: 60 })],
    ([s]) => {
      const n = normalize(s)
      expect(normalize(n)).toBe(n)
      expect(n).not.toMatch(/^ | $| {2}/)
    },
    { fastCheck: { numRuns: 500 } }
  )
})
