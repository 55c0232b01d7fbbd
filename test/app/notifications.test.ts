import { describe, expect, it } from "@effect/vitest"
import { type Context, Effect, Layer } from "effect"
import * as MemoryEventStore from "../../src/adapters/memory/MemoryEventStore.js"
import * as NoneLlm from "../../src/adapters/llm/NoneLlm.js"
import * as Notifiers from "../../src/adapters/notify/Notifiers.js"
import * as WeightedEmbedder from "../../src/adapters/rp/WeightedEmbedder.js"
import { CapConsolidation } from "../../src/app/CapConsolidation.js"
import { addFact, removeFact } from "../../src/app/facts.js"
import { feedNotifier } from "../../src/app/notifications.js"
import { Settings } from "../../src/app/Settings.js"
import { DEFAULT_CONFIG } from "../../src/domain/config/MemoryConfig.js"
import type { LifecycleEvent } from "../../src/domain/events/lifecycle.js"
import type { EventStore } from "../../src/ports/EventStore.js"
import { Notifier } from "../../src/ports/Notifier.js"
import { diskLayer, tempDir } from "../support/stores.js"
import * as NoGuard from "../../src/adapters/guard/NoGuard.js"

const services = Layer.mergeAll(
  NoGuard.layer,
  WeightedEmbedder.layer(256),
  NoneLlm.layer,
  CapConsolidation.disabled,
  Settings.layer({ ...DEFAULT_CONFIG, mergeOnWrite: false })
)

/** The app over `store`, its notifications read from the feed into `seen`. */
const withFeedNotifier = (
  store: Layer.Layer<EventStore>,
  seen: Array<LifecycleEvent>,
  consumer?: string,
  sink: Layer.Layer<Notifier> = Notifiers.callback((e) => void seen.push(e))
) =>
  Layer.mergeAll(
    services,
    store,
    feedNotifier(consumer !== undefined ? { consumer } : {}).pipe(Layer.provide(Layer.merge(sink, store)))
  )
const silently = (store: Layer.Layer<EventStore>) => Layer.mergeAll(services, store, Notifiers.silent)
const described = (events: ReadonlyArray<LifecycleEvent>) => events.map((e) => `${e.type}:${e.content}@${e.position}`)

describe("notifications as a checkpointed consumer of the feed", () => {
  it.scopedLive("each durable write is announced from the feed, in feed order, with its position", () =>
    Effect.gen(function* () {
      const seen: Array<LifecycleEvent> = []
      const store = yield* Layer.memoize(MemoryEventStore.layer)
      const layer = withFeedNotifier(store, seen)
      yield* addFact("user", "Prefers tabs").pipe(Effect.provide(layer))
      yield* addFact("env", "Runs Debian 12").pipe(Effect.provide(layer))
      yield* removeFact("user", "tabs").pipe(Effect.provide(layer))
      expect(described(seen)).toEqual([
        "fact_added:Prefers tabs@1",
        "fact_added:Runs Debian 12@2",
        "fact_removed:tabs@3"
      ])
    })
  )

  it.scopedLive("what the feed held before the notifier started is not announced; what others wrote since is", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      yield* addFact("user", "written before anyone listened").pipe(Effect.provide(silently(diskLayer(dir))))
      const seen: Array<LifecycleEvent> = []
      // one process listening, another (a second store over the same directory) writing without announcing
      const listening = yield* Layer.build(withFeedNotifier(diskLayer(dir), seen))
      yield* addFact("env", "written by another process").pipe(Effect.provide(silently(diskLayer(dir))))
      yield* addFact("user", "written here").pipe(Effect.provide(listening))
      expect(described(seen)).toEqual(["fact_added:written by another process@2", "fact_added:written here@3"])
      // a wake-up with nothing new announces nothing, and nothing twice
      yield* Effect.flatMap(Notifier, (n) => n.notify([])).pipe(Effect.provide(listening))
      expect(seen).toHaveLength(2)
    })
  )

  it.scopedLive("a named consumer resumes from its checkpoint: what a crash kept from it is delivered once", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const first: Array<LifecycleEvent> = []
      yield* addFact("user", "one").pipe(Effect.provide(withFeedNotifier(diskLayer(dir), first, "agent")))
      expect(described(first)).toEqual(["fact_added:one@1"])
      // written and durable, but the process died before announcing it (a silent writer is that process)
      yield* addFact("user", "two").pipe(Effect.provide(silently(diskLayer(dir))))
      yield* addFact("user", "three").pipe(Effect.provide(silently(diskLayer(dir))))
      const second: Array<LifecycleEvent> = []
      const resumed = yield* Layer.build(withFeedNotifier(diskLayer(dir), second, "agent"))
      yield* Effect.flatMap(Notifier, (n) => n.notify([])).pipe(Effect.provide(resumed))
      expect(described(second)).toEqual(["fact_added:two@2", "fact_added:three@3"])
      // an unnamed consumer starts at the feed's end; another name has its own checkpoint from its first start
      const fresh: Array<LifecycleEvent> = []
      const unnamed = yield* Layer.build(withFeedNotifier(diskLayer(dir), fresh))
      yield* Effect.flatMap(Notifier, (n) => n.notify([])).pipe(Effect.provide(unnamed))
      expect(fresh).toEqual([])
    })
  )

  it.scopedLive("a sink that writes to the memory itself neither deadlocks nor loses the event of its own write", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const store = yield* Layer.memoize(MemoryEventStore.layer)
      // the sink writes through the very services it is part of
      let inner: Context.Context<any> | undefined
      const reentrant = Layer.succeed(
        Notifier,
        Notifier.of({
          notify: (events) =>
            Effect.gen(function* () {
              for (const e of events) seen.push(`${e.type}:${e.content}`)
              if (seen.length === 1)
                yield* addFact("env", "added from inside the sink").pipe(Effect.provide(inner!), Effect.orDie)
            })
        })
      )
      const ctx = yield* Layer.build(withFeedNotifier(store, [], undefined, reentrant))
      inner = ctx
      yield* addFact("user", "first").pipe(Effect.provide(ctx), Effect.timeout("10 seconds"))
      expect(seen).toEqual(["fact_added:first", "fact_added:added from inside the sink"])
    })
  )
})
