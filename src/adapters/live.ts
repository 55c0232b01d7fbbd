import * as path from "node:path"
import { type Duration, Effect, Layer } from "effect"
import * as Path from "node:path"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import type { MemoryConfig } from "../domain/config/MemoryConfig.js"
import { Background, BACKGROUND_DRAIN } from "../app/Background.js"
import { EpisodeIndex } from "../app/EpisodeIndex.js"
import { AtomActivity } from "../app/AtomActivity.js"
import { AtomIndex } from "../app/AtomIndex.js"
import { AtomEmbedder, AtomLlm } from "../app/AtomLlm.js"
import { EXTENDED_DIR } from "../domain/atoms/files.js"
import { capConsolidationLayer } from "../app/consolidation.js"
import { withBackoff } from "../app/embedBackoff.js"
import { Settings } from "../app/Settings.js"
import type { Approval } from "../ports/Approval.js"
import type { Guard } from "../ports/Guard.js"
import { Embedder } from "../ports/Embedder.js"
import { Llm } from "../ports/Llm.js"
import type { Notifier } from "../ports/Notifier.js"
import type { Progress } from "../ports/Progress.js"
import * as Progresses from "./progress/Progresses.js"
import * as Approvals from "./approval/Approvals.js"
import * as DiskDerivedFiles from "./disk/DiskDerivedFiles.js"
import * as DiskEventStore from "./disk/DiskEventStore.js"
import * as LlmGuard from "./guard/LlmGuard.js"
import * as NoGuard from "./guard/NoGuard.js"
import * as NoneLlm from "./llm/NoneLlm.js"
import * as Notifiers from "./notify/Notifiers.js"
import { feedNotifier } from "../app/notifications.js"
import { odekProjections } from "../domain/odek/projections.js"
import { DEFAULT_MEMORY } from "../domain/kernel/MemoryId.js"
import * as RpEmbedder from "./rp/RpEmbedder.js"
import * as WeightedEmbedder from "./rp/WeightedEmbedder.js"
import * as LocalEpisodeSearch from "./search/LocalEpisodeSearch.js"

export const NodeFiles = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)

/**
 * The directory a memory of the store at `dir` keeps its files in: the default memory is `dir` itself (odek's
 * layout, unchanged), another one `dir/memories/<id>/` in the same layout. The id must be valid (memoryIdProblem).
 */
export const memoryDir = (dir: string, memory: string = DEFAULT_MEMORY): string =>
  memory === DEFAULT_MEMORY ? dir : Path.join(dir, "memories", memory)

export interface LiveOptions {
  /** The store's directory; the memory's own files are in `memoryDir(dir, memory)`. */
  readonly dir: string
  /** Which memory of the store (default `default`: the directory itself). */
  readonly memory?: string
  readonly config: MemoryConfig
  /** Where lifecycle events go; they are read from the store's feed (app/notifications.ts). Default: nowhere. */
  readonly notifier?: Layer.Layer<Notifier>
  /** Names the notifier's checkpoint in the store, so the next process under that name goes on where this one ended. */
  readonly consumer?: string
  readonly lockWaitMs?: number
  /** Who approves mutating tool calls; default: every call goes ahead. */
  readonly approval?: Layer.Layer<Approval>
  /** How long closing waits for background work before interrupting it (default 15 s, spec episodes §3.1.4). */
  readonly backgroundDrain?: Duration.DurationInput
  /** Where long work shows that it is under way; default: nowhere. */
  readonly progress?: Layer.Layer<Progress>
  /**
   * A `postgres://` URL: the events live in that database (docs/SCALING.md) and `dir` keeps only caches that any
   * process can rebuild; default `config.store`, and with neither, the disk journal in `dir`.
   */
  readonly store?: string
}

/**
 * The store a memory's events live in: the disk journal with odek's files as projections, or PostgreSQL (loaded only
 * when named, so the default start carries neither the driver nor a socket). Also where derived files (the search
 * and vector indexes) go: beside the files, or in a cache directory of their own for a database.
 */
const storeFor = (options: LiveOptions, dir: string) => {
  const url = options.store ?? options.config.store
  if (url === "")
    return {
      store: DiskEventStore.layer({
        dir,
        // a hand edit of a fact file is held to the configured cap, as any write is
        projections: odekProjections({ user: options.config.factsLimitUser, env: options.config.factsLimitEnv }),
        ...(options.lockWaitMs !== undefined ? { lockWaitMs: options.lockWaitMs } : {})
      }),
      episodeFiles: DiskDerivedFiles.layer({ dir }),
      episodeSearch: LocalEpisodeSearch.layer,
      atomFiles: DiskDerivedFiles.layer({ dir: path.join(dir, EXTENDED_DIR) })
    }
  const memory = options.memory ?? DEFAULT_MEMORY
  const connection = { url, memory }
  // the database keeps the search index and the vectors too, shared by every host of the memory
  const pg = <A>(load: (m: typeof import("./postgres/PgStore.js")) => Layer.Layer<A>) =>
    Layer.unwrapEffect(
      Effect.map(
        Effect.promise(() => import("./postgres/PgStore.js")),
        load
      )
    )
  return {
    store: pg((m) => m.PgEventStore.layer(connection)),
    episodeFiles: pg((m) => m.PgDerivedFiles.layer(connection)),
    episodeSearch: pg((m) => m.PgEpisodeSearch.layer(connection)),
    atomFiles: pg((m) => m.PgDerivedFiles.layer(connection, `${EXTENDED_DIR}/`))
  }
}

