import { Effect, Stream } from "effect"
import { episodeLifecycle, factLifecycle, type LifecycleEvent, sessionLifecycle } from "../domain/events/lifecycle.js"
import type { EpisodeEvent } from "../domain/episodes/store.js"
import { EPISODES_STREAM, episodeCodec } from "../domain/episodes/stream.js"
import { type FactEvent, TARGETS } from "../domain/facts/schema.js"
import { factCodec, factStream } from "../domain/facts/stream.js"
import type { Batch, CodecOf, FeedEntry } from "../domain/kernel/Stream.js"
import type { SessionEvent } from "../domain/sessions/session.js"
import { sessionCodec } from "../domain/sessions/stream.js"
import { EventStore } from "../ports/EventStore.js"

const FACT_STREAMS = new Map(TARGETS.map((t) => [factStream(t), t] as const))

/** The streams lifecycle events come from: fact files, the episode store, sessions. */
export const lifecycleCodecs: CodecOf = (stream) => {
  const target = FACT_STREAMS.get(stream)
  if (target !== undefined) return factCodec(target) as never
  if (stream === EPISODES_STREAM) return episodeCodec as never
  return stream.startsWith("session/") ? (sessionCodec as never) : undefined
}

/** The lifecycle events of one feed entry, each carrying the entry's position. */
export const lifecycleOf = (entry: FeedEntry): ReadonlyArray<LifecycleEvent> => {
  const { stream, batch, position } = entry
  const events = FACT_STREAMS.has(stream)
    ? factLifecycle(stream, batch as Batch<FactEvent>)
    : stream === EPISODES_STREAM
      ? episodeLifecycle(stream, batch as Batch<EpisodeEvent>)
      : stream.startsWith("session/")
        ? sessionLifecycle(stream, batch as Batch<SessionEvent>)
        : []
  return events.map((e) => ({ ...e, position }))
}

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
