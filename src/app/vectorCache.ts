import { Clock, Deferred, Duration, Effect, FiberSet, Option, Ref } from "effect"
import {
  allocateVectorIndex,
  buildVectorIndex,
  searchVectorIndex,
  type VectorIndex
} from "../domain/embedding/vector.js"
import { decodeVectors, encodeVectors } from "../domain/episodes/vectorsFile.js"
import { DerivedFiles } from "../ports/DerivedFiles.js"
import { type EmbedFailed, Embedder, fitted, isCorpusFitted } from "../ports/Embedder.js"
import { during } from "../ports/Progress.js"
import { EMBED_BACKOFF, EmbedBackoff } from "./embedBackoff.js"

/** One text of a corpus, under the id its hits come back with. */
export interface CorpusEntry {
  readonly id: string
  readonly text: string
}

/** What a vector cache keeps and where: the episode index and the atom index differ only in these. */
export interface VectorCacheSpec<Item> {
  /** Said in progress and warnings: "episode index". */
  readonly name: string
  readonly vectorsFile: string
  readonly metaFile: string
  /** The texts to embed, in the order hits break ties. */
  readonly corpusOf: (items: ReadonlyArray<Item>) => ReadonlyArray<CorpusEntry>
  /** Changes whenever an embedded text is added, removed or rewritten; computed once per state by the caller. */
  readonly fingerprintOf: (items: ReadonlyArray<Item>) => string
}

/** A hit: an item's id and its cosine to the query. */
export interface CacheHit {
  readonly id: string
  readonly score: number
}

/** The persisted index as a process that builds nothing sees it (spec extended §16.2). */
export interface PersistedStatus {
  /** Vectors in the persisted file; 0 when there is none or it does not decode. */
  readonly vectors: number
  /** Whether the file was made by the current embedding space from exactly the current corpus. */
  readonly current: boolean
  /** Whether anything is saved at all (a damaged or foreign file is saved and stale). */
  readonly saved: boolean
}

