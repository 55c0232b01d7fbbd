import { Clock, Context, Duration, Effect, Layer, Ref } from "effect"
import { buildVectorIndex, searchVectorIndex, type VectorIndex } from "../domain/embedding/vector.js"
import { corpusFingerprint } from "../domain/episodes/fingerprint.js"
import type { Episode } from "../domain/episodes/store.js"
import { type EmbedFailed, Embedder, fitted } from "../ports/Embedder.js"
import { EMBED_BACKOFF } from "./embedBackoff.js"

// Stores hand back the same state object while their stream is unchanged, so the fingerprint is computed once per state.
const fingerprints = new WeakMap<ReadonlyArray<Episode>, string>()
const fingerprintOf = (episodes: ReadonlyArray<Episode>) => {
  let f = fingerprints.get(episodes)
  if (f === undefined) {
    f = corpusFingerprint(episodes.filter((e) => e.summary.trim() !== "").map((e) => ({ sessionId: e.sessionId, summary: e.summary })))
    fingerprints.set(episodes, f)
  }
  return f
}

/** A hit of the episode vector index: an episode id and its cosine to the query. */
export interface IndexHit {
  readonly sessionId: string
  readonly score: number
}

interface Built {
  /** Embeds queries in the space the index was built in (same fit); the query never joins the vocabulary. */
  readonly query: (texts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Float32Array>, EmbedFailed>
  readonly ids: ReadonlyArray<string>
  readonly vectors: VectorIndex
  /** `<count>:<fnv>` of what was embedded (spec episodes §9.2). */
  readonly fingerprint: string
}

interface IndexState {
  readonly built: Built | undefined
  readonly failedAt: number | undefined
  readonly rebuilding: boolean
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
    readonly search: (episodes: ReadonlyArray<Episode>, query: string, k: number) => Effect.Effect<ReadonlyArray<IndexHit>>
  }
>() {
  static readonly layer = Layer.effect(
    EpisodeIndex,
    Effect.gen(function* () {
      const embedder = yield* Embedder
      const state = yield* Ref.make<IndexState>({ built: undefined, failedAt: undefined, rebuilding: false })
      const backoffMs = Duration.toMillis(EMBED_BACKOFF)

      const rebuild = (episodes: ReadonlyArray<Episode>, fingerprint: string) =>
        Effect.gen(function* () {
          // §9.4: the full summaries, trimmed, blank ones left out, in store order
          const kept = episodes.map((e) => ({ id: e.sessionId, text: e.summary.trim() })).filter((e) => e.text !== "")
          const query = yield* fitted(embedder, kept.map((e) => e.text))
          const vectors = buildVectorIndex(yield* query(kept.map((e) => e.text)))
          return { query, ids: kept.map((e) => e.id), vectors, fingerprint } satisfies Built
        })

      /** The index for these episodes: the current one, a fresh rebuild, or (backing off, or busy) whatever serves. */
      const fresh = (episodes: ReadonlyArray<Episode>) =>
        Effect.gen(function* () {
          const fingerprint = fingerprintOf(episodes)
          const now = yield* Clock.currentTimeMillis
          const start = yield* Ref.modify(state, (s): [boolean, IndexState] => {
            if (s.built?.fingerprint === fingerprint) return [false, s]
            if (s.rebuilding || (s.failedAt !== undefined && now - s.failedAt < backoffMs)) return [false, s]
            return [true, { ...s, rebuilding: true }]
          })
          if (!start) return (yield* Ref.get(state)).built
          const result = yield* Effect.either(rebuild(episodes, fingerprint))
          const at = yield* Clock.currentTimeMillis
          yield* Ref.update(state, (s) =>
            result._tag === "Right" ? { built: result.right, failedAt: undefined, rebuilding: false } : { ...s, failedAt: at, rebuilding: false }
          )
          if (result._tag === "Left") yield* Effect.logWarning(`memory: episode index rebuild failed (retried in 30 s): ${result.left.message}`)
          return (yield* Ref.get(state)).built
        }).pipe(Effect.uninterruptible)

      const search = (episodes: ReadonlyArray<Episode>, query: string, k: number) =>
        Effect.gen(function* () {
          const built = yield* fresh(episodes)
          if (built === undefined || built.ids.length === 0 || k <= 0) return []
          const q = yield* Effect.option(built.query([query]))
          if (q._tag === "None") return []
          return searchVectorIndex(built.vectors, q.value[0]!, k)
            .filter((m) => m.score > 0)
            .map((m) => ({ sessionId: built.ids[m.index]!, score: m.score }))
        })

      return EpisodeIndex.of({ search })
    })
  )
}
