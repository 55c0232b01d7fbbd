import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as NoGuard from "../../../src/adapters/guard/NoGuard.js"
import * as NoneLlm from "../../../src/adapters/llm/NoneLlm.js"
import * as Notifiers from "../../../src/adapters/notify/Notifiers.js"
import * as PgEventStore from "../../../src/adapters/postgres/PgEventStore.js"
import * as RpEmbedder from "../../../src/adapters/rp/RpEmbedder.js"
import { CapConsolidation } from "../../../src/app/CapConsolidation.js"
import { addFact, loadFacts } from "../../../src/app/facts.js"
import { Settings } from "../../../src/app/Settings.js"
import { DEFAULT_CONFIG } from "../../../src/domain/config/MemoryConfig.js"
import { dropMemory, freshMemoryId, PG_SCHEMA, PG_URL, runPg } from "../../support/postgres.js"
import { quietLogs } from "../../support/logs.js"

// Restarting the machine's server cuts every other test's connections too, so this runs only when asked:
// TMEM_PG_RESTART=1 npx vitest run test/adapters/postgres/restart.test.ts (as root, with pg_ctlcluster).
const asked = process.env["TMEM_PG_RESTART"] === "1"
const ADDS = 300

describe.runIf(runPg && asked)("PostgreSQL server restarted in the middle of a write run", () => {
  it.live(
    "the writes resume once it is back, and every acknowledged add is there",
    () =>
      Effect.gen(function* () {
        const memory = freshMemoryId()
        yield* Effect.addFinalizer(() => dropMemory(memory))
        const layer = Layer.mergeAll(
          PgEventStore.layer({ url: PG_URL, schema: PG_SCHEMA, memory }),
          NoGuard.layer,
          RpEmbedder.layer(256),
          NoneLlm.layer,
          CapConsolidation.disabled,
          Settings.layer({ ...DEFAULT_CONFIG, mergeOnWrite: false, factsLimitEnv: 1_000_000 }),
          Notifiers.silent,
          quietLogs
        )
        const acknowledged: Array<string> = []
        const run = yield* Effect.fork(
          Effect.forEach(
            Array.from({ length: ADDS }, (_, i) => `restart run fact ${i} on host ${i * 17}`),
            (fact) => Effect.map(addFact("env", fact), () => void acknowledged.push(fact)),
            { concurrency: 2 }
          ).pipe(Effect.provide(layer))
        )
        yield* Effect.sleep("400 millis")
        const version = fs.readdirSync("/etc/postgresql")[0]!
        const restart = spawnSync("pg_ctlcluster", ["--skip-systemctl-redirect", version, "main", "restart"], {
          encoding: "utf8"
        })
        expect(restart.status, restart.stderr).toBe(0)
        const before = acknowledged.length
        yield* Fiber.join(run)
        // some adds were acknowledged before the restart, and the rest after it: none failed
        expect(before).toBeGreaterThan(0)
        expect(before).toBeLessThan(ADDS)
        const loaded = yield* loadFacts("env").pipe(Effect.provide(layer))
        expect(new Set(loaded.state.entries)).toEqual(new Set(acknowledged))
        expect(loaded.state.entries).toHaveLength(ADDS)
      }).pipe(Effect.scoped),
    120_000
  )
})
