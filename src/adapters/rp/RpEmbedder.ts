import { Effect, Layer } from "effect"
import { embedRp, fitRandomProjections, rpDims, rpFingerprint } from "../../domain/embedding/index.js"
import { Embedder } from "../../ports/Embedder.js"

/** The local default: random projections fitted on the corpus of each call. No network, never fails. */
export const make = (dims = 256) => {
  const d = rpDims(dims)
  return Embedder.of({
    space: { id: rpFingerprint(d), provider: "rp", model: "", dims: d },
    embed: (corpus, texts) =>
      Effect.sync(() => {
        const model = fitRandomProjections(corpus, d)
        return texts.map((t) => embedRp(model, t))
      })
  })
}

export const layer = (dims = 256) => Layer.succeed(Embedder, make(dims))
