import { Context, Effect, Layer } from "effect"
import { corpusFingerprint } from "../domain/episodes/fingerprint.js"
import type { Episode } from "../domain/episodes/store.js"
import { makeVectorCache } from "./vectorCache.js"

// Stores hand back the same state object while their stream is unchanged, so the fingerprint is computed once per
// state.
const fingerprints = new WeakMap<ReadonlyArray<Episode>, string>()
const fingerprintOf = (episodes: ReadonlyArray<Episode>) => {
  let f = fingerprints.get(episodes)
  if (f === undefined) {
    f = corpusFingerprint(
      episodes.filter((e) => e.summary.trim() !== "").map((e) => ({ sessionId: e.sessionId, summary: e.summary }))
    )
    fingerprints.set(episodes, f)
  }
  return f
}

/** The persisted vectors and their meta (spec episodes §9.1–9.2: odek's names, this port's encoding). */
export const VECTORS_FILE = "episodes_vectors.gob"
export const META_FILE = "episodes_index_meta.json"

/** A hit of the episode vector index: an episode id and its cosine to the query. */
export interface IndexHit {
  readonly sessionId: string
  readonly score: number
}

/**
 * The episode vector index of one process (spec episodes §9): rebuilt from the current episodes when their
 * corpus fingerprint changes, single-flight, off any lock; after a failed rebuild it is left alone for 30 s and the
 * previous index keeps serving (possibly stale: callers re-check hits against the current episodes).
 */
export class EpisodeIndex extends Context.Tag("tmem/EpisodeIndex")<
  EpisodeIndex,
  {
    /** The `k` nearest episodes to `query` among `episodes` (the current store), best first; [] when unavailable. */
    readonly search: (
      episodes: ReadonlyArray<Episode>,
      query: string,
      k: number
    ) => Effect.Effect<ReadonlyArray<IndexHit>>
  }
>() {
  static readonly layer = Layer.scoped(
    EpisodeIndex,
    Effect.map(
      makeVectorCache<Episode>({
        name: "episode index",
        vectorsFile: VECTORS_FILE,
        metaFile: META_FILE,
        // §9.4: the full summaries, trimmed, blank ones left out, in store order
        corpusOf: (episodes) =>
          episodes.map((e) => ({ id: e.sessionId, text: e.summary.trim() })).filter((e) => e.text !== ""),
        fingerprintOf
      }),
      (cache) =>
        EpisodeIndex.of({
          search: (episodes, query, k) =>
            Effect.map(cache.search(episodes, query, k), (hits) =>
              hits.map((h) => ({ sessionId: h.id, score: h.score }))
            )
        })
    )
  )
}
