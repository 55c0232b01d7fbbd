import { Effect, Layer } from "effect"
import { embedWeighted, fitWeighted, weightedFingerprint, weightedTerms } from "../../domain/embedding/weighted.js"
import { rpDims } from "../../domain/embedding/randomProjections.js"
import { Embedder } from "../../ports/Embedder.js"
import { bounded, sameTexts } from "./caches.js"

/**
 * The local default embedder (`local`, space `rp-idf/<D>`): corpus-fitted, rare terms weigh most, stop words and
 * inflections do not count. No network, never fails. Term lists are kept by text and the last fit is reused while
 * the corpus is the same, so consecutive merge probes of one file cost almost nothing.
 */
export const make = (dims = 256) => {
  const d = rpDims(dims)
  const terms = bounded<string, ReadonlyArray<string>>()
  const termsOf = (t: string) => terms(t, () => weightedTerms(t))
  let last: { readonly corpus: ReadonlyArray<string>; readonly embed: (t: string) => Float32Array } | undefined
  const fitOf = (corpus: ReadonlyArray<string>) => {
    if (last !== undefined && sameTexts(last.corpus, corpus)) return last.embed
    const model = fitWeighted(corpus.map(termsOf), d)
    const vectors = bounded<string, Float32Array>()
    // callers get their own copy: a cached vector must never be written through
    const embed = (t: string) => vectors(t, () => embedWeighted(model, termsOf(t))).slice()
    last = { corpus: [...corpus], embed }
    return embed
  }
  return Embedder.of({
    space: { id: weightedFingerprint(d), provider: "local", model: "", dims: d },
    embed: (corpus, texts) => Effect.sync(() => texts.map(fitOf(corpus))),
    fit: (corpus) =>
      Effect.sync(() => {
        const embed = fitOf(corpus)
        return (texts: ReadonlyArray<string>) => Effect.sync(() => texts.map(embed))
      })
  })
}

export const layer = (dims = 256) => Layer.effect(Embedder, Effect.sync(() => make(dims)))
