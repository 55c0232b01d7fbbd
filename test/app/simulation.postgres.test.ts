import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import pg from "pg"
import { pgWorld } from "../../src/adapters/dev/simulation.js"
import { runSimulation, stepsOf } from "../../src/app/simulation.js"
import { PG_URL, runPg } from "../support/postgres.js"

const SEEDS = 4
const STEPS = 200

const schemaExists = (schema: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: PG_URL })
    await client.connect()
    try {
      const r = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema])
      return r.rowCount === 1
    } finally {
      await client.end()
    }
  })

describe.runIf(runPg)("deterministic simulation of the app under faults, PostgreSQL store (issue 15)", () => {
  it.live(
    `${SEEDS} seeds × ${STEPS} steps on the real server, each in a schema of its own that is dropped afterwards: ` +
      "every invariant holds after every step",
    () =>
      Effect.gen(function* () {
        for (let seed = 1; seed <= SEEDS; seed++) {
          const world = pgWorld(PG_URL)
          const report = yield* Effect.ensuring(
            runSimulation(world, stepsOf(seed, STEPS, { disk: false }), seed),
            world.dispose ?? Effect.void
          )
          expect(report.violation, `tmem --store … simulate --seed ${seed} --world postgres`).toBeUndefined()
          expect(report.restarts).toBeGreaterThan(5)
          expect(yield* schemaExists(world.schema)).toBe(false)
        }
      }),
    300_000
  )
})
