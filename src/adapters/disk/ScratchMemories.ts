import { Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { ScratchMemories, ScratchUnavailable } from "../../app/eval.js"
import type { MemoryConfig } from "../../domain/config/MemoryConfig.js"
import { Progress } from "../../ports/Progress.js"
import { liveLayer } from "../live.js"
import * as Notifiers from "../notify/Notifiers.js"
import { trustZoneFor } from "../trustZone.js"

/**
 * Scratch memories on disk, each a new directory under the system's temporary directory holding the live memory
 * with `config` (its model and embedder), removed once used — also when the run is interrupted or fails. Long work
 * inside shows on the caller's Progress, so nested labels share one spinner.
 */
export const layer = (config: MemoryConfig, parent: string = Os.tmpdir()) =>
  Layer.effect(
    ScratchMemories,
    Effect.map(Effect.serviceOption(Progress), (progress) =>
      ScratchMemories.of({
        fresh: (use) =>
          Effect.scoped(
            Effect.gen(function* () {
              const dir = yield* Effect.acquireRelease(
                Effect.try({
                  try: () => fs.mkdtempSync(Path.join(parent, "tmem-eval-")),
                  catch: (e) =>
                    new ScratchUnavailable({
                      text:
                        `tmem: cannot create a scratch memory under ${parent}: ` +
                        `${e instanceof Error ? e.message : String(e)}`
                    })
                }),
                (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
              )
              const live = liveLayer({
                dir,
                config,
                notifier: Notifiers.silent,
                ...(Option.isSome(progress) ? { progress: Layer.succeed(Progress, progress.value) } : {})
              })
              // the scratch directory is the sessions' workspace: everything recorded there is trusted
              return yield* Effect.provide(use(trustZoneFor(dir, dir)), live)
            })
          )
      })
    )
  )
