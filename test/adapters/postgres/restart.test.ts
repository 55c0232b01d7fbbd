import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import * as NoGuard from "../../../src/adapters/guard/NoGuard.js"
import * as NoneLlm from "../../../src/adapters/llm/NoneLlm.js"
import * as Notifiers from "../../../src/adapters/notify/Notifiers.js"
import * as PgEventStore from "../../../src/adapters/postgres/PgEventStore.js"
import * as RpEmbedder from "../../../src/adapters/rp/RpEmbedder.js"
import { CapConsolidation } from "../../../src/app/CapConsolidation.js"
import { addFact, loadFacts } from "../../../src/app/facts.js"
import { Settings } from "../../../src/app/Settings.js"
import { DEFAULT_CONFIG } from "../../../src/domain/config/MemoryConfig.js"
import { runPg } from "../../support/postgres.js"
import { privateServer, privateServerProblem } from "../../support/privatePostgres.js"
import { quietLogs } from "../../support/logs.js"

const ADDS = 300

// A server of this test's own (test/support/privatePostgres.ts): stopping it cuts no other test's connections.
describe.runIf(runPg)("PostgreSQL server crashed and restarted in the middle of a write run", () => {
  it.live(
    "the writes resume once it is back, and every acknowledged add is there",
    () =>
      Effect.gen(function* () {
        if (privateServerProblem !== undefined)
          throw new Error(`cannot start a server of its own: ${privateServerProblem}`)
        const server = yield* privateServer
        const layer = Layer.mergeAll(
          PgEventStore.layer({ url: server.url, memory: "restarted" }),
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
        while (acknowledged.length < 20) yield* Effect.sleep("20 millis")
        // an immediate stop is what a crash or a power cut does: no shutdown checkpoint, recovery from the WAL
        yield* server.crashAndRestart
        const before = acknowledged.length
        yield* Fiber.join(run)
        // some adds were acknowledged before the crash, and the rest after it: none failed
        expect(before).toBeLessThan(ADDS)
        const loaded = yield* loadFacts("env").pipe(Effect.provide(layer))
        expect(new Set(loaded.state.entries)).toEqual(new Set(acknowledged))
        expect(loaded.state.entries).toHaveLength(ADDS)
        // and a fresh process's view, from the database alone, is the same
        const fresh = Layer.merge(layer, PgEventStore.layer({ url: server.url, memory: "restarted" }))
        expect((yield* loadFacts("env").pipe(Effect.provide(fresh))).state.entries).toHaveLength(ADDS)
      }).pipe(Effect.scoped),
    120_000
  )
})
