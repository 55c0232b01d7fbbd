import { Command } from "@effect/cli"
import { globalOptions } from "./globals.js"

/** The root command: subcommands read the global options (`--dir`, `--json`, …) through it. */
export const tmem = Command.make("tmem", globalOptions)
