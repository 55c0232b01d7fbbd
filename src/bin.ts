import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { runCli } from "./adapters/cli/cli.js"

runCli(process.argv).pipe(
  Effect.tap((code) => Effect.sync(() => void (process.exitCode = code))),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
