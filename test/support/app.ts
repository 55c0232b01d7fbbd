import { type Duration, Effect, Layer } from "effect"
import * as NoGuard from "../../src/adapters/guard/NoGuard.js"
import * as NoneLlm from "../../src/adapters/llm/NoneLlm.js"
import * as MemoryDerivedFiles from "../../src/adapters/memory/MemoryDerivedFiles.js"
import * as MemoryEventStore from "../../src/adapters/memory/MemoryEventStore.js"
import * as Notifiers from "../../src/adapters/notify/Notifiers.js"
import * as WeightedEmbedder from "../../src/adapters/rp/WeightedEmbedder.js"
import * as LocalEpisodeSearch from "../../src/adapters/search/LocalEpisodeSearch.js"
import { Background } from "../../src/app/Background.js"
import { feedNotifier } from "../../src/app/notifications.js"
import { EpisodeIndex } from "../../src/app/EpisodeIndex.js"
import { AtomActivity } from "../../src/app/AtomActivity.js"
import { AtomIndex } from "../../src/app/AtomIndex.js"
import { AtomEmbedder, AtomLlm } from "../../src/app/AtomLlm.js"
import type { DerivedFiles } from "../../src/ports/DerivedFiles.js"
import { makeCapConsolidationLayer } from "../../src/app/consolidation.js"
import { Settings } from "../../src/app/Settings.js"
import { DEFAULT_CONFIG, type MemoryConfig } from "../../src/domain/config/MemoryConfig.js"
import type { LifecycleEvent } from "../../src/domain/events/lifecycle.js"
import type { Embedder } from "../../src/ports/Embedder.js"
import type { EventStore } from "../../src/ports/EventStore.js"
import type { Guard } from "../../src/ports/Guard.js"
import type { Llm } from "../../src/ports/Llm.js"
import type { Approval } from "../../src/ports/Approval.js"
import * as Approvals from "../../src/adapters/approval/Approvals.js"
import { quietLogs } from "./logs.js"

/**
 * The app's services over a given store, collecting lifecycle events into `events` as the live layer delivers them:
 * read from the store's feed (so what the store appends while loading is seen too). No model unless `llm` is given.
 */
export const appLayer = (
  options: {
    store?: Layer.Layer<EventStore>
    config?: Partial<MemoryConfig>
    events?: Array<LifecycleEvent>
    llm?: Layer.Layer<Llm>
    /** The second opinion after the local scan; default none. */
    guard?: Layer.Layer<Guard>
    embedder?: Layer.Layer<Embedder>
    cap?: Parameters<typeof makeCapConsolidationLayer>[0]
    approval?: Layer.Layer<Approval>
    /** How long closing waits for background work (default 15 s). */
    drain?: Duration.DurationInput
    /** Where the vector indexes are saved; default in memory, one store per layer. */
    derived?: Layer.Layer<DerivedFiles>
  } = {}
) => {
  const store = options.store ?? MemoryEventStore.layer
  const events = options.events
  const notifier =
    events === undefined
      ? Notifiers.silent
      : feedNotifier().pipe(
          Layer.provide(
            Layer.merge(
              Notifiers.callback((e) => void events.push(e)),
              store
            )
          )
        )
  return Layer.mergeAll(
    makeCapConsolidationLayer(options.cap),
    options.drain !== undefined ? Background.layerWith(options.drain) : Background.layer,
    AtomActivity.layer,
    AtomLlm.main,
    AtomEmbedder.main,
    Layer.mergeAll(EpisodeIndex.layer, AtomIndex.layer, LocalEpisodeSearch.layer, LocalEpisodeSearch.atomLayer).pipe(
      Layer.provide(options.derived ?? MemoryDerivedFiles.layer)
    )
  ).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        store,
        options.embedder ?? WeightedEmbedder.layer(256),
        options.llm ?? NoneLlm.layer,
        options.guard ?? NoGuard.layer,
        Settings.layer({ ...DEFAULT_CONFIG, ...options.config }),
        notifier,
        options.approval ?? Approvals.auto,
        quietLogs
      )
    )
  )
}

export const runApp = <A, E, R>(effect: Effect.Effect<A, E, R>, layer: Layer.Layer<R>) => Effect.provide(effect, layer)