interface Built {
  /** Embeds queries in the space the index was built in (same fit); the query never joins the vocabulary. */
  readonly query: (texts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Float32Array>, EmbedFailed>
  readonly ids: ReadonlyArray<string>
  /** What each row embeds, so a stateless space re-embeds only what changed. */
  readonly texts: ReadonlyArray<string>
  readonly vectors: VectorIndex
  readonly fingerprint: string
}

interface CacheState {
  readonly built: Built | undefined
  readonly failedAt: number | undefined
  /** The corpus whose rebuild failed: a different corpus (new data) is a fresh reason to try at once. */
  readonly failedFor: string | undefined
  readonly rebuilding: boolean
}

/** How long a save waits for a newer index to make it moot. */
const SAVE_PAUSE = Duration.millis(200)

const idle: CacheState = { built: undefined, failedAt: undefined, failedFor: undefined, rebuilding: false }

/**
 * The vector index of one corpus in one process (spec episodes §9, extended §8): rebuilt when the corpus
 * fingerprint changes, single-flight, off any lock, persisted (vectors first, meta last) and loaded back when its
 * embedding space and corpus are exactly the current ones. After a failed rebuild it is left alone for 30 s and the
 * previous index keeps serving (possibly stale: callers re-check hits against the current items). A stateless space
 * (an embeddings API) re-embeds only the texts it has not embedded; a corpus-fitted one (local, rp) refits on all.
 */
export const makeVectorCache = <Item>(spec: VectorCacheSpec<Item>) =>
  Effect.gen(function* () {
    const embedder = yield* Embedder
    const files = yield* DerivedFiles
    const embedBackoff = yield* Effect.serviceOption(EmbedBackoff)
    const state = yield* Ref.make<CacheState>(idle)
    const backoffMs = Duration.toMillis(EMBED_BACKOFF)
    const fitsCorpus = isCorpusFitted(embedder.space)

    const queryFor = (corpus: ReadonlyArray<string>) =>
      fitsCorpus
        ? fitted(embedder, corpus)
        : Effect.succeed((texts: ReadonlyArray<string>) => embedder.embed([], texts))

    const persist = (built: Built) =>
      Effect.gen(function* () {
        // vectors first, meta last: a crash in between leaves a meta that no longer matches, so a rebuild
        yield* files.write(spec.vectorsFile, encodeVectors({ ids: built.ids, index: built.vectors }))
        yield* files.write(
          spec.metaFile,
          new TextEncoder().encode(JSON.stringify({ fingerprint: embedder.space.id, corpus: built.fingerprint }))
        )
      })

    const rebuild = (items: ReadonlyArray<Item>, fingerprint: string, previous: Built | undefined) =>
      Effect.gen(function* () {
        const kept = spec.corpusOf(items)
        const texts = kept.map((e) => e.text)
        const query = yield* fitted(embedder, fitsCorpus ? texts : [])
        const rows = yield* reuseOrEmbed(kept, fitsCorpus ? undefined : previous, query)
        return { query, ids: kept.map((e) => e.id), texts, vectors: rows, fingerprint } satisfies Built
      }).pipe(during(`rebuilding the ${spec.name} (${items.length} items, ${embedder.space.model})`))

    /** The rows of `kept`: copied from `previous` where the same id embeds the same text, embedded otherwise. */
    const reuseOrEmbed = (
      kept: ReadonlyArray<CorpusEntry>,
      previous: Built | undefined,
      embed: (texts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Float32Array>, EmbedFailed>
    ) =>
      Effect.gen(function* () {
        const known = new Map<string, number>()
        previous?.ids.forEach((id, row) => known.set(id, row))
        const source = kept.map((e) => {
          const row = known.get(e.id)
          return row !== undefined && previous!.texts[row] === e.text ? row : -1
        })
        const missing = kept.filter((_, i) => source[i] === -1)
        const fresh = missing.length > 0 ? yield* embed(missing.map((e) => e.text)) : []
        if (previous === undefined || missing.length === kept.length) return buildVectorIndex(fresh)
        const dims = previous.vectors.dims
        if (fresh.some((v) => v.length !== dims)) {
          // the space changed shape under us: embed everything again
          return buildVectorIndex(yield* embed(kept.map((e) => e.text)))
        }
        const freshIndex = buildVectorIndex(fresh)
        // rows where the search kernel reads them, so the first search copies nothing
        const index = allocateVectorIndex(dims, kept.length)
        let next = 0
        source.forEach((from, r) => {
          if (from >= 0) index.rows.set(previous.vectors.rows.subarray(from * dims, (from + 1) * dims), r * dims)
          else index.rows.set(freshIndex.rows.subarray(next * dims, ++next * dims), r * dims)
        })
        return index
      })

    const readMeta = Effect.gen(function* () {
      const meta = yield* files.read(spec.metaFile)
      if (Option.isNone(meta)) return undefined
      try {
        return JSON.parse(new TextDecoder().decode(meta.value)) as { fingerprint?: unknown; corpus?: unknown }
      } catch {
        return undefined
      }
    })

    /** The persisted index, when its embedding space and corpus are exactly the current ones (spec episodes §9.6). */
    const load = (items: ReadonlyArray<Item>, fingerprint: string) =>
      Effect.gen(function* () {
        const m = yield* readMeta
        if (m === undefined || m.fingerprint !== embedder.space.id || m.corpus !== fingerprint) return undefined
        const raw = yield* files.read(spec.vectorsFile)
        const persisted = Option.isSome(raw) ? decodeVectors(raw.value) : undefined
        const kept = spec.corpusOf(items)
        if (
          persisted === undefined ||
          persisted.ids.length !== kept.length ||
          persisted.ids.some((id, i) => id !== kept[i]!.id)
        )
          return undefined
        const query = yield* Effect.option(queryFor(kept.map((e) => e.text)))
        if (Option.isNone(query)) return undefined
        return {
          query: query.value,
          ids: persisted.ids,
          texts: kept.map((e) => e.text),
          vectors: persisted.index,
          fingerprint
        } satisfies Built
      })

    // Rebuilds and saves run as fibers of this cache, not of the caller: a recall that gives up (its 5 s deadline)
    // leaves the rebuild to finish for the next one, and closing the memory waits for a save under way (at most
    // 15 s), then interrupts what is left.
    const work = yield* FiberSet.make<unknown, never>()
    yield* Effect.addFinalizer(() =>
      FiberSet.awaitEmpty(work).pipe(Effect.interruptible, Effect.timeoutOption(Duration.seconds(15)))
    )
    const saving = yield* Effect.makeSemaphore(1)
    // saves owed: counted before the rebuilt index is handed out, so a status read right after a search sees the save
    const owed = yield* Ref.make(0)
    /**
     * Saves `built` unless a newer index replaced it meanwhile (that one is saved instead): one save at a time, after a
     * short pause, so a burst of writes (each rebuilding for its dedup probe) writes the file once, not once each.
     */
    const save = (built: Built, pause: Duration.Duration = SAVE_PAUSE) =>
      Effect.zipRight(
        Effect.sleep(pause),
        saving.withPermits(1)(Effect.flatMap(Ref.get(state), (s) => (s.built === built ? persist(built) : Effect.void)))
      )

    /** The index for these items: the current one, a fresh rebuild, or (backing off, or busy) whatever serves. */
    const fresh = (items: ReadonlyArray<Item>) =>
      Effect.gen(function* () {
        const fingerprint = spec.fingerprintOf(items)
        const now = yield* Clock.currentTimeMillis
        const [start, failedFor] = yield* Ref.modify(
          state,
          (s): [readonly [boolean, string | undefined], CacheState] => {
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
        // new data since the last failure ends the embedder's own back-off too (spec embedding §9.1, markDirty)
        if (failedFor !== fingerprint && Option.isSome(embedBackoff)) yield* embedBackoff.value.clear
        const ready = yield* Deferred.make<Built | undefined>()
        yield* FiberSet.run(
          work,
          Effect.onInterrupt(
            claimed(items, fingerprint, ready),
            // interrupted (the memory closing): release the single-flight flag, keep the index as it was
            () =>
              Effect.zipRight(
                Ref.update(state, (s) => ({ ...s, rebuilding: false })),
                Deferred.succeed(ready, undefined)
              )
          )
        )
        return yield* Deferred.await(ready)
      })

    /** The load-or-rebuild of the caller that claimed the single-flight flag; the index is ready before it is saved. */
    const claimed = (items: ReadonlyArray<Item>, fingerprint: string, ready: Deferred.Deferred<Built | undefined>) =>
      Effect.gen(function* () {
        const previous = (yield* Ref.get(state)).built
        const loaded = previous === undefined ? yield* load(items, fingerprint) : undefined
        if (loaded !== undefined) {
          yield* Ref.set(state, { ...idle, built: loaded })
          yield* Deferred.succeed(ready, loaded)
          return
        }
        const result = yield* Effect.either(rebuild(items, fingerprint, previous))
        const at = yield* Clock.currentTimeMillis
        yield* Ref.update(state, (s) =>
          result._tag === "Right"
            ? { ...idle, built: result.right }
            : { ...s, failedAt: at, failedFor: fingerprint, rebuilding: false }
        )
        if (result._tag === "Left")
          yield* Effect.logWarning(`memory: ${spec.name} rebuild failed (retried in 30 s): ${result.left.message}`)
        if (result._tag === "Right") yield* Ref.update(owed, (n) => n + 1)
        yield* Deferred.succeed(ready, (yield* Ref.get(state)).built)
        if (result._tag === "Right")
          yield* Effect.ensuring(
            save(result.right),
            Ref.update(owed, (n) => n - 1)
          )
      })

    return {
      /** The `k` nearest items to `query` among `items` (the current store), best first; [] when unavailable. */
      search: (items: ReadonlyArray<Item>, query: string, k: number) =>
        Effect.gen(function* () {
          const built = yield* fresh(items)
          if (built === undefined || built.ids.length === 0 || k <= 0) return [] as ReadonlyArray<CacheHit>
          const q = yield* Effect.option(built.query([query]))
          if (q._tag === "None") return [] as ReadonlyArray<CacheHit>
          return searchVectorIndex(built.vectors, q.value[0]!, k)
            .filter((m) => m.score > 0)
            .map((m): CacheHit => ({ id: built.ids[m.index]!, score: m.score }))
        }),
      /**
       * Rebuilds from every text now (embedding all of them again), persists and waits: `tmem atoms compact`. Fails
       * when the embedder does; waits for a rebuild already running first.
       */
      compact: (items: ReadonlyArray<Item>) =>
        Effect.gen(function* () {
          const fingerprint = spec.fingerprintOf(items)
          for (;;) {
            const claimedNow = yield* Ref.modify(state, (s): [boolean, CacheState] =>
              s.rebuilding ? [false, s] : [true, { ...s, rebuilding: true }]
            )
            if (claimedNow) break
            yield* Effect.sleep(Duration.millis(20))
          }
          const result = yield* Effect.either(rebuild(items, fingerprint, undefined)).pipe(
            Effect.onInterrupt(() => Ref.update(state, (s) => ({ ...s, rebuilding: false })))
          )
          yield* Ref.update(state, (s) =>
            result._tag === "Right" ? { ...idle, built: result.right } : { ...s, rebuilding: false }
          )
          if (result._tag === "Left") return yield* Effect.fail(result.left)
          yield* save(result.right, Duration.zero)
          return result.right.ids.length
        }),
      /** The persisted index against the current items, without building anything (spec extended §16.2). */
      status: (items: ReadonlyArray<Item>) =>
        Effect.gen(function* () {
          // what this process is saving counts as saved
          while ((yield* Ref.get(owed)) > 0) yield* Effect.sleep(Duration.millis(10))
          const m = yield* readMeta
          const raw = yield* files.read(spec.vectorsFile)
          const persisted = Option.isSome(raw) ? decodeVectors(raw.value) : undefined
          const vectors = persisted?.ids.length ?? 0
          const current =
            persisted !== undefined &&
            m !== undefined &&
            m.fingerprint === embedder.space.id &&
            m.corpus === spec.fingerprintOf(items)
          const saved = m !== undefined || Option.isSome(raw)
          return { vectors, current, saved } satisfies PersistedStatus
        })
    }
  })
