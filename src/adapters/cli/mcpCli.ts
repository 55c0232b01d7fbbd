import { Command } from "@effect/cli"
import { Effect, Layer } from "effect"
import { layerFor, resolveConfig } from "./globals.js"
import { Refused } from "./output.js"
import { tmem } from "./root.js"
import { printable } from "../../domain/text/printable.js"

/**
 * `tmem mcp`: the `memory` tool and the fact files over MCP on stdio, until stdin closes. The global options
 * (--dir, --config, --llm-url, -v) apply; --json has no effect, since stdout carries only protocol messages and
 * everything else (refusals, -v events, warnings) goes to stderr.
 */
export const mcpCommand = Command.make("mcp", {}, () =>
  Effect.flatMap(tmem, (g) =>
    Effect.scoped(
      Effect.gen(function* () {
        const config = yield* resolveConfig(g)
        const runtime = yield* Layer.toRuntime(layerFor(g, config))
        // loaded on demand: the MCP SDK and zod have no place in the start-up of ordinary commands
        const { serveStdio } = yield* Effect.promise(() => import("../mcp/stdio.js"))
        yield* serveStdio(runtime)
      })
    ).pipe(
      Effect.catchAll((e) =>
        Effect.zipRight(
          Effect.sync(() => void process.stderr.write(`${printable(e.message)}\n`)),
          Effect.fail(new Refused())
        )
      )
    )
  )
).pipe(Command.withDescription("serve the memory tool and the fact files (read-only resources) over MCP on stdio"))