/**
 * The store at `location` alone (no app around it): a memory directory, or a `postgres://` URL. For copies between
 * stores (`tmem migrate`, `tmem export`).
 */
export const storeLayer = (location: string, memory: string, config: MemoryConfig) =>
  /^postgres(ql)?:\/\//.test(location)
    ? storeFor({ dir: "", memory, config, store: location }, "").store
    : storeFor({ dir: location, memory, config, store: "" }, memoryDir(location, memory)).store

// The HTTP adapters (and undici behind them) load only when configured: the default start stays small and
// opens no socket.
const embedderFor = (config: MemoryConfig) =>
  config.embedding.provider === "http"
    ? withBackoff().pipe(
        Layer.provide(
          Layer.unwrapEffect(
            Effect.map(
              Effect.promise(() => import("./http/HttpEmbedder.js")),
              (m) => m.layer(config.embedding)
            )
          )
        )
      )
    : config.embedding.provider === "rp"
      ? RpEmbedder.layer(256)
      : WeightedEmbedder.layer(256)

const llmFor = (config: MemoryConfig) =>
  config.llm.provider === "openai"
    ? Layer.unwrapEffect(
        Effect.map(
          Effect.promise(() => import("./http/OpenAiLlm.js")),
          (m) => m.layer(config.llm)
        )
      )
    : NoneLlm.layer

/**
 * The Guard that `config.guard` asks for: none (the default, and whenever `guard.scan.memory` is false), the HTTP
 * sidecar, or the chat model `llm` (the app's own by default, so both share one client).
 */
export const guardLayer = (config: MemoryConfig, llm: Layer.Layer<Llm> = llmFor(config)): Layer.Layer<Guard> => {
  const guard = config.guard
  if (!guard.scan.memory || guard.provider === "none") return NoGuard.layer
  if (guard.provider === "llm") return LlmGuard.layer(guard).pipe(Layer.provide(llm))
  return Layer.unwrapEffect(
    Effect.map(
      Effect.promise(() => import("./guard/HttpGuard.js")),
      (m) => m.layer(guard)
    )
  )
}

/** Everything the handlers need, on disk; with the default config the embedder is local and no model is used. */
export const liveLayer = (options: LiveOptions) => {
  const where = storeFor(options, memoryDir(options.dir, options.memory))
  const store = where.store
  // silence costs nothing: no feed is read when no one listens
  const notifier =
    options.notifier === undefined || options.notifier === Notifiers.silent
      ? Notifiers.silent
      : feedNotifier(options.consumer !== undefined ? { consumer: options.consumer } : {}).pipe(
          Layer.provide(Layer.merge(options.notifier, store))
        )
  // one value for both: a layer is built once per value, so the guard asks the app's own model client
  const llm = llmFor(options.config)
  const embedder = embedderFor(options.config)
  // one value for both the index and the write path, so a dedicated atom embedder is built once
  const atomEmbedder =
    options.config.extended.embedding === undefined
      ? embedder
      : embedderFor({ ...options.config, embedding: options.config.extended.embedding })
  return Layer.mergeAll(
    capConsolidationLayer,
    Background.layerWith(options.backgroundDrain ?? BACKGROUND_DRAIN),
    AtomActivity.layer,
    // Extended Memory's own model when memory.extended.llm names one (spec extended §20.1), else the main one
    options.config.extended.llm === undefined
      ? AtomLlm.main
      : Layer.effect(AtomLlm, Llm).pipe(Layer.provide(llmFor({ ...options.config, llm: options.config.extended.llm }))),
    Layer.merge(EpisodeIndex.layer, where.episodeSearch).pipe(Layer.provide(where.episodeFiles)),
    // atoms may have an embedder of their own (spec extended §8.1); their index lives beside the atom files
    Layer.merge(AtomIndex.layer, LocalEpisodeSearch.atomLayer).pipe(
      Layer.provide(Layer.merge(where.atomFiles, atomEmbedder))
    ),
    Layer.effect(AtomEmbedder, Embedder).pipe(Layer.provide(atomEmbedder))
  ).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        store,
        embedder,
        llm,
        guardLayer(options.config, llm),
        Settings.layer(options.config),
        notifier,
        options.approval ?? Approvals.auto,
        options.progress ?? Progresses.silent
      )
    )
  )
}
