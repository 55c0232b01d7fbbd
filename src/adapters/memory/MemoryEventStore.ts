import { Effect, Either, Layer, Schema } from "effect"
import {
  type Batch,
  batchCodec,
  type CodecOf,
  type FeedEntry,
  foldStream,
  isValidConsumerName,
  isValidStreamName,
  type StreamCodec
} from "../../domain/kernel/Stream.js"
import { type Base, EventStore, StoreError, VersionConflict } from "../../ports/EventStore.js"
import { pollingSubscribe } from "../feedPolling.js"

interface StoredStream {
  /** Batches as a reader gets them back: encoded and decoded again on append, like a journal round trip. */
  batches: Array<Batch<unknown>>
  /** What compaction left of the history before `batches`: the state at a version, in its codec's snapshot form. */
  base?: { readonly version: number; readonly at: string; readonly encoded: unknown }
  /** The fold of `batches` under `codec`, kept so loads cost nothing however long the history. */
  folded?: { readonly codec: StreamCodec<any, any>; readonly state: unknown }
}

/**
 * In-process store for tests and simulations. Every event goes through its schema's encode and decode on
 * append, so an event that would not survive the journal fails here too.
 */
export const make = Effect.sync(() => {
  const streams = new Map<string, StoredStream>()
  /** Every batch in append order: the feed, position i + 1 at index i. */
  const feed: Array<{ readonly stream: string; readonly batch: Batch<unknown> }> = []
  /** Batches compaction took out of their streams: the feed keeps their positions and passes over them. */
  const forgotten = new WeakSet<Batch<unknown>>()
  const checkpoints = new Map<string, number>()
  const checkConsumer = (name: string) =>
    isValidConsumerName(name)
      ? Effect.void
      : Effect.fail(
          new StoreError({
            stream: "",
            text: `memory: invalid consumer name ${JSON.stringify(name)}`,
            reason: "invalid"
          })
        )

  const checkStream = (stream: string) =>
    isValidStreamName(stream)
      ? Effect.void
      : Effect.fail(
          new StoreError({ stream, text: `memory: invalid stream name ${JSON.stringify(stream)}`, reason: "invalid" })
        )

  const versionOf = (stored: StoredStream | undefined) =>
    stored?.batches[stored.batches.length - 1]?.version ?? stored?.base?.version ?? 0
  const baseState = <S, E>(stored: StoredStream, codec: StreamCodec<S, E>): S =>
    stored.base === undefined || codec.snapshot === undefined
      ? codec.initialState
      : Schema.decodeUnknownSync(codec.snapshot)(stored.base.encoded)

  const stateOf = <S, E>(stored: StoredStream | undefined, codec: StreamCodec<S, E>): S => {
    if (stored === undefined) return codec.initialState
    if (stored.folded?.codec !== codec)
      stored.folded = {
        codec,
        state: foldStream(
          codec,
          baseState(stored, codec),
          stored.batches.flatMap((b) => b.events as ReadonlyArray<E>)
        )
      }
    return stored.folded.state as S
  }

  const readAll = (after: number, codecOf: CodecOf, limit = Number.POSITIVE_INFINITY) =>
    Effect.sync(() => {
      const out: Array<FeedEntry> = []
      for (let i = Math.max(0, after); i < feed.length && out.length < limit; i++)
        if (codecOf(feed[i]!.stream) !== undefined && !forgotten.has(feed[i]!.batch))
          out.push({ position: i + 1, ...feed[i]! })
      return out
    })

  return EventStore.of({
    load: (stream, codec) =>
      Effect.zipRight(
        checkStream(stream),
        Effect.sync(() => {
          const stored = streams.get(stream)
          return { state: stateOf(stored, codec), version: versionOf(stored) }
        })
      ),
    read: <S, E>(stream: string, _codec: StreamCodec<S, E>, fromVersion = 0) =>
      Effect.zipRight(
        checkStream(stream),
        Effect.sync(
          () => (streams.get(stream)?.batches ?? []).filter((b) => b.version > fromVersion) as ReadonlyArray<Batch<E>>
        )
      ),
    append: (stream, codec, expectedVersion, events, at) =>
      Effect.gen(function* () {
        yield* checkStream(stream)
        const { encode, decode } = batchCodec(codec)
        const decoded = yield* Either.flatMap(encode(events), decode).pipe(
          Either.mapLeft(
            (e) => new StoreError({ stream, text: `memory: cannot encode events for ${stream}: ${e.message}` })
          )
        )
        // Check and write with no yield in between: the disk store's lock, in one synchronous step.
        const stored = streams.get(stream)
        const actual = versionOf(stored)
        if (actual !== expectedVersion)
          return yield* Effect.fail(new VersionConflict({ stream, expected: expectedVersion, actual }))
        const before = stateOf(stored, codec)
        if (decoded.length === 0) return { state: before, batch: { version: actual, at, events: [] }, position: 0 }
        const batch = { version: actual + decoded.length, at, events: decoded }
        const state = foldStream(codec, before, decoded)
        const next: StoredStream = stored ?? { batches: [] }
        next.batches.push(batch)
        next.folded = { codec, state }
        streams.set(stream, next)
        feed.push({ stream, batch })
        return { state, batch, position: feed.length }
      }),
    compact: <S, E>(stream: string, codec: StreamCodec<S, E>, through: number) =>
      Effect.gen(function* () {
        yield* checkStream(stream)
        const snapshot = codec.snapshot
        if (snapshot === undefined)
          return yield* Effect.fail(
            new StoreError({
              stream,
              text: `memory: ${stream} keeps no snapshots, so it cannot be compacted`,
              reason: "invalid"
            })
          )
        const stored = streams.get(stream)
        if (stored === undefined) return 0
        // the last batch stays, as on disk
        let keepFrom = stored.batches.findIndex((b) => b.version > through)
        if (keepFrom < 0) keepFrom = stored.batches.length - 1
        if (keepFrom <= 0) return 0
        const gone = stored.batches.slice(0, keepFrom)
        const state = foldStream(
          codec,
          baseState(stored, codec),
          gone.flatMap((b) => b.events as ReadonlyArray<E>)
        )
        const last = gone[gone.length - 1]!
        stored.base = { version: last.version, at: last.at, encoded: Schema.encodeSync(snapshot)(state) }
        stored.batches = stored.batches.slice(keepFrom)
        for (const b of gone) forgotten.add(b)
        return gone.length
      }),
    base: <S, E>(stream: string, codec: StreamCodec<S, E>) =>
      Effect.zipRight(
        checkStream(stream),
        Effect.sync((): Base<S> | undefined => {
          const stored = streams.get(stream)
          if (stored?.base === undefined) return undefined
          return { state: baseState(stored, codec), version: stored.base.version, at: stored.base.at }
        })
      ),
    seed: <S, E>(stream: string, codec: StreamCodec<S, E>, base: Base<S>) =>
      Effect.gen(function* () {
        yield* checkStream(stream)
        const snapshot = codec.snapshot
        if (snapshot === undefined)
          return yield* Effect.fail(
            new StoreError({
              stream,
              text: `memory: ${stream} keeps no snapshots, so it cannot start from a compacted state`,
              reason: "invalid"
            })
          )
        if (!Number.isSafeInteger(base.version) || base.version < 1)
          return yield* Effect.fail(
            new StoreError({
              stream,
              text: `memory: a stream starts from version 1 or later, not ${base.version}`,
              reason: "invalid"
            })
          )
        const actual = versionOf(streams.get(stream))
        if (actual !== 0) return yield* Effect.fail(new VersionConflict({ stream, expected: 0, actual }))
        const encoded = yield* Schema.encode(snapshot)(base.state).pipe(
          Effect.mapError(
            (e) => new StoreError({ stream, text: `memory: cannot encode the state of ${stream}: ${e.message}` })
          )
        )
        streams.set(stream, { batches: [], base: { version: base.version, at: base.at, encoded } })
      }),
    readAll,
    head: Effect.sync(() => feed.length),
    subscribe: pollingSubscribe(readAll, 10),
    checkpoint: (name) =>
      Effect.zipRight(
        checkConsumer(name),
        Effect.sync(() => checkpoints.get(name))
      ),
    saveCheckpoint: (name, position) =>
      Effect.zipRight(
        checkConsumer(name),
        Effect.sync(() => void checkpoints.set(name, position))
      )
  })
})

export const layer = Layer.effect(EventStore, make)
