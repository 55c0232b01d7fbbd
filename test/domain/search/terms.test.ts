import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { bestPassages, PASSAGE_MAX_BYTES, sentencesOf } from "../../../src/domain/search/passages.js"
import { foldSuffix, searchTerms } from "../../../src/domain/search/terms.js"
import { embedWeighted, fitWeighted, weightedFingerprint } from "../../../src/domain/embedding/weighted.js"
import { cosine } from "../../../src/domain/embedding/index.js"

describe("search terms", () => {
  it("keep the words that say something, in every language's stop words and case", () => {
    expect(searchTerms("What did Caroline paint in the summer?")).toEqual(["carolin", "paint", "summer"])
    expect(searchTerms("Was hat der Kunde über die Rechnung gesagt?")).toEqual(["kund", "rechnung", "gesagt"])
    expect(searchTerms("¿Dónde está la base de datos de producción?")).toEqual(["está", "base", "dato", "producción"])
    expect(searchTerms("Port 8080, version 3 and x")).toEqual(["port", "8080", "version", "3"])
  })

  it("fold inflections alike on both sides", () => {
    for (const [a, b] of [
      ["paintings", "painting"],
      ["painted", "paints"],
      ["cities", "city"],
      ["running", "run"],
      ["planned", "plan"],
      // the light fold it replaced cut the inflected form only ("hik", "danc") and so missed the plain one
      ["hiking", "hike"],
      ["hikes", "hike"],
      ["dancing", "dance"],
      // Latin words beyond a–z keep the light fold
      ["écoles", "école"],
      ["maisons", "maison"]
    ] as const)
      expect(foldSuffix(a)).toBe(foldSuffix(b))
    expect(foldSuffix("speed")).toBe("speed")
    expect(foldSuffix("class")).toBe("class")
  })

  it("search scripts without spaces by overlapping pairs, and keep marks inside words", () => {
    expect(searchTerms("東京の天気")).toEqual(["東京", "京の", "の天", "天気"])
    expect(searchTerms("नमस्ते दुनिया")).toEqual(["नमस्ते", "दुनिया"])
  })
})

describe("matching sentences", () => {
  const text =
    "Hi there! How are you doing? I finally painted the sunset over Lake Tahoe last weekend. " +
    "It took me six hours.\n[Mel] Great to hear."
  const term = (word: string) => searchTerms(word)[0]!
  const weights = new Map([
    [term("paint"), 2],
    [term("Tahoe"), 3],
    [term("sunset"), 2]
  ])

  it("show the sentence that holds the query's rare words, never one that matches nothing", () => {
    // with the sentence after it, which completes it
    expect(bestPassages(text, weights, 1000)).toEqual([
      "I finally painted the sunset over Lake Tahoe last weekend. It took me six hours."
    ])
    expect(bestPassages(text, new Map([["zebra", 5]]), 1000)).toEqual([])
    // a name in every session ("mel", weight near 0) is no match on its own
    expect(
      bestPassages(
        text,
        new Map([
          ["mel", 0.02],
          [term("Tahoe"), 3]
        ]),
        1000
      )
    ).toEqual(["I finally painted the sunset over Lake Tahoe last weekend. It took me six hours."])
  })

  it("stay within the byte budget and the sentence cap, whatever the text", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "grapheme", maxLength: 400 }), { maxLength: 30, size: "max" }),
        fc.integer({ min: 0, max: 1500 }),
        (parts, budget) => {
          const t = parts.join(". ")
          const ws = new Map(
            searchTerms(t)
              .slice(0, 6)
              .map((w, i) => [w, i + 1] as const)
          )
          const out = bestPassages(t, ws, budget, 3)
          expect(out.length).toBeLessThanOrEqual(3)
          expect(out.reduce((n, p) => n + Buffer.byteLength(p) + 1, 0)).toBeLessThanOrEqual(budget)
          for (const p of out) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(PASSAGE_MAX_BYTES)
        }
      ),
      { numRuns: 400 }
    )
  })

  it("split on sentence ends and lines", () => {
    expect(sentencesOf("One. Two!\nThree? four")).toEqual(["One.", "Two!", "Three?", "four"])
  })
})

describe("the weighted local space", () => {
  const vectorsOf = (texts: ReadonlyArray<string>) => {
    const model = fitWeighted(texts.map(searchTerms), 256)
    return texts.map((t) => embedWeighted(model, searchTerms(t)))
  }

  it("tells apart facts that differ in their one rare word, and keeps a restatement close", () => {
    const [vim, helix] = vectorsOf(["Uses vim", "Uses helix"])
    expect(cosine(vim!, helix!)).toBeLessThan(0.5)
    const [a, b] = vectorsOf(["Prefers dark mode in all editors", "Prefers dark mode in all editors and terminals"])
    expect(cosine(a!, b!)).toBeGreaterThan(0.7)
  })

  it("is its own space, apart from odek's rp/256, named anew when its terms changed", () => {
    expect(weightedFingerprint(0)).toBe("rp-idf2/256")
  })
})
