// `tmem mcp` without the rest of the CLI: the real command under the real root (global options and all), so the
// MCP tests do not depend on cli.ts registering it. Run as: node --import tsx serve.ts --dir <dir> mcp
import { Command } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { cliLogger } from "../../../src/adapters/cli/logger.js"
import { mcpCommand } from "../../../src/adapters/cli/mcpCli.js"
import { tmem } from "../../../src/adapters/cli/root.js"

const app = Command.run(tmem.pipe(Command.withSubcommands([mcpCommand])), { name: "tmem", version: "0.1.0" })

app(process.argv).pipe(
  Effect.catchAll(() => Effect.sync(() => void (process.exitCode = 1))),
  Effect.provide(NodeContext.layer),
  Effect.provide(cliLogger),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
