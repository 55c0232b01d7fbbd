import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { memoryWorld } from "../../src/adapters/dev/simulation.js"
import * as MemoryEventStore from "../../src/adapters/memory/MemoryEventStore.js"
import { runSimulation, shrinkSteps, type SimReport, stepsOf } from "../../src/app/simulation.js"
import { EventStore } from "../../src/ports/EventStore.js"

/** Seeds × steps this file runs on the in-memory store; the disk file runs the rest of the CI budget. */
const SEEDS = 30
const STEPS = 250

const reachedOver = (reports: ReadonlyArray<SimReport>) => ({
  fullestUser: Math.max(...reports.map((r) => r.reached.fullest.user)),
  fullestEnv: Math.max(...reports.map((r) => r.reached.fullest.env)),
  episodes: Math.max(...reports.map((r) => r.reached.episodes)),
  pending: reports.reduce((n, r) => n + r.reached.pendingEpisodes, 0),
  atoms: Math.max(...reports.map((r) => r.reached.atoms)),
  quarantined: reports.reduce((n, r) => n + r.reached.quarantined, 0),
  promoted: reports.reduce((n, r) => n + r.reached.promoted, 0),
  tainted: reports.reduce((n, r) => n + r.reached.taintedSessions, 0),
  refusals: reports.reduce((n, r) => n + r.reached.refusals, 0),
  restarts: reports.reduce((n, r) => n + r.restarts, 0),
  faults: reports.reduce((n, r) => n + r.faults, 0)
})

describe("deterministic simulation of the app under faults, in-memory store (issue 15)", () => {
  it.live(
    `${SEEDS} seeds × ${STEPS} steps (${SEEDS * STEPS} steps): every invariant holds after every step, and the runs ` +
      "reach full files and a full atom store, cap refusals, pending and promoted episodes, quarantined atoms, " +
      "tainted sessions, restarts and faults",
    () =>
      Effect.gen(function* () {
        const reports: Array<SimReport> = []
        for (let seed = 1; seed <= SEEDS; seed++) {
          const report = yield* runSimulation(memoryWorld(), stepsOf(seed, STEPS, { disk: false }), seed)
          expect(report.violation, `seed ${seed}: tmem simulate --seed ${seed} --steps ${STEPS}`).toBeUndefined()
          reports.push(report)
        }
        const reached = reachedOver(reports)
        expect(reached.fullestUser).toBeGreaterThan(0.95)
        expect(reached.fullestEnv).toBeGreaterThan(0.95)
        // the episode store reaches its cap of 5, so eviction runs
        expect(reached.episodes).toBe(5)
        // the atom store reaches its cap (about four atoms with their vectors), so eviction runs
        expect(reached.atoms).toBeGreaterThanOrEqual(4)
        for (const n of [reached.pending, reached.quarantined, reached.promoted, reached.tainted, reached.refusals])
          expect(n).toBeGreaterThan(20)
        expect(reached.restarts).toBeGreaterThan(200)
        expect(reached.faults).toBeGreaterThan(200)
      }),
    300_000
  )

  it.live("a seed names one run: the same steps, outcomes and report every time", () =>
    Effect.gen(function* () {
      const steps = stepsOf(7, STEPS, { disk: false })
      expect(stepsOf(7, STEPS, { disk: false })).toEqual(steps)
      const first = yield* runSimulation(memoryWorld(), steps, 7)
      const second = yield* runSimulation(memoryWorld(), steps, 7)
      expect(second).toEqual(first)
    })
  )

  it.live(
    "a store that loses a batch it once held is caught within one seed, and the run shrinks to a shorter one " +
      "that still fails",
    () =>
      Effect.gen(function* () {
        // forgets the oldest batch of the env file once the memory has written 60 batches: a lost acknowledged write
        const lossy = () => {
          const inner = Effect.runSync(MemoryEventStore.make)
          let appends = 0
          const store = EventStore.of({
            ...inner,
            append: (...args) => Effect.tap(inner.append(...args), () => void appends++),
            read: (stream, codec, from) =>
              Effect.map(inner.read(stream, codec, from), (batches) =>
                appends > 60 && stream === "facts/env" ? batches.slice(1) : batches
              )
          })
          return memoryWorld({ store })
        }
        const steps = stepsOf(1, STEPS, { disk: false })
        const report = yield* runSimulation(lossy(), steps, 1)
        expect(report.violation?.invariant).toMatch(/^(no-write-lost|replay-equals-state)$/)
        const failing = steps.slice(0, report.violation!.step)
        const shrunk = yield* shrinkSteps(lossy, failing, 1, report.violation!.invariant, 40)
        expect(shrunk.length).toBeLessThan(report.violation!.step)
        expect((yield* runSimulation(lossy(), shrunk, 1)).violation?.invariant).toBe(report.violation!.invariant)
      }),
    120_000
  )
})
