import { Effect, Layer, Option } from "effect"
import { DerivedFiles } from "../../ports/DerivedFiles.js"
import { AtomSearch, EpisodeSearch } from "../../ports/EpisodeSearch.js"
import { makeLexicalIndex } from "./lexicalIndex.js"

/** The persisted index beside the episode vectors; losing it costs a rebuild, never data. */
export const LEXICAL_FILE = "episodes_lexical.bin"
/** Where format 1 (JSON) was kept: removed when the index is first written anew. */
export const LEGACY_LEXICAL_FILE = "episodes_lexical.json"

/**
 * The local full-text side of recall: a BM25 index held in memory, read from its derived file on first use and
 * written back after each change, so a new process does not re-read every session.
 */
export const make = Effect.suspend(() => makeSearch({ file: LEXICAL_FILE, legacy: LEGACY_LEXICAL_FILE }))

/**
 * A BM25 index as a search port: persisted in `file` when given (read on first use, written after each change), or
 * kept in memory only (rebuilt by the caller's first update in each process).
 */
export const makeSearch = (options: { readonly file?: string; readonly legacy?: string }) =>
  Effect.gen(function* () {
    const files = yield* DerivedFiles
    const { file, legacy } = options
    const index = makeLexicalIndex()
    let loaded = false
    let legacyRemoved = false
    // one update at a time, so the file never ends up holding an older index than memory
    const writing = yield* Effect.makeSemaphore(1)
    const ready = Effect.suspend(() => {
      if (loaded) return Effect.void
      if (file === undefined) return Effect.sync(() => void (loaded = true))
      return Effect.map(files.read(file), (bytes) => {
        loaded = true
        // a damaged or foreign file is an empty index: the caller re-indexes what is missing
        if (Option.isSome(bytes)) index.restore(bytes.value)
      })
    })
    return EpisodeSearch.of({
      indexed: Effect.zipRight(
        ready,
        Effect.sync(() => index.stamps())
      ),
      inStepWith: Effect.zipRight(
        ready,
        Effect.sync(() => index.inStepWith())
      ),
      update: (put, remove, mark) =>
        Effect.zipRight(
          ready,
          writing.withPermits(1)(
            Effect.suspend(() => {
              if (put.length === 0 && remove.length === 0 && mark === index.inStepWith()) return Effect.void
              for (const id of remove) index.remove(id)
              for (const d of put) index.put(d)
              index.markInStep(mark)
              if (file === undefined) return Effect.void
              return Effect.zipRight(
                files.write(file, index.serialize()),
                legacyRemoved || legacy === undefined
                  ? Effect.void
                  : Effect.tap(files.remove(legacy), () => (legacyRemoved = true))
              )
            })
          )
        ),
      search: (query, limit) =>
        Effect.zipRight(
          ready,
          Effect.sync(() => index.search(query, limit))
        ),
      termWeights: (query) =>
        Effect.zipRight(
          ready,
          Effect.sync(() => index.termWeights(query))
        )
    })
  })

/** Needs DerivedFiles (the disk or in-memory one). */
export const layer = Layer.effect(EpisodeSearch, make)

/**
 * The lexical half of atom recall (spec extended §9 with DESIGN's hybrid retrieval): in memory only. Atoms are short
 * and change on every write; rewriting a persisted index of 100,000 atoms per write would cost each write more than
 * indexing them once per process costs the first recall.
 */
export const atomLayer = Layer.effect(AtomSearch, makeSearch({}))
