import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { defaultTeardown } from "@effect/platform/Runtime"
import { Cause, Effect, Exit } from "effect"
import { runCli } from "./adapters/cli/cli.js"
import { cliLogger } from "./adapters/cli/logger.js"
import { stopsOnSignal } from "./adapters/cli/signals.js"

// The runtime interrupts the command on SIGINT/SIGTERM; this remembers which signal it was, so the exit says so
// (128 + the signal number, as shells report it). Once: a second Ctrl-C gets Node's default and ends at once.
const EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const
let received: keyof typeof EXIT_CODES | undefined
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void (received ??= signal))

runCli(process.argv).pipe(
  Effect.tap((code) => Effect.sync(() => void (process.exitCode = code))),
  Effect.provide(NodeContext.layer),
  Effect.provide(cliLogger),
  NodeRuntime.runMain({
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit, onExit) => {
      if (received !== undefined && !stopsOnSignal() && Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)) {
        process.stderr.write(
          `tmem: interrupted by ${received}; finished writes are kept, unfinished work was not applied ` +
            `(run the command again to finish it)\n`
        )
        return onExit(EXIT_CODES[received])
      }
      // without a signal the process ends by itself with process.exitCode (stdout drains); once a signal arrived
      // the runtime calls process.exit with the code given here, so a command that finished keeps its own
      if (Exit.isSuccess(exit)) return onExit(received !== undefined && typeof exit.value === "number" ? exit.value : 0)
      defaultTeardown(exit, onExit)
    }
  })
)
