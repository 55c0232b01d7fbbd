import { Effect } from "effect"
import type { Batch, StreamCodec } from "../domain/kernel/Stream.js"
import { EventStore, StoreError, VersionConflict } from "../ports/EventStore.js"
import { nowIso } from "./clock.js"
import { conflictRetry } from "./retry.js"

/** One command for one stream, as the handler runs it. */
export interface Command<S, E, Err, R, RP = never> {
  readonly stream: string
  readonly codec: StreamCodec<S, E>
  /**
   * The events the command makes of the stream's current state, stamped `at`. Whatever the decision needs from
   * outside (a merge probe, a dedup probe, a model's judgement) is computed here, before the append and outside any
   * lock, on the very state it is decided on: a conflict re-runs it on the new state.
   */
  readonly decide: (state: S, at: string) => Effect.Effect<ReadonlyArray<E>, Err, R>
  /**
   * Announces the command's batch once it is durable. Called with no batch when the command appends nothing: what
   * the store itself appended while loading (an adopted hand edit, say) is in the feed, and a notifier that reads
   * the feed takes any call as the wake-up to deliver it.
   */
  readonly publish?: (batches: ReadonlyArray<Batch<E>>) => Effect.Effect<void, never, RP>
  /** The version the caller decided against (an editor's file): a stream that moved on is their conflict to see. */
  readonly expectedVersion?: number
}

export interface Handled<S, E> {
  /** The events appended; none when the command changed nothing. */
  readonly events: ReadonlyArray<E>
  /** The stream's state after the command. */
  readonly state: S
}

const isConflict = (e: unknown): e is VersionConflict => e instanceof VersionConflict
const isUnavailable = (e: unknown): e is StoreError => e instanceof StoreError && e.reason === "unavailable"

/**
 * The one command handler (DESIGN §7 "Port shape"): load → decide → append with the loaded version → publish. When
 * another writer appended in between, the whole command runs again on the new state: at once, then with the store's
 * conflict schedule (set up only once a conflict is met: every write pays for the first attempt). A command with an
 * `expectedVersion` is not retried: the caller hears about the conflict. A store that names a schedule for its
 * transient failures (`unavailable`) has the command re-run on those too.
 */
export const handleCommand = <S, E, Err, R, RP = never>(
  command: Command<S, E, Err, R, RP>
): Effect.Effect<Handled<S, E>, Err | VersionConflict | StoreError, R | RP | EventStore> => {
  const { stream, codec, decide, publish, expectedVersion } = command
  return Effect.flatMap(EventStore, (store) => {
    // an append's own announcement wakes a feed reader too; only a command that appends nothing needs this one
    const wake = publish === undefined ? Effect.void : publish([])
    const attempt = Effect.flatMap(store.load(stream, codec), (loaded) => {
      if (expectedVersion !== undefined && loaded.version !== expectedVersion)
        return Effect.zipRight(
          wake,
          Effect.fail(new VersionConflict({ stream, expected: expectedVersion, actual: loaded.version }))
        )
      // stamped after loading, so the command's time follows anything the load itself appended
      return Effect.flatMap(nowIso, (at) =>
        Effect.flatMap(
          Effect.tapError(decide(loaded.state, at), () => wake),
          (events): Effect.Effect<Handled<S, E>, VersionConflict | StoreError, RP> =>
            events.length === 0
              ? Effect.as(wake, { events, state: loaded.state })
              : Effect.flatMap(store.append(stream, codec, loaded.version, events, at), (appended) =>
                  Effect.as(publish === undefined ? Effect.void : publish([appended.batch]), {
                    events,
                    state: appended.state
                  })
                )
        )
      )
    })
    const conflicts = store.retry?.conflict ?? conflictRetry
    const raced =
      expectedVersion !== undefined
        ? attempt
        : attempt.pipe(
            Effect.catchIf(isConflict, () => attempt.pipe(Effect.retry({ schedule: conflicts, while: isConflict })))
          )
    const unavailable = store.retry?.unavailable
    return unavailable === undefined ? raced : raced.pipe(Effect.retry({ schedule: unavailable, while: isUnavailable }))
  })
}
