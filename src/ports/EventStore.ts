import { Context, type Effect, Schema } from "effect"
import type { Batch, StreamCodec } from "../domain/kernel/Stream.js"

/** Someone appended to the stream since the caller read it; reload, decide again, retry. */
export class VersionConflict extends Schema.TaggedError<VersionConflict>()("VersionConflict", {
  stream: Schema.String,
  expected: Schema.Number,
  actual: Schema.Number
}) {
  override get message() {
    return `memory: ${this.stream} changed while this call ran (expected version ${this.expected}, found ${this.actual}); retry`
  }
}

/** Storage failed (permissions, disk, a damaged journal). `text` is one line saying what and what to do. */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  stream: Schema.String,
  text: Schema.String
}) {
  override get message() {
    return this.text
  }
}

/** A stream's current state and version, plus batches the store itself recorded while loading (repairs, hand edits). */
export interface Loaded<S, E> {
  readonly state: S
  readonly version: number
  readonly recorded: ReadonlyArray<Batch<E>>
}

export interface Appended<S, E> {
  readonly state: S
  readonly batch: Batch<E>
}

/**
 * Streams of domain events with optimistic concurrency. Stores may keep projections (the disk store writes the
 * odek files) but callers only ever see events, states and versions.
 */
export class EventStore extends Context.Tag("tmem/EventStore")<
  EventStore,
  {
    readonly load: <S, E>(stream: string, codec: StreamCodec<S, E>) => Effect.Effect<Loaded<S, E>, StoreError>
    /** Batches after `fromVersion` (default 0), oldest first. */
    readonly read: <S, E>(
      stream: string,
      codec: StreamCodec<S, E>,
      fromVersion?: number
    ) => Effect.Effect<ReadonlyArray<Batch<E>>, StoreError>
    /** Appends one batch atomically if the stream is still at `expectedVersion`. */
    readonly append: <S, E>(
      stream: string,
      codec: StreamCodec<S, E>,
      expectedVersion: number,
      events: ReadonlyArray<E>,
      at: string
    ) => Effect.Effect<Appended<S, E>, VersionConflict | StoreError>
  }
>() {}
