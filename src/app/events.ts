import { Effect } from "effect"
import { episodeLifecycle, factLifecycle, type LifecycleEvent } from "../domain/events/lifecycle.js"
import { EPISODES_STREAM, episodeCodec } from "../domain/episodes/stream.js"
import { TARGETS } from "../domain/facts/schema.js"
import { factCodec, factStream } from "../domain/facts/stream.js"
import { EventStore } from "../ports/EventStore.js"

/** Versions already seen, per stream; `lifecycleHistory` returns only what came after. */
export type Cursor = Readonly<Record<string, number>>

/**
 * The journal as lifecycle events, oldest first across streams (ties keep stream order), and the cursor to
 * continue from. Every event the store ever recorded is here: the journal is the audit trail.
 */
export const lifecycleHistory = Effect.fn("lifecycleHistory")(function* (cursor: Cursor = {}) {
  const store = yield* EventStore
  const events: Array<LifecycleEvent> = []
  const next: Record<string, number> = { ...cursor }
  for (const target of TARGETS) {
    const stream = factStream(target)
    const batches = yield* store.read(stream, factCodec(target), cursor[stream] ?? 0)
    for (const b of batches) events.push(...factLifecycle(stream, b))
    const last = batches[batches.length - 1]
    if (last !== undefined) next[stream] = last.version
  }
  const episodes = yield* store.read(EPISODES_STREAM, episodeCodec, cursor[EPISODES_STREAM] ?? 0)
  for (const b of episodes) events.push(...episodeLifecycle(EPISODES_STREAM, b))
  const lastEpisode = episodes[episodes.length - 1]
  if (lastEpisode !== undefined) next[EPISODES_STREAM] = lastEpisode.version
  const ordered = events
    .map((e, i) => ({ e, i }))
    .sort((a, b) => (a.e.timestamp < b.e.timestamp ? -1 : a.e.timestamp > b.e.timestamp ? 1 : a.i - b.i))
    .map((x) => x.e)
  return { events: ordered, cursor: next as Cursor }
})
