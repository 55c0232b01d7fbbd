import { Options } from "@effect/cli"
import { Effect, Layer, Option } from "effect"
import * as Path from "node:path"
import * as Os from "node:os"
import { FileSystem } from "@effect/platform"
import type { ConfigInvalid, MemoryConfig } from "../../domain/config/MemoryConfig.js"
import { loadConfigFile } from "../disk/configFile.js"
import { liveLayer } from "../live.js"
import * as Notifiers from "../notify/Notifiers.js"

/** Options written before the subcommand: `tmem --dir D --json tool '…'`. */
export const globalOptions = {
  dir: Options.text("dir").pipe(
    Options.withDescription("memory directory (default: $TMEM_DIR, else ~/.tmem); an odek memory directory works as is"),
    Options.optional
  ),
  config: Options.text("config").pipe(
    Options.withDescription("JSON config file with a `memory` section (default: $TMEM_CONFIG, else <dir>/config.json if present)"),
    Options.optional
  ),
  json: Options.boolean("json").pipe(Options.withDescription("machine-readable output: {\"ok\":true,\"result\":…} or {\"ok\":false,\"error\":…}")),
  verbose: Options.boolean("verbose").pipe(Options.withAlias("v"), Options.withDescription("print lifecycle events on stderr as they happen"))
}

export interface Globals {
  readonly dir: Option.Option<string>
  readonly config: Option.Option<string>
  readonly json: boolean
  readonly verbose: boolean
}

/** The memory directory the options name: --dir, else $TMEM_DIR, else ~/.tmem. */
export const resolveDir = (g: Globals): string =>
  Path.resolve(Option.getOrElse(g.dir, () => process.env.TMEM_DIR || Path.join(Os.homedir(), ".tmem")))

/** The config the options name, resolved; an explicitly named file must exist. */
export const resolveConfig = (g: Globals): Effect.Effect<MemoryConfig, ConfigInvalid, FileSystem.FileSystem> => {
  const explicit = Option.getOrUndefined(g.config) ?? (process.env.TMEM_CONFIG || undefined)
  const path = explicit ?? Path.join(resolveDir(g), "config.json")
  return loadConfigFile(path, explicit !== undefined, process.env)
}

/** The live layer for these options. */
export const layerFor = (g: Globals, config: MemoryConfig) =>
  liveLayer({
    dir: resolveDir(g),
    config,
    notifier: g.verbose ? Notifiers.terminal() : Notifiers.silent
  })

export type LiveServices = Layer.Layer.Success<ReturnType<typeof layerFor>>
