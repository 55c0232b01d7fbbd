import { Context, type Effect, type Schedule, Schema, type Stream } from "effect"
import type { Batch, CodecOf, FeedEntry, StreamCodec } from "../domain/kernel/Stream.js"

/** Someone appended to the stream since the caller read it; reload, decide again, retry. */
export class VersionConflict extends Schema.TaggedError<VersionConflict>()("VersionConflict", {
  stream: Schema.String,
  expected: Schema.Number,
  actual: Schema.Number
}) {
  override get message() {
    return (
      `memory: ${this.stream} changed while this call ran ` +
      `(expected version ${this.expected}, found ${this.actual}); retry`
    )
  }
}

/**
 * Why storage failed, for callers that act on it. `unavailable` may pass by itself (a lock held too long, a full
 * disk, a lost connection) and is what a networked store's retry policy retries; `conflict` is a write that lost a
 * race the version check could not name; `corrupt` is stored data that fails its checks; `permission` and
 * `notFound` need a person; `invalid` is a request no store could serve (a bad stream name, a link where a file
 * belongs); `other` is anything else.
 */
export const StoreFailure = Schema.Literal(
  "unavailable",
  "conflict",
  "corrupt",
  "permission",
  "notFound",
  "invalid",
  "other"
)
export type StoreFailure = typeof StoreFailure.Type

/** Storage failed (permissions, disk, a damaged journal). `text` is one line saying what and what to do. */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  stream: Schema.String,
  text: Schema.String,
  reason: Schema.optionalWith(StoreFailure, { default: () => "other" })
}) {
  override get message() {
    return this.text
  }
}

/**
 * A stream's current state and version. What a store appends while loading (a repair, a person's edit it adopts or
 * refuses) is an ordinary batch of the stream: it is in the version and the state, and readers of the feed see it at
 * its position like any other. Load hands back nothing on the side.
 */
export interface Loaded<S> {
  readonly state: S
  readonly version: number
}

/** Where a compacted stream's kept history begins: a version, the state there, and when that version was written. */
export interface Base<S> {
  readonly state: S
  readonly version: number
  readonly at: string
}

export interface Appended<S, E> {
  readonly state: S
  readonly batch: Batch<E>
  /** The batch's place in the store-wide feed (0 when the append wrote nothing). */
  readonly position: number
}

/**
 * How the command handler re-runs a command against this store: after a `VersionConflict` (the store knows how long
 * its appends take), and, when given, after a StoreError whose reason is `unavailable` (a networked store's
 * transient failures; a local one has none worth retrying).
 */
export interface RetryPolicy {
  readonly conflict: Schedule.Schedule<unknown, unknown>
  readonly unavailable?: Schedule.Schedule<unknown, unknown>
}

/**
 * Streams of domain events with optimistic concurrency. Stores may keep projections (the disk store writes the
 * odek files) but callers only ever see events, states and versions.
 */
export class EventStore extends Context.Tag("tmem/EventStore")<
  EventStore,
  {
    /**
     * The stream's state and version. While the stream is unchanged, a store instance hands back the very state
     * object it handed back before (or that its last append returned), so callers may cache work by the state's
     * identity (the episode index and recall do); a changed stream gives a new object.
     */
    readonly load: <S, E>(stream: string, codec: StreamCodec<S, E>) => Effect.Effect<Loaded<S>, StoreError>
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
    /**
     * Forgets the history of `stream` up to version `through`: the state at the last batch not after it stands in
     * for every batch up to there, and the stream's last batch is always kept. The state, the version and the later
     * batches do not change; `read` returns only what follows, and the feed passes over the forgotten batches (their
     * positions stay theirs). Only for codecs with a snapshot schema. Answers how many batches were forgotten.
     */
    readonly compact: <S, E>(
      stream: string,
      codec: StreamCodec<S, E>,
      through: number
    ) => Effect.Effect<number, StoreError>
    /**
     * Where the stream's kept history begins when compaction took some of it: `read(stream, codec, base.version)`
     * gives every batch after it, and folding them over `base.state` gives the stream's state. Undefined when the
     * stream keeps its whole history (it begins at version 0 with the codec's initial state). What a copy of a
     * compacted stream starts from (`tmem migrate`).
     */
    readonly base: <S, E>(stream: string, codec: StreamCodec<S, E>) => Effect.Effect<Base<S> | undefined, StoreError>
    /**
     * Starts an empty stream at `base`, as if its history up to there had been compacted: `load` gives the base's
     * state and version, `read` and the feed give nothing of it, and appends go on from its version. Only for codecs
     * with a snapshot schema; a stream that holds anything already fails with a VersionConflict.
     */
    readonly seed: <S, E>(
      stream: string,
      codec: StreamCodec<S, E>,
      base: Base<S>
    ) => Effect.Effect<void, VersionConflict | StoreError>
    /**
     * Batches of every stream after feed position `after` (0: from the start), in feed order, at most `limit` of them
     * (default: all). Streams `codecOf` has no codec for are passed over. A batch appears only once it is in its
     * stream; an append that failed never appears.
     */
    readonly readAll: (
      after: number,
      codecOf: CodecOf,
      limit?: number
    ) => Effect.Effect<ReadonlyArray<FeedEntry>, StoreError>
    /** The feed's last position now (0 for an empty store): where a reader that wants only what comes next starts. */
    readonly head: Effect.Effect<number, StoreError>
    /**
     * Every batch after `after`, then each new one as it is appended by any writer of the store (another process's
     * too), in feed order, never skipping one: a subscriber that checkpoints the last position it handled and
     * resumes from it misses nothing.
     */
    readonly subscribe: (after: number, codecOf: CodecOf) => Stream.Stream<FeedEntry, StoreError>
    /**
     * The last feed position a named consumer (a notifier, a projection) has handled, or undefined when it has none
     * yet. Consumer names are lowercase words (`[a-z0-9][a-z0-9_-]*`).
     */
    readonly checkpoint: (consumer: string) => Effect.Effect<number | undefined, StoreError>
    /**
     * Records that `consumer` has handled the feed up to `position`. It need not be durable at once: a checkpoint that
     * falls back (a crash) only has the consumer handle some batches again, which at-least-once delivery allows.
     */
    readonly saveCheckpoint: (consumer: string, position: number) => Effect.Effect<void, StoreError>
    /** The store's own retry policy; without one, the handler's default for local stores (`conflictRetry`). */
    readonly retry?: RetryPolicy
  }
>() {}
