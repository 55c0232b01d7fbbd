import { Effect, FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import * as RpEmbedder from "../../src/adapters/rp/RpEmbedder.js"
import * as WeightedEmbedder from "../../src/adapters/rp/WeightedEmbedder.js"
import { CACHE_LIMIT } from "../../src/domain/kernel/memo.js"
import { countTerms, weightedSimilarities, weightedTerms } from "../../src/domain/embedding/weighted.js"
import { embedRp, fitRandomProjections } from "../../src/domain/embedding/index.js"
import { WORDS } from "../domain/facts/arbitraries.js"

const text = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 12 }).map((w) => w.join(" "))

describe("RP embedder adapter", () => {
  it("its caches never change a vector: a growing, shrinking, reordered corpus gives what a fresh fit gives", () => {
    const embedder = RpEmbedder.make(64)
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 10 }), text, (corpus, extra) => {
        const got = Effect.runSync(embedder.embed(corpus, [...corpus, extra]))
        const model = fitRandomProjections(corpus, 64)
        expect(got.map((v) => Array.from(v))).toEqual([...corpus, extra].map((t) => Array.from(embedRp(model, t))))
      }),
      { numRuns: 1000 }
    )
  })

  it(
    "one instance across a file's life (probes of the same entries, an entry added, removed, edited) " +
      "gives what a fresh fit gives",
    () => {
      // Each step is what the next merge probe sees: the same entries again, one appended, or any other change.
      const step = fc.oneof(
        fc.constant({ kind: "same" as const }),
        text.map((t) => ({ kind: "append" as const, t })),
        fc.nat().map((i) => ({ kind: "remove" as const, i })),
        fc.tuple(fc.nat(), text).map(([i, t]) => ({ kind: "edit" as const, i, t }))
      )
      const reached = { same: 0, grown: 0, other: 0 }
      fc.assert(
        fc.property(
          fc.array(text, { maxLength: 6 }),
          fc.array(fc.tuple(step, text), { minLength: 1, maxLength: 12 }),
          (start, steps) => {
            const embedder = RpEmbedder.make(64)
            let corpus = start
            let previousQuery = ""
            for (const [s, query] of steps) {
              const before = corpus
              if (s.kind === "append") corpus = [...corpus, s.t]
              if (s.kind === "remove" && corpus.length > 0) corpus = corpus.filter((_, i) => i !== s.i % corpus.length)
              if (s.kind === "edit" && corpus.length > 0)
                corpus = corpus.map((t, i) => (i === s.i % corpus.length ? s.t : t))
              reached[corpus === before ? "same" : s.kind === "append" && before.length > 0 ? "grown" : "other"]++
              // an earlier query may share tokens with a later entry: its vector must follow the corpus it is embedded
              // against
              const texts = [...corpus, query, previousQuery, ...before]
              previousQuery = query
              const got = Effect.runSync(embedder.embed(corpus, texts))
              const model = fitRandomProjections(corpus, 64)
              expect(got.map((v) => Array.from(v))).toEqual(texts.map((t) => Array.from(embedRp(model, t))))
            }
          }
        ),
        { numRuns: 300 }
      )
      expect(Math.min(reached.same, reached.grown, reached.other)).toBeGreaterThan(100)
    }
  )

  it("returns copies, so a caller writing into a vector cannot poison the cache", () => {
    const embedder = RpEmbedder.make(64)
    const [a] = Effect.runSync(embedder.embed(["uses postgres daily"], ["uses postgres daily"]))
    a!.fill(9)
    const [b] = Effect.runSync(embedder.embed(["uses postgres daily"], ["uses postgres daily"]))
    expect(Array.from(b!)).not.toContain(9)
    expect(embedder.space).toEqual({ id: "rp/64", provider: "rp", model: "", dims: 64 })
  })
})

describe("weighted (local) embedder adapter: exact similarities", () => {
  const fresh = (corpus: ReadonlyArray<string>, query: string) => {
    const ids = new Map<string, number>()
    const idOf = (t: string) => ids.get(t) ?? (ids.set(t, ids.size), ids.size - 1)
    return weightedSimilarities(
      corpus.map((t) => countTerms(weightedTerms(t), idOf)),
      countTerms(weightedTerms(query), idOf)
    )
  }

  it("one long-lived instance gives what a fresh computation gives, across more texts than its caches hold", () => {
    const embedder = WeightedEmbedder.make(256)
    // distinct texts past CACHE_LIMIT, so the term numbering and the counts are dropped and rebuilt on the way
    const texts = Array.from(
      { length: CACHE_LIMIT + 200 },
      (_, i) => `${WORDS[i % WORDS.length]} host-${i} ${WORDS[(i * 7) % WORDS.length]} port ${i % 97}`
    )
    for (let i = 8; i < texts.length; i += 1 + (i % 5)) {
      const corpus = texts.slice(i - 8, i)
      expect(Effect.runSync(embedder.similarities!(corpus, texts[i]!))).toEqual(fresh(corpus, texts[i]!))
    }
    const corpus = texts.slice(0, 8)
    expect(Effect.runSync(embedder.similarities!(corpus, texts[3]!))).toEqual(fresh(corpus, texts[3]!))
  })
})
