import { Effect, Layer } from "effect"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import type { MemoryConfig } from "../domain/config/MemoryConfig.js"
import { Settings } from "../app/Settings.js"
import type { Notifier } from "../ports/Notifier.js"
import * as DiskEventStore from "./disk/DiskEventStore.js"
import * as Notifiers from "./notify/Notifiers.js"
import * as RpEmbedder from "./rp/RpEmbedder.js"

export const NodeFiles = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)

export interface LiveOptions {
  readonly dir: string
  readonly config: MemoryConfig
  readonly notifier?: Layer.Layer<Notifier>
  readonly lockWaitMs?: number
}

// The HTTP embedder arrives with the LLM adapters; until then a configured one is reported and the local one used.
const embedderFor = (config: MemoryConfig) =>
  config.embedding.provider === "http"
    ? Layer.effectDiscard(
        Effect.logWarning(`memory.embedding.provider "http" is not available in this build; using the local rp embedder (no network)`)
      ).pipe(Layer.provideMerge(RpEmbedder.layer(256)))
    : RpEmbedder.layer(256)

/** Everything the handlers need, on disk with the local embedder: the default, which opens no socket. */
export const liveLayer = (options: LiveOptions) =>
  Layer.mergeAll(
    DiskEventStore.layer({ dir: options.dir, ...(options.lockWaitMs !== undefined ? { lockWaitMs: options.lockWaitMs } : {}) }).pipe(
      Layer.provide(NodeFiles)
    ),
    embedderFor(options.config),
    Settings.layer(options.config),
    options.notifier ?? Notifiers.silent
  )
