import { Effect, Layer } from "effect"
import * as MemoryEventStore from "../../src/adapters/memory/MemoryEventStore.js"
import * as Notifiers from "../../src/adapters/notify/Notifiers.js"
import * as RpEmbedder from "../../src/adapters/rp/RpEmbedder.js"
import { Settings } from "../../src/app/Settings.js"
import { DEFAULT_CONFIG, type MemoryConfig } from "../../src/domain/config/MemoryConfig.js"
import type { LifecycleEvent } from "../../src/domain/events/lifecycle.js"
import type { EventStore } from "../../src/ports/EventStore.js"

/** The app's services over a given store, collecting lifecycle events into `events`. */
export const appLayer = (options: { store?: Layer.Layer<EventStore>; config?: Partial<MemoryConfig>; events?: Array<LifecycleEvent> } = {}) =>
  Layer.mergeAll(
    options.store ?? MemoryEventStore.layer,
    RpEmbedder.layer(256),
    Settings.layer({ ...DEFAULT_CONFIG, ...options.config }),
    options.events ? Notifiers.callback((e) => void options.events!.push(e)) : Notifiers.silent
  )

export const runApp = <A, E, R>(effect: Effect.Effect<A, E, R>, layer: Layer.Layer<R>) => Effect.provide(effect, layer)
