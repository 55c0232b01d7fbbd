import { Effect, Stream } from "effect"
import { nudgeCodec, NUDGES_STREAM } from "../domain/atoms/nudges.js"
import {
  episodeLifecycle,
  factLifecycle,
  type LifecycleEvent,
  nudgeLifecycle,
  sessionLifecycle
} from "../domain/events/lifecycle.js"
import { EPISODES_STREAM, episodeCodec } from "../domain/episodes/stream.js"
import { TARGETS } from "../domain/facts/schema.js"
import { factCodec, factStream } from "../domain/facts/stream.js"
import type { Batch, CodecOf, FeedEntry, StreamCodec } from "../domain/kernel/Stream.js"
import { sessionCodec } from "../domain/sessions/stream.js"
import { EventStore } from "../ports/EventStore.js"

/** A kind of stream that lifecycle events come from: how to decode its batches and what people are told of them. */
interface LifecycleSource {
  readonly codec: StreamCodec<any, any>
  readonly lifecycle: (stream: string, batch: Batch<any>) => ReadonlyArray<LifecycleEvent>
}

const FACT_SOURCES = new Map(
  TARGETS.map((t) => [factStream(t), { codec: factCodec(t), lifecycle: factLifecycle }] as const)
)
const EPISODE_SOURCE: LifecycleSource = { codec: episodeCodec, lifecycle: episodeLifecycle }
const SESSION_SOURCE: LifecycleSource = { codec: sessionCodec, lifecycle: sessionLifecycle }
const NUDGE_SOURCE: LifecycleSource = { codec: nudgeCodec, lifecycle: nudgeLifecycle }

/** The fact files, the episode store, the sessions and nudges; other streams have no lifecycle events. */
const sourceOf = (stream: string): LifecycleSource | undefined =>
  FACT_SOURCES.get(stream) ??
  (stream === EPISODES_STREAM
    ? EPISODE_SOURCE
    : stream === NUDGES_STREAM
      ? NUDGE_SOURCE
      : stream.startsWith("session/")
        ? SESSION_SOURCE
        : undefined)

/** The streams lifecycle events come from, with their codecs: what a feed reader of lifecycle events decodes. */
export const lifecycleCodecs: CodecOf = (stream) => sourceOf(stream)?.codec

/** The lifecycle events of one feed entry, each carrying the entry's position. */
export const lifecycleOf = (entry: FeedEntry): ReadonlyArray<LifecycleEvent> =>
  (sourceOf(entry.stream)?.lifecycle(entry.stream, entry.batch) ?? []).map((e) => ({ ...e, position: entry.position }))

/**
 * The journal as lifecycle events in the store-wide order they were written, after feed position `after`, and the
 * position to continue from. Every event the store ever recorded is here: the journal is the audit trail.
 */
export const lifecycleFeed = (after = 0) =>
  Effect.flatMap(EventStore, (store) =>
    Effect.map(store.readAll(after, lifecycleCodecs), (entries) => ({
      events: entries.flatMap(lifecycleOf),
      position: entries.length === 0 ? after : entries[entries.length - 1]!.position
    }))
  )

/** Every lifecycle event after `after`, then each new one as any writer of the store records it, until interrupted. */
export const followLifecycle = (after = 0) =>
  Stream.unwrap(
    Effect.map(EventStore, (store) =>
      Stream.flatMap(store.subscribe(after, lifecycleCodecs), (entry) => Stream.fromIterable(lifecycleOf(entry)))
    )
  )

/** Versions already seen, per stream; `lifecycleHistory` returns only what came after. */
export type Cursor = Readonly<Record<string, number>>

/**
 * The lifecycle events after a per-stream cursor (versions seen), in feed order, and the cursor to continue from.
 * Kept for callers that track streams one by one; `lifecycleFeed` takes a single position.
 */
export const lifecycleHistory = (cursor: Cursor = {}) =>
  Effect.map(lifecycleFeed(0), ({ events }) => {
    const next: Record<string, number> = { ...cursor }
    const fresh = events.filter((e) => e.version > (cursor[e.stream] ?? 0))
    for (const e of fresh) next[e.stream] = Math.max(next[e.stream] ?? 0, e.version)
    return { events: fresh, cursor: next as Cursor }
  })
