import { Effect, Layer, Ref, Schema } from "effect"
import { foldEvents } from "../../domain/kernel/Decider.js"
import { type Batch, isValidStreamName, type StreamCodec } from "../../domain/kernel/Stream.js"
import { EventStore, StoreError, VersionConflict } from "../../ports/EventStore.js"

interface StoredStream {
  /** Encoded batches, as a durable store would keep them. */
  readonly batches: ReadonlyArray<{ readonly version: number; readonly at: string; readonly events: ReadonlyArray<unknown> }>
}

/**
 * In-process store for tests and simulations. Events are kept encoded and decoded on read, so an event that
 * would not survive the journal fails here too.
 */
export const make = Effect.gen(function* () {
  const streams = yield* Ref.make(new Map<string, StoredStream>())

  const decodeAll = <S, E>(stream: string, codec: StreamCodec<S, E>, stored: StoredStream | undefined) =>
    Effect.forEach(stored?.batches ?? [], (b) =>
      Schema.decodeUnknown(Schema.Array(codec.events))(b.events).pipe(
        Effect.map((events): Batch<E> => ({ version: b.version, at: b.at, events })),
        Effect.mapError((e) => new StoreError({ stream, text: `memory: ${stream} holds an undecodable batch: ${e.message}` }))
      )
    )

  const checkStream = (stream: string) =>
    isValidStreamName(stream)
      ? Effect.void
      : Effect.fail(new StoreError({ stream, text: `memory: invalid stream name ${JSON.stringify(stream)}` }))

  const versionOf = (stored: StoredStream | undefined) => stored?.batches[stored.batches.length - 1]?.version ?? 0

  return EventStore.of({
    load: (stream, codec) =>
      Effect.gen(function* () {
        yield* checkStream(stream)
        const stored = (yield* Ref.get(streams)).get(stream)
        const batches = yield* decodeAll(stream, codec, stored)
        return {
          state: foldEvents(codec.evolve, codec.initialState, batches.flatMap((b) => b.events)),
          version: versionOf(stored),
          recorded: []
        }
      }),
    read: (stream, codec, fromVersion = 0) =>
      Effect.gen(function* () {
        yield* checkStream(stream)
        const stored = (yield* Ref.get(streams)).get(stream)
        return (yield* decodeAll(stream, codec, stored)).filter((b) => b.version > fromVersion)
      }),
    append: (stream, codec, expectedVersion, events, at) =>
      Effect.gen(function* () {
        yield* checkStream(stream)
        const encoded = yield* Schema.encode(Schema.Array(codec.events))(events).pipe(
          Effect.mapError((e) => new StoreError({ stream, text: `memory: cannot encode events for ${stream}: ${e.message}` }))
        )
        // Check and write in one atomic step, as the disk store does under its lock.
        const outcome = yield* Ref.modify(streams, (map): readonly [{ readonly conflict: number } | { readonly version: number }, Map<string, StoredStream>] => {
          const stored = map.get(stream)
          const actual = versionOf(stored)
          if (actual !== expectedVersion) return [{ conflict: actual }, map] as const
          if (events.length === 0) return [{ version: actual }, map] as const
          const version = actual + events.length
          const next = new Map(map)
          next.set(stream, { batches: [...(stored?.batches ?? []), { version, at, events: encoded as ReadonlyArray<unknown> }] })
          return [{ version }, next] as const
        })
        if ("conflict" in outcome)
          return yield* Effect.fail(new VersionConflict({ stream, expected: expectedVersion, actual: outcome.conflict }))
        const stored = (yield* Ref.get(streams)).get(stream)
        const batches = yield* decodeAll(stream, codec, stored)
        const state = foldEvents(
          codec.evolve,
          codec.initialState,
          batches.filter((b) => b.version <= outcome.version).flatMap((b) => b.events)
        )
        return { state, batch: { version: outcome.version, at, events } }
      })
  })
})

export const layer = Layer.effect(EventStore, make)
