import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { mergePredicted, parsePrediction } from "../../../src/domain/atoms/prediction.js"

const element = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        text: fc.oneof(fc.string(), fc.constantFrom("", "  ", "Deploy"), fc.integer()),
        confidence: fc.oneof(fc.double(), fc.integer(), fc.constant(null), fc.string())
      },
      { requiredKeys: [] }
    )
  },
  { weight: 1, arbitrary: fc.jsonValue() }
)
const reply = fc.oneof(
  fc.array(element, { minLength: 1, maxLength: 12 }).map((a) => JSON.stringify(a)),
  fc.array(element, { minLength: 1, maxLength: 12 }).map((a) => `\`\`\`json\n${JSON.stringify(a)}\n\`\`\``),
  fc.string(),
  fc.json()
)

const id = fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h")
const hit = fc.record({ id, score: fc.double({ min: 0, max: 1, noNaN: true }) })
const hits = fc.array(hit, { minLength: 0, maxLength: 10 })

describe("prediction properties", () => {
  it("parsePrediction never throws: at most n intents, non-empty trimmed texts, confidence in [0, 1]", () => {
    fc.assert(
      fc.property(reply, fc.integer({ min: 0, max: 6 }), (text, n) => {
        const intents = parsePrediction(text, n)
        expect(intents.length).toBeLessThanOrEqual(n)
        for (const intent of intents) {
          expect(intent.text).not.toBe("")
          expect(intent.text.trim()).toBe(intent.text)
          expect(intent.confidence).toBeGreaterThanOrEqual(0)
          expect(intent.confidence).toBeLessThanOrEqual(1)
        }
      }),
      { numRuns: 300 }
    )
  })

  it("mergePredicted: unique ids, best score per id, sorted descending, at most k, nothing better left out", () => {
    const intent = fc.record({ confidence: fc.double({ min: 0.3, max: 1, noNaN: true }), hits })
    fc.assert(
      fc.property(
        hits,
        fc.array(intent, { minLength: 0, maxLength: 4 }),
        fc.integer({ min: 0, max: 10 }),
        (literal, perIntent, k) => {
          const merged = mergePredicted(literal, perIntent, k)
          const best = new Map<string, number>()
          const offers = [
            ...literal,
            ...perIntent.flatMap((p) => p.hits.map((h) => ({ id: h.id, score: h.score * p.confidence })))
          ]
          for (const o of offers) best.set(o.id, Math.max(best.get(o.id) ?? -Infinity, o.score))
          expect(merged.length).toBe(Math.min(k, best.size))
          expect(new Set(merged.map((m) => m.id)).size).toBe(merged.length)
          for (const m of merged) expect(m.score).toBe(best.get(m.id))
          for (let i = 1; i < merged.length; i++) expect(merged[i]!.score).toBeLessThanOrEqual(merged[i - 1]!.score)
          const last = merged.at(-1)
          if (last !== undefined)
            for (const [other, score] of best)
              if (!merged.some((m) => m.id === other)) expect(score).toBeLessThanOrEqual(last.score)
        }
      ),
      { numRuns: 300 }
    )
  })
})
