import { Effect, Layer } from "effect"
import {
  embedRows,
  fitTokenStreams,
  rowIndices,
  rpDims,
  rpFingerprint,
  type RpModel,
  tokenStream
} from "../../domain/embedding/index.js"
import { Embedder } from "../../ports/Embedder.js"
import { bounded, CACHE_LIMIT, sameTexts } from "./caches.js"

/** A compact exact key for a row sequence: one UTF-16 code unit per row while rows fit, else decimal. */
const sequenceKey = (indices: Int32Array): string => {
  if (indices.length > 4096) return indices.join(",")
  for (const i of indices) if (i > 0xffff) return indices.join(",")
  return String.fromCharCode(...indices)
}

/**
 * The local default: random projections fitted on the corpus of each call, Go-compatible (`rp/<D>`). No network,
 * never fails. An instance remembers token streams by text and vectors by row sequence: a vector depends only on
 * which rows its tokens own, so consecutive adds to one file re-embed only what changed, with identical results.
 */
export const make = (dims = 256) => {
  const d = rpDims(dims)
  const streams = bounded<string, ReadonlyArray<string>>()
  const vectors = bounded<string, Float32Array>()
  const streamOf = (t: string) => streams(t, () => tokenStream(t))
  const vectorOf = (model: RpModel, t: string) => {
    const indices = rowIndices(model, streamOf(t))
    return vectors(sequenceKey(indices), () => embedRows(model, indices))
  }
  // callers get their own copy: a cached vector must never be written through
  const embedWith = (model: RpModel, texts: ReadonlyArray<string>) => texts.map((t) => vectorOf(model, t).slice())

  // The last corpus fitted, and the vector of each text under that fit. Consecutive merge probes of one file embed
  // the same entries again: the same corpus is the same fit, so nothing needs computing. A corpus that only grew at
  // the end keeps every earlier token's row (the vocabulary is in first-seen order), so the vectors of the texts of
  // the earlier corpus carry over; any other text's (a query's tokens may have joined the vocabulary) do not.
  let last:
    | { readonly corpus: ReadonlyArray<string>; readonly model: RpModel; readonly byText: Map<string, Float32Array> }
    | undefined
  const fitOf = (corpus: ReadonlyArray<string>) => {
    if (last !== undefined && sameTexts(last.corpus, corpus)) return last
    const byText = new Map<string, Float32Array>()
    if (last !== undefined && last.corpus.length < corpus.length && last.corpus.every((t, i) => t === corpus[i]))
      for (const t of last.corpus) {
        const v = last.byText.get(t)
        if (v !== undefined) byText.set(t, v)
      }
    last = { corpus: [...corpus], model: fitTokenStreams(corpus.map(streamOf), d), byText }
    return last
  }
  const embedFitted = (corpus: ReadonlyArray<string>, texts: ReadonlyArray<string>) => {
    const fit = fitOf(corpus)
    return texts.map((t) => {
      let v = fit.byText.get(t)
      if (v === undefined) {
        if (fit.byText.size >= CACHE_LIMIT) fit.byText.clear()
        v = vectorOf(fit.model, t)
        fit.byText.set(t, v)
      }
      return v.slice()
    })
  }
  return Embedder.of({
    space: { id: rpFingerprint(d), provider: "rp", model: "", dims: d },
    embed: (corpus, texts) => Effect.sync(() => embedFitted(corpus, texts)),
    // one fit for many queries: the model is the index's, the query never joins its vocabulary
    fit: (corpus) =>
      Effect.sync(() => {
        const model = fitTokenStreams(corpus.map(streamOf), d)
        return (texts: ReadonlyArray<string>) => Effect.sync(() => embedWith(model, texts))
      })
  })
}

export const layer = (dims = 256) =>
  Layer.effect(
    Embedder,
    Effect.sync(() => make(dims))
  )
