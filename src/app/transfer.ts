import { Effect } from "effect"
import { atomCodec } from "../domain/atoms/stream.js"
import { ATOMS_STREAM } from "../domain/atoms/store.js"
import { nudgeCodec, NUDGES_STREAM } from "../domain/atoms/nudges.js"
import { USER_MODEL_STREAM, userModelCodec } from "../domain/atoms/userModel.js"
import { EPISODES_STREAM, episodeCodec } from "../domain/episodes/stream.js"
import { TARGETS } from "../domain/facts/schema.js"
import { factCodec, factStream } from "../domain/facts/stream.js"
import type { CodecOf, StreamCodec } from "../domain/kernel/Stream.js"
import { sessionCodec } from "../domain/sessions/stream.js"
import { type EventStore, StoreError } from "../ports/EventStore.js"

const FIXED = new Map<string, StreamCodec<any, any>>([
  ...TARGETS.map((t) => [factStream(t), factCodec(t)] as const),
  [EPISODES_STREAM, episodeCodec],
  [ATOMS_STREAM, atomCodec],
  [USER_MODEL_STREAM, userModelCodec],
  [NUDGES_STREAM, nudgeCodec]
])

/** The codec of every kind of stream a memory holds: what a copy of the whole memory must decode. */
export const memoryCodecs: CodecOf = (stream) =>
  FIXED.get(stream) ?? (stream.startsWith("session/") ? (sessionCodec as StreamCodec<any, any>) : undefined)

/** How far a copy has come: batches copied of those to copy. */
export interface CopyProgress {
  readonly copied: number
  readonly total: number
}

/** What a copy did. */
export interface Copied {
  readonly batches: number
  readonly streams: number
  readonly events: number
}

/** Batches a copy reads from the source at a time. */
const PAGE = 500

/**
 * Copies every stream of one memory into another, batch by batch in the source's feed order, so each stream keeps
 * its versions, its times and its history (`tmem migrate`, `tmem export`); a compacted stream starts from its base,
 * as in the source, and goes on with the batches kept after it. The target must be empty: a copy never
 * mixes into a memory that already holds something. What the source gains while the copy runs is left for a later
 * copy: the copy ends at the feed position it started from.
 */
export const copyMemory = (
  from: EventStore["Type"],
  to: EventStore["Type"],
  onProgress: (p: CopyProgress) => Effect.Effect<void> = () => Effect.void
) =>
  Effect.gen(function* () {
    const held = yield* to.head
    if (held > 0)
      return yield* Effect.fail(
        new StoreError({
          stream: "",
          text: `memory: the target already holds ${held} batches; copy into an empty memory (or another --memory)`,
          reason: "invalid"
        })
      )
    const end = yield* from.head
    if (end === 0)
      return yield* Effect.fail(
        new StoreError({
          stream: "",
          text: "memory: the memory to copy is empty; check where it is copied from (and --memory)",
          reason: "notFound"
        })
      )
    const versions = new Map<string, number>()
    let batches = 0
    let events = 0
    let cursor = 0
    // an estimate for the progress line: positions include batches compaction took out
    const total = end
    while (cursor < end) {
      const page = (yield* from.readAll(cursor, memoryCodecs, PAGE)).filter((e) => e.position <= end)
      if (page.length === 0) break
      for (const entry of page) {
        const codec = memoryCodecs(entry.stream)!
        if (!versions.has(entry.stream)) {
          // a compacted stream starts where its kept history does, from the state there
          const base = yield* from.base(entry.stream, codec)
          if (base !== undefined) yield* to.seed(entry.stream, codec, base)
          versions.set(entry.stream, base?.version ?? 0)
        }
        const before = versions.get(entry.stream)!
        const first = entry.batch.version - entry.batch.events.length
        if (first !== before)
          return yield* Effect.fail(
            new StoreError({
              stream: entry.stream,
              text:
                `memory: ${entry.stream} in the source goes on from version ${first}, not ${before} ` +
                "(compacted while the copy ran?); nothing more was copied; copy again into an empty memory",
              reason: "conflict"
            })
          )
        yield* to.append(entry.stream, codec, before, entry.batch.events, entry.batch.at)
        versions.set(entry.stream, entry.batch.version)
        batches++
        events += entry.batch.events.length
      }
      cursor = page[page.length - 1]!.position
      yield* onProgress({ copied: batches, total })
    }
    return { batches, streams: versions.size, events } satisfies Copied
  })
