import { Options } from "@effect/cli"
import { Effect, Either, Layer, Option } from "effect"
import * as Path from "node:path"
import * as Os from "node:os"
import { FileSystem } from "@effect/platform"
import { ConfigInvalid, llmProblem, type MemoryConfig, storeProblem } from "../../domain/config/MemoryConfig.js"
import { loadConfigFile } from "../disk/configFile.js"
import { liveLayer, memoryDir } from "../live.js"
import { DEFAULT_MEMORY, memoryIdProblem } from "../../domain/kernel/MemoryId.js"
import * as Notifiers from "../notify/Notifiers.js"
import * as Approvals from "../approval/Approvals.js"
import * as Progresses from "../progress/Progresses.js"

/** Options written before the subcommand: `tmem --dir D --json tool '…'`. */
export const globalOptions = {
  dir: Options.text("dir").pipe(
    Options.withDescription(
      "memory directory (default: $TMEM_DIR, else ~/.tmem); an odek memory directory works as is"
    ),
    Options.optional
  ),
  memory: Options.text("memory").pipe(
    Options.withDescription(
      "which memory of the directory (default: $TMEM_MEMORY, else `default`, the directory itself; " +
        "another lives in <dir>/memories/<id>/)"
    ),
    Options.optional
  ),
  store: Options.text("store").pipe(
    Options.withDescription(
      "where the events live: a postgres:// URL shared by many processes (default: $TMEM_STORE, else the " +
        "config's `store`, else the directory); see docs/SCALING.md"
    ),
    Options.optional
  ),
  config: Options.text("config").pipe(
    Options.withDescription(
      "JSON config file with a `memory` section (default: $TMEM_CONFIG, else <dir>/config.json if present)"
    ),
    Options.optional
  ),
  json: Options.boolean("json").pipe(
    Options.withDescription('machine-readable output: {"ok":true,"result":…} or {"ok":false,"error":…}')
  ),
  verbose: Options.boolean("verbose").pipe(
    Options.withAlias("v"),
    Options.withDescription("print lifecycle events on stderr as they happen")
  ),
  llmUrl: Options.text("llm-url").pipe(
    Options.withDescription(
      "OpenAI-compatible API root for the model, e.g. http://localhost:11434/v1 (overrides llm.base_url)"
    ),
    Options.optional
  ),
  llmModel: Options.text("llm-model").pipe(
    Options.withDescription("model name, e.g. llama3.1 (overrides llm.model)"),
    Options.optional
  ),
  approve: Options.choice("approve", ["auto", "ask", "deny"]).pipe(
    Options.withDefault("auto" as const),
    Options.withDescription("mutating memory calls: go ahead (auto), ask on the terminal (ask), or refuse (deny)")
  )
}

export interface Globals {
  readonly dir: Option.Option<string>
  readonly memory: Option.Option<string>
  readonly store: Option.Option<string>
  readonly config: Option.Option<string>
  readonly json: boolean
  readonly verbose: boolean
  readonly llmUrl: Option.Option<string>
  readonly llmModel: Option.Option<string>
  readonly approve: "auto" | "ask" | "deny"
}

/** The memory directory the options name: --dir, else $TMEM_DIR, else ~/.tmem. */
export const resolveDir = (g: Globals): string =>
  Path.resolve(Option.getOrElse(g.dir, () => process.env.TMEM_DIR || Path.join(Os.homedir(), ".tmem")))

/** The memory the options name: --memory, else $TMEM_MEMORY, else `default`. */
export const resolveMemory = (g: Globals): string =>
  Option.getOrElse(g.memory, () => process.env.TMEM_MEMORY || DEFAULT_MEMORY)

/** The directory of the memory the options name (the store's directory for the default memory). */
export const resolveMemoryDir = (g: Globals): string => memoryDir(resolveDir(g), resolveMemory(g))

/** --llm-url / --llm-model over the file's `llm` block; the result must still name a usable endpoint. */
const withLlmOptions = (g: Globals, config: MemoryConfig): Either.Either<MemoryConfig, ConfigInvalid> => {
  if (Option.isNone(g.llmUrl) && Option.isNone(g.llmModel)) return Either.right(config)
  const llm = {
    ...config.llm,
    provider: "openai" as const,
    baseUrl: Option.match(g.llmUrl, { onNone: () => config.llm.baseUrl, onSome: (u) => u.trim().replace(/\/+$/, "") }),
    model: Option.match(g.llmModel, { onNone: () => config.llm.model, onSome: (m) => m.trim() })
  }
  const problem = llmProblem(llm)
  if (problem === undefined) return Either.right({ ...config, llm })
  const hint = problem
    .replace("llm.base_url is required", "--llm-model needs --llm-url (or llm.base_url in the config file)")
    .replace(
      "llm.model is required when llm.base_url is set",
      "--llm-url needs --llm-model (or llm.model in the config file)"
    )
  return Either.left(new ConfigInvalid({ text: `tmem: ${hint}` }))
}

/** The config the options name, resolved; an explicitly named file must exist. */
export const resolveConfig = (g: Globals): Effect.Effect<MemoryConfig, ConfigInvalid, FileSystem.FileSystem> => {
  const memoryProblem = memoryIdProblem(resolveMemory(g))
  if (memoryProblem !== undefined)
    return Effect.fail(
      new ConfigInvalid({
        text: `tmem: ${memoryProblem}${Option.isSome(g.memory) ? " (--memory)" : " ($TMEM_MEMORY)"}`
      })
    )
  const explicit = Option.getOrUndefined(g.config) ?? (process.env.TMEM_CONFIG || undefined)
  const path = explicit ?? Path.join(resolveDir(g), "config.json")
  return Effect.flatMap(loadConfigFile(path, explicit !== undefined, process.env), (config) =>
    Either.flatMap(withLlmOptions(g, config), (c) => withStore(g, c))
  )
}

/** --store, else $TMEM_STORE, over the file's `store`; checked without repeating it (it may hold a password). */
const withStore = (g: Globals, config: MemoryConfig): Either.Either<MemoryConfig, ConfigInvalid> => {
  const named = Option.getOrUndefined(g.store) ?? (process.env.TMEM_STORE || undefined)
  if (named === undefined) return Either.right(config)
  const store = named.trim()
  const problem = storeProblem(store)
  const source = Option.isSome(g.store) ? "--store" : "$TMEM_STORE"
  return problem === undefined
    ? Either.right({ ...config, store })
    : Either.left(new ConfigInvalid({ text: `tmem: ${problem} (${source})` }))
}

/** The live layer for these options. */
export const layerFor = (g: Globals, config: MemoryConfig) =>
  liveLayer({
    dir: resolveDir(g),
    memory: resolveMemory(g),
    config,
    notifier: g.verbose ? Notifiers.terminal() : Notifiers.silent,
    progress: Progresses.terminal(process.stderr),
    approval:
      g.approve === "ask"
        ? Approvals.interactive(Approvals.askOn({ input: process.stdin, output: process.stderr }))
        : g.approve === "deny"
          ? Approvals.deny
          : Approvals.auto
  })

export type LiveServices = Layer.Layer.Success<ReturnType<typeof layerFor>>
