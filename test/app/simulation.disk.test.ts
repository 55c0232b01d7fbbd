import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { diskWorld } from "../../src/adapters/dev/simulation.js"
import { runSimulation, type SimReport, stepsOf } from "../../src/app/simulation.js"

/** Seeds × steps this file runs on the disk store; with the in-memory file's 7,500, CI runs 10,000 steps. */
const SEEDS = 10
const STEPS = 250

describe("deterministic simulation of the app under faults, disk store (issue 15)", () => {
  it.live(
    `${SEEDS} seeds × ${STEPS} steps (${SEEDS * STEPS} steps) on a directory, with hand edits of the fact files ` +
      "(in place and by rename), the file system's errors on the store's own calls, a writer dying before its " +
      "rename and torn journal lines: every invariant holds after every step, files included",
    () =>
      Effect.gen(function* () {
        const reports: Array<SimReport> = []
        for (let seed = 1; seed <= SEEDS; seed++) {
          const world = diskWorld()
          const steps = stepsOf(seed, STEPS, { disk: true })
          const report = yield* Effect.ensuring(runSimulation(world, steps, seed), world.dispose ?? Effect.void)
          expect(report.violation, `tmem simulate --seed ${seed} --steps ${STEPS} --world disk`).toBeUndefined()
          expect(fs.existsSync(world.dir)).toBe(false)
          reports.push(report)
        }
        const all = stepsOf(1, SEEDS * STEPS, { disk: true })
        expect(all.filter((s) => s.kind === "hand-edit").length).toBeGreaterThan(40)
        const faults = new Set(all.flatMap((s) => (s.kind === "fault" ? [s.fault] : [])))
        for (const f of ["torn-line", "crash-before-rename", "fs-enospc", "fs-eacces", "fs-eio-read", "fs-eio-fsync"])
          expect(faults).toContain(f)
        expect(Math.max(...reports.map((r) => r.reached.fullest.user))).toBeGreaterThan(0.95)
        expect(reports.reduce((n, r) => n + r.restarts, 0)).toBeGreaterThan(50)
      }),
    300_000
  )

  it.live("a seed names one run on a directory too: the same report every time", () =>
    Effect.gen(function* () {
      const steps = stepsOf(2, 120, { disk: true })
      const run = () => {
        const world = diskWorld()
        return Effect.ensuring(runSimulation(world, steps, 2), world.dispose ?? Effect.void)
      }
      expect(yield* run()).toEqual(yield* run())
    })
  )
})
