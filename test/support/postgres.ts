import { Effect, Layer } from "effect"
import pg from "pg"
import * as PgEventStore from "../../src/adapters/postgres/PgEventStore.js"
import type { StoreFixture } from "./stores.js"
import { quietLogs } from "./logs.js"

/** The machine's PostgreSQL (DESIGN §7 "Machines"); TMEM_TEST_PG_URL points the tests at another. */
export const PG_URL = process.env["TMEM_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
/** The schema the tests' memories live in; each test has its own memory id, removed afterwards. */
export const PG_SCHEMA = "tmem_test"

const probe = async (): Promise<string | undefined> => {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2_000 })
  try {
    await client.connect()
    await client.query("SELECT 1")
    return undefined
  } catch (e) {
    return (e as Error).message
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** Why the PostgreSQL tests cannot run here, or undefined when the server answers. */
export const pgUnreachable: string | undefined = await probe()

/**
 * Whether to run the PostgreSQL suites: always under CI (a missing server must fail there), else only when the
 * server answers. The run ends by saying how many were skipped and why (test/support/pgSkipReporter.ts); every
 * suite that needs the server has PostgreSQL in its name.
 */
export const runPg = pgUnreachable === undefined || process.env["CI"] === "true"

let next = 0
/** A memory id no other test uses (vitest runs files in parallel processes). */
export const freshMemoryId = () => `t${process.pid}-${Date.now().toString(36)}-${next++}`

/** Deletes every row of `memory` (a test's finalizer). */
export const dropMemory = (memory: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: PG_URL })
    try {
      await client.connect()
      for (const table of ["batches", "streams", "snapshots", "bases", "checkpoints", "memories"])
        await client.query(`DELETE FROM ${PG_SCHEMA}.${table} WHERE memory = $1`, [memory]).catch(() => undefined)
    } catch {
      // nothing to clean when the server is gone
    } finally {
      await client.end().catch(() => undefined)
    }
  })

export const pgLayer = (memory: string, options: Partial<PgEventStore.PgOptions> = {}) =>
  Layer.merge(
    PgEventStore.layer({ url: PG_URL, schema: PG_SCHEMA, memory, pollMs: 50, ...options }).pipe(Layer.orDie),
    quietLogs
  )

export const pgFixture: StoreFixture = {
  name: "postgres",
  make: Effect.gen(function* () {
    const memory = freshMemoryId()
    yield* Effect.addFinalizer(() => dropMemory(memory))
    return { layer: pgLayer(memory), dir: undefined, another: pgLayer(memory) }
  })
}
