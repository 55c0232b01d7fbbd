import { Context, type Effect } from "effect"

/** One episode as the full-text side of recall indexes it. */
export interface SearchDocument {
  readonly id: string
  /** Changes whenever `text` does (the caller's fingerprint of what it indexed); equal stamps are not re-indexed. */
  readonly stamp: string
  /** The summary, and for a trusted session its recorded text. */
  readonly text: string
}

export interface SearchMatch {
  readonly id: string
  /** The adapter's own score: comparable within one answer only. */
  readonly score: number
  /** How much of the query this document answers, 0–1 (the share of the query's weight it matched). */
  readonly coverage: number
}

/**
 * Full-text search over episodes (the lexical half of recall, DESIGN §7 "Retrieval"). The local adapter keeps a
 * BM25 index in a derived file; a database adapter can answer with its own full-text search. Callers keep it in
 * step with the episodes through `indexed` (what it holds) and `update`, and filter what it returns against the
 * current store: an index may lag, never decide trust.
 */
export class EpisodeSearch extends Context.Tag("tmem/EpisodeSearch")<
  EpisodeSearch,
  {
    /** Every indexed document's id and stamp. */
    readonly indexed: Effect.Effect<ReadonlyMap<string, string>>
    /**
     * The mark the last `update` was given: the caller's name for the collection the index was then brought in step
     * with (undefined when none was given since the index was emptied). A caller whose collection still has that
     * name needs to compare no stamps.
     */
    readonly inStepWith: Effect.Effect<string | undefined>
    /**
     * Indexes `put` (replacing documents of the same id) and drops `remove`; `mark`, when given, is kept (and
     * persisted with the index) as `inStepWith`, and anything else clears it.
     */
    readonly update: (
      put: ReadonlyArray<SearchDocument>,
      remove: ReadonlyArray<string>,
      mark?: string
    ) => Effect.Effect<void>
    /** The best `limit` documents for `query`, best first (ties in id order). */
    readonly search: (query: string, limit: number) => Effect.Effect<ReadonlyArray<SearchMatch>>
    /** Each query term's weight in this collection (rare terms weigh most), for choosing what to show of a hit. */
    readonly termWeights: (query: string) => Effect.Effect<ReadonlyMap<string, number>>
  }
>() {}

/** The same port over Extended Memory's live atoms (the lexical half of atom recall). */
export class AtomSearch extends Context.Tag("tmem/AtomSearch")<AtomSearch, EpisodeSearch["Type"]>() {}
