import { Effect, Layer } from "effect"
import { embedRows, fitTokenStreams, rowIndices, rpDims, rpFingerprint, tokenStream } from "../../domain/embedding/index.js"
import { Embedder } from "../../ports/Embedder.js"

/** Entries kept per cache before it is emptied and refilled (the spec's HTTP cache policy: no LRU). */
const CACHE_LIMIT = 4096

const bounded = <K, V>() => {
  const map = new Map<K, V>()
  return (key: K, compute: () => V): V => {
    const hit = map.get(key)
    if (hit !== undefined) return hit
    if (map.size >= CACHE_LIMIT) map.clear()
    const value = compute()
    map.set(key, value)
    return value
  }
}

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
  const embedWith = (model: ReturnType<typeof fitTokenStreams>, texts: ReadonlyArray<string>) =>
    texts.map((t) => {
      const indices = rowIndices(model, streamOf(t))
      // callers get their own copy: a cached vector must never be written through
      return vectors(sequenceKey(indices), () => embedRows(model, indices)).slice()
    })
  return Embedder.of({
    space: { id: rpFingerprint(d), provider: "rp", model: "", dims: d },
    embed: (corpus, texts) => Effect.sync(() => embedWith(fitTokenStreams(corpus.map(streamOf), d), texts)),
    // one fit for many queries: the model is the index's, the query never joins its vocabulary
    fit: (corpus) =>
      Effect.sync(() => {
        const model = fitTokenStreams(corpus.map(streamOf), d)
        return (texts: ReadonlyArray<string>) => Effect.sync(() => embedWith(model, texts))
      })
  })
}

export const layer = (dims = 256) => Layer.effect(Embedder, Effect.sync(() => make(dims)))
