import { Effect, Exit, Fiber } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import * as ScratchMemories from "../../src/adapters/disk/ScratchMemories.js"
import { type MemoryServices, ScratchMemories as Scratch } from "../../src/app/eval.js"
import type { TrustZone } from "../../src/domain/sessions/message.js"
import { loadFacts } from "../../src/app/facts.js"
import { DEFAULT_CONFIG } from "../../src/domain/config/MemoryConfig.js"
import { during } from "../../src/ports/Progress.js"
import { tempDirs } from "../support/cli.js"
import { recordingProgress } from "../support/progress.js"

const { fresh } = tempDirs(afterAll)

const withScratch = <A, E>(parent: string, use: (zone: TrustZone) => Effect.Effect<A, E, MemoryServices>) =>
  Effect.flatMap(Scratch, (s) => s.fresh(use)).pipe(Effect.provide(ScratchMemories.layer(DEFAULT_CONFIG, parent)))

describe("scratch memories on disk", () => {
  it(
    "each is a new directory, trusted as the workspace, " + "removed after use, after a failure and when interrupted",
    async () => {
      const parent = fresh()
      const seen: Array<string> = []
      const use = (zone: TrustZone) =>
        Effect.gen(function* () {
          seen.push(zone.cwd)
          expect(fs.readdirSync(parent)).toEqual([path.basename(zone.cwd)])
          return (yield* loadFacts("user")).state.entries.length
        })
      expect(await Effect.runPromise(withScratch(parent, use))).toBe(0)
      expect(await Effect.runPromise(withScratch(parent, use))).toBe(0)
      expect(new Set(seen).size).toBe(2)
      expect(fs.readdirSync(parent)).toEqual([])

      const failed = await Effect.runPromiseExit(withScratch(parent, () => Effect.fail({ message: "boom" })))
      expect(Exit.isFailure(failed)).toBe(true)
      expect(fs.readdirSync(parent)).toEqual([])

      let started: () => void = () => {}
      const running = new Promise<void>((resolve) => (started = resolve))
      const fiber = Effect.runFork(
        withScratch(parent, () =>
          Effect.zipRight(
            Effect.sync(() => started()),
            Effect.never
          )
        )
      )
      await running
      expect(fs.readdirSync(parent)).toHaveLength(1)
      await Effect.runPromise(Fiber.interrupt(fiber))
      expect(fs.readdirSync(parent)).toEqual([])
    }
  )

  it("work inside shows on the caller's Progress", async () => {
    const labels: Array<string> = []
    const progress = recordingProgress(labels)
    await Effect.runPromise(
      Effect.flatMap(Scratch, (s) => s.fresh(() => during("inside")(Effect.void))).pipe(
        Effect.provide(ScratchMemories.layer(DEFAULT_CONFIG, fresh())),
        Effect.provide(progress)
      )
    )
    expect(labels).toEqual(["inside"])
  })

  it("a parent that cannot hold directories: a one-line error naming it", async () => {
    const file = path.join(fresh(), "a-file")
    fs.writeFileSync(file, "")
    const exit = await Effect.runPromiseExit(withScratch(file, () => Effect.void))
    expect(exit).toMatchObject({ _tag: "Failure" })
    expect(String(JSON.stringify(exit))).toContain(`tmem: cannot create a scratch memory under ${file}: ENOTDIR`)
  })
})
