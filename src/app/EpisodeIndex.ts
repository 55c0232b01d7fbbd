import { Clock, Context, Duration, Effect, Layer, Option, Ref } from "effect"
import { during } from "../ports/Progress.js"
import { buildVectorIndex, searchVectorIndex, type VectorIndex } from "../domain/embedding/vector.js"
import { corpusFingerprint } from "../domain/episodes/fingerprint.js"
import type { Episode } from "../domain/episodes/store.js"
import { DerivedFiles } from "../ports/DerivedFiles.js"
import { type EmbedFailed, Embedder, fitted, isCorpusFitted } from "../ports/Embedder.js"
import { decodeVectors, encodeVectors } from "../domain/episodes/vectorsFile.js"
import { EMBED_BACKOFF, EmbedBackoff } from "./embedBackoff.js"

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
  /** The corpus whose rebuild failed: a different corpus (a new episode) is a fresh reason to try at once. */
  readonly failedFor: string | undefined
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
    readonly search: (
      episodes: ReadonlyArray<Episode>,
      query: string,
      k: number
    ) => Effect.Effect<ReadonlyArray<IndexHit>>
  }
>() {
  static readonly layer = Layer.effect(
    EpisodeIndex,
    Effect.gen(function* () {
      const embedder = yield* Embedder
      const files = yield* DerivedFiles
      const embedBackoff = yield* Effect.serviceOption(EmbedBackoff)
      const state = yield* Ref.make<IndexState>({
        built: undefined,
        failedAt: undefined,
        failedFor: undefined,
        rebuilding: false
      })
      const backoffMs = Duration.toMillis(EMBED_BACKOFF)

      // §9.4: the full summaries, trimmed, blank ones left out, in store order
      const corpusOf = (episodes: ReadonlyArray<Episode>) =>
        episodes.map((e) => ({ id: e.sessionId, text: e.summary.trim() })).filter((e) => e.text !== "")
      // Random projections are fitted on the corpus, so a query needs that fit; other embedders are stateless.
      const queryFor = (corpus: ReadonlyArray<string>) =>
        isCorpusFitted(embedder.space)
          ? fitted(embedder, corpus)
          : Effect.succeed((texts: ReadonlyArray<string>) => embedder.embed([], texts))

      const rebuild = (episodes: ReadonlyArray<Episode>, fingerprint: string) =>
        Effect.gen(function* () {
          const kept = corpusOf(episodes)
          const query = yield* fitted(
            embedder,
            kept.map((e) => e.text)
          )
          const vectors = buildVectorIndex(yield* query(kept.map((e) => e.text)))
          const built = { query, ids: kept.map((e) => e.id), vectors, fingerprint } satisfies Built
          // vectors first, meta last: a crash in between leaves a meta that no longer matches, so a rebuild
          yield* files.write(VECTORS_FILE, encodeVectors({ ids: built.ids, index: vectors }))
          yield* files.write(
            META_FILE,
            new TextEncoder().encode(JSON.stringify({ fingerprint: embedder.space.id, corpus: fingerprint }))
          )
          return built
        }).pipe(during(`rebuilding the episode index (${episodes.length} episodes, ${embedder.space.model})`))

      /** The persisted index, when its embedding space and corpus are exactly the current ones (spec §9.6). */
      const load = (episodes: ReadonlyArray<Episode>, fingerprint: string) =>
        Effect.gen(function* () {
          const meta = yield* files.read(META_FILE)
          if (Option.isNone(meta)) return undefined
          let m: { fingerprint?: unknown; corpus?: unknown }
          try {
            m = JSON.parse(new TextDecoder().decode(meta.value)) as typeof m
          } catch {
            return undefined
          }
          if (m.fingerprint !== embedder.space.id || m.corpus !== fingerprint) return undefined
          const raw = yield* files.read(VECTORS_FILE)
          const persisted = Option.isSome(raw) ? decodeVectors(raw.value) : undefined
          const kept = corpusOf(episodes)
          if (
            persisted === undefined ||
            persisted.ids.length !== kept.length ||
            persisted.ids.some((id, i) => id !== kept[i]!.id)
          )
            return undefined
          const query = yield* Effect.option(queryFor(kept.map((e) => e.text)))
          if (Option.isNone(query)) return undefined
          return { query: query.value, ids: persisted.ids, vectors: persisted.index, fingerprint } satisfies Built
        })

      /** The index for these episodes: the current one, a fresh rebuild, or (backing off, or busy) whatever serves. */
      const fresh = (episodes: ReadonlyArray<Episode>) =>
        Effect.gen(function* () {
          const fingerprint = fingerprintOf(episodes)
          const now = yield* Clock.currentTimeMillis
          const [start, failedFor] = yield* Ref.modify(
            state,
            (s): [readonly [boolean, string | undefined], IndexState] => {
              if (s.built?.fingerprint === fingerprint) return [[false, s.failedFor], s]
              if (
                s.rebuilding ||
                (s.failedAt !== undefined && s.failedFor === fingerprint && now - s.failedAt < backoffMs)
              )
                return [[false, s.failedFor], s]
              return [[true, s.failedFor], { ...s, rebuilding: true }]
            }
          )
          if (!start) return (yield* Ref.get(state)).built
          // new episodes since the last failure end the embedder's own back-off too (spec embedding §9.1, markDirty)
          if (failedFor !== fingerprint && Option.isSome(embedBackoff)) yield* embedBackoff.value.clear
          return yield* Effect.onInterrupt(
            claimed(episodes, fingerprint),
            // interrupted (the memory closing): release the single-flight flag, keep the index as it was
            () => Ref.update(state, (s) => ({ ...s, rebuilding: false }))
          )
        })

      /** The load-or-rebuild of the caller that claimed the single-flight flag. */
      const claimed = (episodes: ReadonlyArray<Episode>, fingerprint: string) =>
        Effect.gen(function* () {
          const cold = (yield* Ref.get(state)).built === undefined
          const loaded = cold ? yield* load(episodes, fingerprint) : undefined
          if (loaded !== undefined) {
            yield* Ref.set(state, { built: loaded, failedAt: undefined, failedFor: undefined, rebuilding: false })
            return loaded
          }
          const result = yield* Effect.either(rebuild(episodes, fingerprint))
          const at = yield* Clock.currentTimeMillis
          yield* Ref.update(state, (s) =>
            result._tag === "Right"
              ? { built: result.right, failedAt: undefined, failedFor: undefined, rebuilding: false }
              : { ...s, failedAt: at, failedFor: fingerprint, rebuilding: false }
          )
          if (result._tag === "Left")
            yield* Effect.logWarning(`memory: episode index rebuild failed (retried in 30 s): ${result.left.message}`)
          return (yield* Ref.get(state)).built
        })

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
