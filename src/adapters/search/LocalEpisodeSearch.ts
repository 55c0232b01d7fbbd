import { Effect, Layer, Option } from "effect"
import { DerivedFiles } from "../../ports/DerivedFiles.js"
import { EpisodeSearch } from "../../ports/EpisodeSearch.js"
import { makeLexicalIndex } from "./lexicalIndex.js"

/** The persisted index beside the episode vectors; losing it costs a rebuild, never data. */
export const LEXICAL_FILE = "episodes_lexical.bin"
/** Where format 1 (JSON) was kept: removed when the index is first written anew. */
export const LEGACY_LEXICAL_FILE = "episodes_lexical.json"

/**
 * The local full-text side of recall: a BM25 index held in memory, read from its derived file on first use and
 * written back after each change, so a new process does not re-read every session.
 */
export const make = Effect.gen(function* () {
  const files = yield* DerivedFiles
  const index = makeLexicalIndex()
  let loaded = false
  let legacyRemoved = false
  // one update at a time, so the file never ends up holding an older index than memory
  const writing = yield* Effect.makeSemaphore(1)
  const ready = Effect.suspend(() => {
    if (loaded) return Effect.void
    return Effect.map(files.read(LEXICAL_FILE), (bytes) => {
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
            return Effect.zipRight(
              files.write(LEXICAL_FILE, index.serialize()),
              legacyRemoved ? Effect.void : Effect.tap(files.remove(LEGACY_LEXICAL_FILE), () => (legacyRemoved = true))
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
