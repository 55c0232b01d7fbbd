import { Layer } from "effect"
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

/** Everything the handlers need, on disk with the local embedder: the default, which opens no socket. */
export const liveLayer = (options: LiveOptions) =>
  Layer.mergeAll(
    DiskEventStore.layer({ dir: options.dir, ...(options.lockWaitMs !== undefined ? { lockWaitMs: options.lockWaitMs } : {}) }).pipe(
      Layer.provide(NodeFiles)
    ),
    RpEmbedder.layer(256),
    Settings.layer(options.config),
    options.notifier ?? Notifiers.silent
  )
