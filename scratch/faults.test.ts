import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer } from "effect"
import pg from "pg"
import * as NoGuard from "../src/adapters/guard/NoGuard.js"
import * as NoneLlm from "../src/adapters/llm/NoneLlm.js"
import * as Notifiers from "../src/adapters/notify/Notifiers.js"
import * as PgEventStore from "../src/adapters/postgres/PgEventStore.js"
import * as RpEmbedder from "../src/adapters/rp/RpEmbedder.js"
import { CapConsolidation } from "../src/app/CapConsolidation.js"
import { addFact, loadFacts } from "../src/app/facts.js"
import { Settings } from "../src/app/Settings.js"
import { DEFAULT_CONFIG } from "../src/domain/config/MemoryConfig.js"
import { dropMemory, freshMemoryId, PG_SCHEMA, PG_URL, runPg } from "../test/support/postgres.js"
import { quietLogs } from "../test/support/logs.js"

const ADDS = 120

const origEmit = pg.Client.prototype.emit
;(pg.Client.prototype as any).emit = function (this: any, ev: string, ...a: any[]) { if (ev === "error" && this.listenerCount("error") === 0) console.log("UNHANDLED on client", this.application_name ?? this.connectionParameters?.application_name, this._connecting, this._connected, this._ending, this._queryable, new Error().stack?.split("\n").slice(0,12).join("\n")); return origEmit.call(this, ev, ...a) }
describe.runIf(runPg)("PostgreSQL store under faults", () => {
  it.live(
    "connections cut by the server in the middle of a write run: every add is acknowledged once, none is lost",
    () =>
      Effect.gen(function* () {
        const memory = freshMemoryId()
        yield* Effect.addFinalizer(() => dropMemory(memory))
        // a name of its own, so only this test's connections are cut
        const applicationName = `tmem-fault-${process.pid}`
        const layer = Layer.mergeAll(
          PgEventStore.layer({ url: PG_URL, schema: PG_SCHEMA, memory, applicationName, poolSize: 2 }),
          NoGuard.layer,
          RpEmbedder.layer(256),
          NoneLlm.layer,
          CapConsolidation.disabled,
          Settings.layer({ ...DEFAULT_CONFIG, mergeOnWrite: false, factsLimitEnv: 1_000_000 }),
          Notifiers.silent,
          quietLogs
        )
        const killer = new pg.Client({ connectionString: PG_URL })
        yield* Effect.promise(() => killer.connect())
        yield* Effect.addFinalizer(() => Effect.promise(() => killer.end().catch(() => undefined)))
        let cuts = 0
        // what a server restart does to every open connection: the backend ends it (57P01) mid-query or mid-commit
        const cutting = yield* Effect.fork(
          Effect.forever(
            Effect.zipRight(
              Effect.promise(async () => {
                const r = await killer.query(
                  "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
                  [applicationName]
                )
                cuts += r.rowCount ?? 0
              }),
              Effect.sleep(Duration.millis(15))
            )
          )
        )
        const outcomes = yield* Effect.forEach(
          Array.from({ length: ADDS }, (_, i) => i),
          (i) => Effect.map(addFact("env", `fault run fact ${i} on host ${i * 13}`), (r) => r.outcome.kind),
          { concurrency: 4 }
        ).pipe(Effect.provide(layer))
        yield* Fiber.interrupt(cutting)
        expect(cuts).toBeGreaterThan(10)
        // an append whose commit was cut may have landed: the retry then finds the fact there (a duplicate),
        // never twice
        expect(outcomes.every((o) => o === "added" || o === "duplicate")).toBe(true)
        const loaded = yield* loadFacts("env").pipe(Effect.provide(layer))
        expect([...loaded.state.entries].sort()).toEqual(
          Array.from({ length: ADDS }, (_, i) => `fault run fact ${i} on host ${i * 13}`).sort()
        )
        expect(loaded.version).toBe(ADDS)
      }).pipe(Effect.scoped),
    120_000
  )
})
