import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { runCli } from "./adapters/cli/cli.js"
import { cliLogger } from "./adapters/cli/logger.js"

runCli(process.argv).pipe(
  Effect.tap((code) => Effect.sync(() => void (process.exitCode = code))),
  Effect.provide(NodeContext.layer),
  Effect.provide(cliLogger),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
