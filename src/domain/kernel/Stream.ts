import type { Schema } from "effect"

/**
 * How a store keeps one kind of stream: the fold that rebuilds its state and the schema of its events. Stores
 * decode journal lines with `events` and rebuild state with `evolve`; they never decide anything.
 */
export interface StreamCodec<S, E> {
  readonly initialState: S
  readonly evolve: (state: S, event: E) => S
  readonly events: Schema.Schema<E, any>
  /** A human-readable text projection (the odek fact files). Stores that keep files use it; others may ignore it. */
  readonly text?: TextProjection<S, E>
}

/**
 * A projection a person may read and edit. `parse(render(s))` must equal `s` for every reachable state, so a store
 * can restore state from the projection instead of replaying the whole stream.
 */
export interface TextProjection<S, E> {
  readonly render: (state: S) => string
  readonly parse: (text: string) => S
  /** Events that adopt a projection found without any history (an existing odek directory). */
  readonly imported: (text: string, at: string) => ReadonlyArray<E>
  /** Events that record a projection a person changed behind the store's back. Never refuses: the edit is kept. */
  readonly editedExternally: (text: string, state: S, at: string, note: string | undefined) => ReadonlyArray<E>
}

/** One appended batch; `version` counts events in the stream up to and including this batch. */
export interface Batch<E> {
  readonly version: number
  readonly at: string
  readonly events: ReadonlyArray<E>
}

/** Stream names are lowercase path-like words (`facts/user`, `session/20260101-ab12`); no `..`, no leading slash. */
export const isValidStreamName = (stream: string): boolean =>
  /^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9_.-]*)*$/.test(stream) && !stream.includes("..")
