import { Effect, Layer } from "effect"
import {
  countTerms,
  embedWeighted,
  fitWeighted,
  type TermCounts,
  weightedFingerprint,
  weightedSimilarities,
  weightedTerms
} from "../../domain/embedding/weighted.js"
import { rpDims } from "../../domain/embedding/randomProjections.js"
import { Embedder } from "../../ports/Embedder.js"
import { bounded, CACHE_LIMIT, sameTexts } from "./caches.js"

/**
 * The local default embedder (`local`, space `rp-idf/<D>`): corpus-fitted, rare terms weigh most, stop words and
 * inflections do not count. No network, never fails. Term lists are kept by text and the last fit is reused while
 * the corpus is the same. `similarities` (the merge probe, recall's vector half, episode dedup) answers exactly from
 * each text's term counts, kept by text, without fitting or projecting anything (adr/0007).
 */
export const make = (dims = 256) => {
  const d = rpDims(dims)
  const terms = bounded<string, ReadonlyArray<string>>()
  const termsOf = (t: string) => terms(t, () => weightedTerms(t))
  // Term ids for the exact similarities, and each text's counts under them. The two are emptied together, so ids
  // of one numbering are never compared with another's.
  let ids = new Map<string, number>()
  let counts = new Map<string, TermCounts>()
  const idOf = (term: string) => {
    let id = ids.get(term)
    if (id === undefined) ids.set(term, (id = ids.size))
    return id
  }
  const countsOf = (t: string) => {
    const known = counts.get(t)
    if (known !== undefined) return known
    const c = countTerms(termsOf(t), idOf)
    counts.set(t, c)
    return c
  }
  const similarities = (corpus: ReadonlyArray<string>, query: string) => {
    // Room for the corpus asked about and as much again: the episode dedup probe asks about every summary, and past
    // 4,096 of them a fixed limit emptied the cache on every ingest and counted every summary's terms again (a probe
    // over 8,000 summaries took 1.26 s instead of 26 ms).
    const room = Math.max(CACHE_LIMIT, 2 * (corpus.length + 1))
    if (ids.size >= 16 * room || counts.size >= room) {
      ids = new Map()
      counts = new Map()
    }
    return weightedSimilarities(corpus.map(countsOf), countsOf(query))
  }
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
      }),
    similarities: (corpus, query) => Effect.sync(() => similarities(corpus, query))
  })
}

export const layer = (dims = 256) =>
  Layer.effect(
    Embedder,
    Effect.sync(() => make(dims))
  )
