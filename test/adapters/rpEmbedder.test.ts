import { Effect, FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import * as RpEmbedder from "../../src/adapters/rp/RpEmbedder.js"
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

  it("returns copies, so a caller writing into a vector cannot poison the cache", () => {
    const embedder = RpEmbedder.make(64)
    const [a] = Effect.runSync(embedder.embed(["uses postgres daily"], ["uses postgres daily"]))
    a!.fill(9)
    const [b] = Effect.runSync(embedder.embed(["uses postgres daily"], ["uses postgres daily"]))
    expect(Array.from(b!)).not.toContain(9)
    expect(embedder.space).toEqual({ id: "rp/64", provider: "rp", model: "", dims: 64 })
  })
})
