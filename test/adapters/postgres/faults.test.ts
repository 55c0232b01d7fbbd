import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer } from "effect"
import * as net from "node:net"
import pg from "pg"
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

const ADDS = 120

/** A backend's FATAL "terminating connection due to administrator command" (57P01), as the wire carries it. */
const terminated = (() => {
  const field = (code: string, value: string) => Buffer.concat([Buffer.from(code), Buffer.from(`${value}\0`)])
  const body = Buffer.concat([
    field("S", "FATAL"),
    field("V", "FATAL"),
    field("C", "57P01"),
    field("M", "terminating connection due to administrator command"),
    Buffer.from([0])
  ])
  const head = Buffer.alloc(5)
  head.write("E", 0)
  head.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([head, body])
})()

/**
 * A proxy in front of the server whose first `cut` connections end in the very packet that says they are ready:
 * the "ready" and the termination reach the client together, before anyone holding the connection can listen.
 */
const cutAtReady = (cut: number) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; cutDone: () => number; server: net.Server }>((resume) => {
      const target = new URL(PG_URL)
      let done = 0
      const server = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname)
        const cutThis = done < cut
        if (cutThis) done++
        let pending = Buffer.alloc(0)
        let ready = false
        client.on("error", () => undefined)
        upstream.on("error", () => client.destroy())
        client.on("data", (d) => upstream.write(d))
        client.on("close", () => upstream.destroy())
        upstream.on("close", () => client.destroy())
        upstream.on("data", (d: Buffer) => {
          if (!cutThis || ready) return void client.write(d)
          pending = Buffer.concat([pending, d])
          // walk whole messages (a type byte, then a length that counts itself) up to ReadyForQuery
          let at = 0
          while (at + 5 <= pending.length) {
            const end = at + 1 + pending.readInt32BE(at + 1)
            if (end > pending.length) break
            if (pending[at] === 0x5a) {
              ready = true
              client.end(Buffer.concat([pending.subarray(0, end), terminated]))
              upstream.destroy()
              return
            }
            at = end
          }
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const port = (server.address() as net.AddressInfo).port
        const url = new URL(PG_URL)
        url.hostname = "127.0.0.1"
        url.port = String(port)
        resume(Effect.succeed({ url: url.toString(), cutDone: () => done, server }))
      })
    }),
    (proxy) => Effect.async<void>((resume) => void proxy.server.close(() => resume(Effect.void)))
  )

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

  it.live(
    "a connection ended in the packet that says it is ready throws nothing at the process; the add is retried, lands",
    () =>
      Effect.gen(function* () {
        const memory = freshMemoryId()
        yield* Effect.addFinalizer(() => dropMemory(memory))
        const thrown: Array<unknown> = []
        const onThrown = (e: unknown) => void thrown.push(e)
        process.on("uncaughtException", onThrown)
        yield* Effect.addFinalizer(() => Effect.sync(() => void process.off("uncaughtException", onThrown)))
        const proxy = yield* cutAtReady(3)
        const layer = Layer.mergeAll(
          PgEventStore.layer({
            url: proxy.url,
            schema: PG_SCHEMA,
            memory,
            applicationName: `tmem-ready-${process.pid}`
          }),
          NoGuard.layer,
          RpEmbedder.layer(256),
          NoneLlm.layer,
          CapConsolidation.disabled,
          Settings.layer({ ...DEFAULT_CONFIG, mergeOnWrite: false }),
          Notifiers.silent,
          quietLogs
        )
        const added = yield* addFact("env", "the proxy fact survives a cut at ready").pipe(Effect.provide(layer))
        expect(added.outcome.kind).toBe("added")
        expect(proxy.cutDone()).toBe(3)
        const loaded = yield* loadFacts("env").pipe(Effect.provide(layer))
        expect([...loaded.state.entries]).toEqual(["the proxy fact survives a cut at ready"])
        expect(thrown).toEqual([])
      }).pipe(Effect.scoped),
    60_000
  )
})
