import { Effect, FiberRef, Layer } from "effect"
import { EventStore } from "../ports/EventStore.js"
import { Notifier } from "../ports/Notifier.js"
import { lifecycleCodecs, lifecycleOf } from "./events.js"

export interface FeedNotifierOptions {
  /**
   * Names the consumer whose checkpoint the store keeps: a process that opens the memory under the same name goes
   * on from where the last one stopped, so what a crash kept from being delivered is delivered then. Without a name
   * the checkpoint lives in this process only and starts at the feed's end when the notifier is built.
   */
  readonly consumer?: string
}

/**
 * Lifecycle notifications as a checkpointed consumer of the store's feed (DESIGN §7 "Port shape"). The use cases tell
 * the Notifier after every durable write, as before, but this one takes that only as a wake-up: it reads the feed
 * from its checkpoint and hands the sink every lifecycle event found there, this process's and any other writer's,
 * in feed order, then moves the checkpoint. So an event is delivered after its batch is durable, at least once, and
 * a wake-up that finds nothing new delivers nothing. The sink is the Notifier this layer is given.
 */
export const feedNotifier = (options: FeedNotifierOptions = {}) =>
  Layer.effect(
    Notifier,
    Effect.gen(function* () {
      const sink = yield* Notifier
      const store = yield* EventStore
      const { consumer } = options
      const start = Effect.gen(function* () {
        const saved = consumer === undefined ? undefined : yield* store.checkpoint(consumer)
        const head = saved ?? (yield* store.head)
        if (consumer !== undefined && saved === undefined) yield* store.saveCheckpoint(consumer, head)
        return head
      })
      // a feed that cannot be read leaves the memory usable: its writes go on, unannounced, and each says why
      const started = yield* Effect.either(start)
      if (started._tag === "Left") {
        const why = started.left.message
        return Notifier.of({ notify: () => Effect.logWarning(`memory: notifications are off: ${why}`) })
      }
      let position = started.right
      const mutex = yield* Effect.makeSemaphore(1)
      // A sink that writes to the memory itself wakes this notifier from inside a delivery: that wake-up only asks
      // the delivery under way to look again once the sink returns (waiting for it would wait forever).
      const delivering = FiberRef.unsafeMake(false)
      let again = false
      const once = Effect.gen(function* () {
        again = false
        const entries = yield* store.readAll(position, lifecycleCodecs)
        if (entries.length === 0) return
        const events = entries.flatMap(lifecycleOf)
        if (events.length > 0) yield* Effect.locally(sink.notify(events), delivering, true)
        position = entries[entries.length - 1]!.position
        if (consumer !== undefined) yield* store.saveCheckpoint(consumer, position)
      })
      const catchUp = mutex.withPermits(1)(Effect.repeat(once, { while: () => again }))
      // Delivery never fails the write that woke it: a feed that cannot be read now is read at the next wake-up.
      const wake = Effect.flatMap(FiberRef.get(delivering), (nested) =>
        nested
          ? Effect.sync(() => void (again = true))
          : catchUp.pipe(Effect.catchAll((e) => Effect.logWarning(`memory: notifications held back: ${e.message}`)))
      )
      return Notifier.of({ notify: () => wake })
    })
  )
