import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import {
  countTerms,
  embedWeighted,
  fitWeighted,
  weightedSimilarities,
  weightedTerms
} from "../../../src/domain/embedding/weighted.js"
import { cosine } from "../../../src/domain/embedding/index.js"

// A small pool so texts share terms often (high similarities, exact duplicates), with stop words (texts with no term at
// all) and repeats (term frequencies above one).
const word = fc.constantFrom(
  "deploy",
  "deploys",
  "staging",
  "postgres",
  "vim",
  "tabs",
  "port",
  "8080",
  "9090",
  "cache",
  "docker",
  "the",
  "and",
  "of",
  "is",
  "Grafana",
  "nightly",
  "bucket"
)
const text = fc.array(word, { minLength: 0, maxLength: 12 }).map((ws) => ws.join(" "))
const corpus = fc.array(text, { minLength: 1, maxLength: 25 })

const interner = () => {
  const ids = new Map<string, number>()
  return (t: string) => {
    let id = ids.get(t)
    if (id === undefined) ids.set(t, (id = ids.size))
    return id
  }
}

/** The definition, written out plainly: smoothed IDF over the corpus, 1 + ln tf, cosine of the two sparse vectors. */
const reference = (texts: ReadonlyArray<string>, query: string): Array<number> => {
  const terms = texts.map(weightedTerms)
  const df = new Map<string, number>()
  for (const ts of terms) for (const t of new Set(ts)) df.set(t, (df.get(t) ?? 0) + 1)
  const vector = (ts: ReadonlyArray<string>) => {
    const tf = new Map<string, number>()
    for (const t of ts) if (df.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1)
    return new Map([...tf].map(([t, c]) => [t, (1 + Math.log(c)) * Math.log(1 + texts.length / df.get(t)!)]))
  }
  const q = vector(weightedTerms(query))
  const norm = (v: Map<string, number>) => Math.sqrt([...v.values()].reduce((s, w) => s + w * w, 0))
  return terms.map((ts) => {
    const v = vector(ts)
    const dot = [...v].reduce((s, [t, w]) => s + w * (q.get(t) ?? 0), 0)
    return dot === 0 ? 0 : dot / (norm(v) * norm(q))
  })
}

const exact = (texts: ReadonlyArray<string>, query: string) => {
  const idOf = interner()
  return weightedSimilarities(
    texts.map((t) => countTerms(weightedTerms(t), idOf)),
    countTerms(weightedTerms(query), idOf)
  )
}

describe("exact weighted similarities (the merge probe of the local embedder)", () => {
  it("property: equal the cosine of the weighted term vectors as defined", () => {
    fc.assert(
      fc.property(corpus, text, (texts, query) => {
        const got = exact(texts, query)
        const want = reference(texts, query)
        got.forEach((g, i) => expect(g).toBeCloseTo(want[i]!, 12))
      }),
      { numRuns: 1000 }
    )
  })

  it("property: a text of the corpus is 1 to itself (when it has a term), and every value lies in [0, 1]", () => {
    fc.assert(
      fc.property(corpus, fc.nat(), (texts, k) => {
        const i = k % texts.length
        const got = exact(texts, texts[i]!)
        for (const g of got) expect(g >= 0 && g <= 1 + 1e-12).toBe(true)
        expect(got[i]).toBeCloseTo(weightedTerms(texts[i]!).length > 0 ? 1 : 0, 12)
      }),
      { numRuns: 1000 }
    )
  })

  // The projected vectors estimate these values: at D = 2048 they agree on average to within a few hundredths.
  it("property: are what the projected vectors of the same fit estimate", () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 4, maxLength: 25 }), text, (texts, query) => {
        const model = fitWeighted(texts.map(weightedTerms), 2048)
        const q = embedWeighted(model, weightedTerms(query))
        const projected = texts.map((t) => cosine(q, embedWeighted(model, weightedTerms(t))))
        const got = exact(texts, query)
        const mean = got.reduce((s, g, i) => s + Math.abs(g - projected[i]!), 0) / got.length
        expect(mean).toBeLessThan(0.1)
      }),
      { numRuns: 200 }
    )
  })
})
