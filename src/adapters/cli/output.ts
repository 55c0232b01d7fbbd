import type { FileSystem } from "@effect/platform"
import { Console, Data, Effect } from "effect"
import type { Globals, LiveServices } from "./globals.js"
import { layerFor, resolveConfig } from "./globals.js"

/** A refusal already reported to the user; the process exits 1. */
export class Refused extends Data.TaggedError("Refused")<{}> {}

/** What a command produced: text for people, a value for `--json`. */
export interface Output {
  readonly text: string
  readonly json: unknown
}

/**
 * Runs a command's program against the live layer and prints its outcome: text on stdout, or one JSON object
 * with --json; a refusal goes to stderr (or into the JSON) and fails with Refused.
 */
export const report = <E extends { readonly message: string }>(
  g: Globals,
  program: Effect.Effect<Output, E, LiveServices | FileSystem.FileSystem>
): Effect.Effect<void, Refused, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const config = yield* resolveConfig(g)
    return yield* program.pipe(Effect.provide(layerFor(g, config)))
  }).pipe(
    Effect.matchEffect({
      onSuccess: (out) =>
        g.json
          ? Console.log(JSON.stringify({ ok: true, result: out.json }))
          : out.text === ""
            ? Effect.void
            : Console.log(out.text),
      onFailure: (e) => refuse(g, e.message)
    })
  )

/** Reports a refusal the way every command does. */
export const refuse = (g: Globals, message: string) =>
  Effect.zipRight(
    g.json ? Console.log(JSON.stringify({ ok: false, error: message })) : Console.error(message),
    Effect.fail(new Refused())
  )
