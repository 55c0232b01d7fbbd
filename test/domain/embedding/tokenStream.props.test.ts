import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import {
  embedRp,
  embedWithCorpus,
  featurize,
  fitRandomProjections,
  tokenize,
  tokenStream
} from "../../../src/domain/embedding/index.js"

// Text with the characters that make the two stages differ: N-but-not-Nd digits, underscores, capitals, İ/Σ.
const tricky = fc
  .array(
    fc.oneof(
      fc.constantFrom("x²", "½", "Ⅻ", "_", "a", "İ", "ΣΑΣ", "é", "42", " ", "-", "日本", "K"),
      fc.fullUnicodeString({ maxLength: 6 }),
      fc.lorem({ maxCount: 3 })
    ),
    { minLength: 0, maxLength: 25 }
  )
  .map((xs) => xs.join(" "))

describe("tokenStream (the fast path)", () => {
  it("equals tokenize(featurize(text)) token for token", () => {
    fc.assert(
      fc.property(tricky, (text) => {
        expect(tokenStream(text)).toEqual(tokenize(featurize(text)))
      }),
      { numRuns: 3000 }
    )
  })

  it("embedWithCorpus gives the same vectors as fit + embed, bit for bit", () => {
    fc.assert(
      fc.property(fc.array(tricky, { minLength: 1, maxLength: 12 }), tricky, (corpus, extra) => {
        const texts = [...corpus, extra]
        const model = fitRandomProjections(corpus, 64)
        const slow = texts.map((t) => Array.from(embedRp(model, t)))
        expect(embedWithCorpus(corpus, texts, 64).map((v) => Array.from(v))).toEqual(slow)
      }),
      { numRuns: 500 }
    )
  })
})
