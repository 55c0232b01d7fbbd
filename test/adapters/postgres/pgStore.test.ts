import { describe, expect, it } from "@effect/vitest"
import { Chunk, Context, Effect, Either, Fiber, Layer, Schema, Stream } from "effect"
import pg from "pg"
import * as PgEventStore from "../../../src/adapters/postgres/PgEventStore.js"
import { MIGRATIONS, SCHEMA_VERSION } from "../../../src/adapters/postgres/migrations.js"
import type { CodecOf } from "../../../src/domain/kernel/Stream.js"
import { EventStore, StoreError } from "../../../src/ports/EventStore.js"
import { dropMemory, freshMemoryId, PG_SCHEMA, PG_URL, pgLayer, runPg } from "../../support/postgres.js"
import { counterCodec, inc } from "../../support/stores.js"

const at = "2026-01-01T00:00:00.000Z"
const counters: CodecOf = (stream) => (stream.startsWith("counter/") ? (counterCodec as never) : undefined)
const snapshotCounter = {
  ...counterCodec,
  snapshot: Schema.Struct({ total: Schema.Number, notes: Schema.Array(Schema.String) })
}

/** A raw connection to the test database, for what a test must do behind the store's back. */
const raw = Effect.acquireRelease(
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: PG_URL })
    await client.connect()
    return client
  }),
  (client) => Effect.promise(() => client.end().catch(() => undefined))
)

/** The store over a fresh memory, built in the test's scope; the memory's rows go when the scope closes. */
const freshStore = (options: Partial<PgEventStore.PgOptions> = {}) =>
  Effect.gen(function* () {
    const memory = freshMemoryId()
    yield* Effect.addFinalizer(() => dropMemory(memory))
    const context = yield* Layer.build(pgLayer(memory, options))
    return { memory, store: Context.get(context, EventStore) }
  })

/** The one-line error a store built with `options` fails its first call with. */
const firstFailure = (options: PgEventStore.PgOptions) =>
  Effect.gen(function* () {
    const e = yield* Effect.flip(
      Effect.scoped(
        Effect.flatMap(Layer.build(PgEventStore.layer(options)), (ctx) => Context.get(ctx, EventStore).head)
      )
    )
    expect(e).toBeInstanceOf(StoreError)
    expect(e.text).not.toContain("\n")
    return e
  })

describe("PostgreSQL store: bad input gets one line and changes nothing", () => {
  it.live("a malformed URL, another scheme, a bad memory id or schema name", () =>
    Effect.gen(function* () {
      expect((yield* firstFailure({ url: "not a url" })).text).toBe(
        "memory: the store URL is not a valid URL; use postgres://user@host:5432/database"
      )
      const mysql = yield* firstFailure({ url: "mysql://root:pw@127.0.0.1/test" })
      expect(mysql.text).toContain('must start with postgres:// (it starts with "mysql:")')
      expect(mysql.text).not.toContain("pw")
      expect((yield* firstFailure({ url: "postgres://127.0.0.1:5432" })).text).toContain("needs a host and a database")
      const id = yield* firstFailure({ url: PG_URL, memory: "Team A" })
      expect(id.text).toBe(
        'memory: invalid memory id "Team A": use 1-64 lowercase letters, digits, - and _, ' +
          "starting with a letter or digit"
      )
      expect(id.reason).toBe("invalid")
      expect((yield* firstFailure({ url: PG_URL, schema: "x; DROP TABLE y" })).reason).toBe("invalid")
    })
  )

  it.live("a refused connection names host and port, never the password", () =>
    Effect.gen(function* () {
      const e = yield* firstFailure({ url: "postgres://agent:hunter2@127.0.0.1:1/test", connectTimeoutMs: 2_000 })
      expect(e.reason).toBe("unavailable")
      expect(e.text).toBe(
        "memory: cannot prepare the database: PostgreSQL at 127.0.0.1:1 is unavailable (connection refused); " +
          "start it or check the store URL, then retry"
      )
      expect(e.text).not.toContain("hunter2")
      expect(e.text).not.toContain("agent")
    })
  )
})

describe.runIf(runPg)("PostgreSQL store", () => {
  it.live("a database that does not exist is named with what to do", () =>
    Effect.gen(function* () {
      const url = PG_URL.replace(/\/[^/]*$/, "/tmem_no_such_database")
      const e = yield* firstFailure({ url })
      expect(e.reason).toBe("notFound")
      expect(e.text).toContain('database "tmem_no_such_database" does not exist on 127.0.0.1:5432')
      expect(e.text).toContain("createdb tmem_no_such_database")
    })
  )

  it.scopedLive("a schema from a newer tmem is refused and left untouched", () =>
    Effect.gen(function* () {
      const client = yield* raw
      const schema = `tmem_newer_${process.pid}`
      yield* Effect.addFinalizer(() => Effect.promise(() => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)))
      yield* Effect.promise(async () => {
        await client.query(`CREATE SCHEMA ${schema}`)
        await client.query(`CREATE TABLE ${schema}.migrations (version integer PRIMARY KEY, applied_at timestamptz)`)
        await client.query(`INSERT INTO ${schema}.migrations (version) VALUES (99)`)
      })
      const e = yield* firstFailure({ url: PG_URL, schema })
      expect(e.text).toBe(
        `memory: the tables in schema ${schema} are version 99, newer than this tmem knows (${SCHEMA_VERSION}); ` +
          "nothing was changed; upgrade tmem"
      )
      const tables = yield* Effect.promise(() =>
        client.query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [schema])
      )
      expect(tables.rows.map((r) => r.table_name)).toEqual(["migrations"])
    })
  )

  it.scopedLive("a user without rights on the database gets a permission error saying what to do", () =>
    Effect.gen(function* () {
      const client = yield* raw
      yield* Effect.promise(() =>
        client.query(
          "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'tmem_no_rights') " +
            "THEN CREATE ROLE tmem_no_rights LOGIN; END IF; END $$"
        )
      )
      const url = PG_URL.replace(/\/\/[^@/]*@/, "//tmem_no_rights@")
      const e = yield* firstFailure({ url, schema: `tmem_denied_${process.pid}` })
      expect(e.reason).toBe("permission")
      expect(e.text).toContain("denied it (permission denied for database")
      expect(e.text).toContain("grant the user rights on the database and schema, or use another schema")
    })
  )

  it.scopedLive("migrations are versioned: the first run creates the tables, the next finds nothing to do", () =>
    Effect.gen(function* () {
      const client = yield* raw
      const schema = `tmem_migrate_${process.pid}`
      yield* Effect.addFinalizer(() => Effect.promise(() => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)))
      expect(yield* PgEventStore.migrateDatabase({ url: PG_URL, schema })).toEqual({ from: 0, to: SCHEMA_VERSION })
      // two processes migrating at once: the advisory lock lets one do it
      const both = yield* Effect.all(
        [PgEventStore.migrateDatabase({ url: PG_URL, schema }), PgEventStore.migrateDatabase({ url: PG_URL, schema })],
        { concurrency: 2 }
      )
      expect(both).toEqual([
        { from: SCHEMA_VERSION, to: SCHEMA_VERSION },
        { from: SCHEMA_VERSION, to: SCHEMA_VERSION }
      ])
    })
  )

  it.scopedLive("a stream compacted under schema version 2 gets its base from the snapshot on the upgrade", () =>
    Effect.gen(function* () {
      const client = yield* raw
      const schema = `tmem_v2_${process.pid}`
      yield* Effect.addFinalizer(() => Effect.promise(() => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)))
      const memory = "m"
      const at3 = "2026-02-03T00:00:00.000Z"
      // what version 2 left: counter/s compacted through version 2 (its snapshot there), its batch 3 kept
      yield* Effect.promise(async () => {
        await client.query(`CREATE SCHEMA ${schema}`)
        await client.query(`CREATE TABLE ${schema}.migrations (version integer PRIMARY KEY, applied_at timestamptz)`)
        for (const [i, sql] of MIGRATIONS.slice(0, 2).entries()) {
          await client.query(sql(schema))
          await client.query(`INSERT INTO ${schema}.migrations (version) VALUES ($1)`, [i + 1])
        }
        await client.query(`INSERT INTO ${schema}.memories VALUES ($1, 3)`, [memory])
        await client.query(`INSERT INTO ${schema}.streams VALUES ($1, 'counter/s', 3)`, [memory])
        await client.query(`INSERT INTO ${schema}.batches VALUES ($1, 'counter/s', 3, 1, 3, $2, $3)`, [
          memory,
          at3,
          JSON.stringify([{ _tag: "Incremented", by: 1, note: "c" }])
        ])
        await client.query(`INSERT INTO ${schema}.snapshots VALUES ($1, 'counter/s', 2, $2)`, [
          memory,
          JSON.stringify({ total: 2, notes: ["a", "b"] })
        ])
      })
      const store = Context.get(
        yield* Layer.build(PgEventStore.layer({ url: PG_URL, schema, memory }).pipe(Layer.orDie)),
        EventStore
      )
      expect(yield* store.load("counter/s", snapshotCounter)).toStrictEqual({
        state: { total: 3, notes: ["a", "b", "c"] },
        version: 3
      })
      expect(yield* store.base("counter/s", snapshotCounter)).toStrictEqual({
        state: { total: 2, notes: ["a", "b"] },
        version: 2,
        at: at3
      })
      expect((yield* store.read("counter/s", snapshotCounter)).map((b) => b.version)).toEqual([3])
      const versions = yield* Effect.promise(() => client.query(`SELECT max(version) AS v FROM ${schema}.migrations`))
      expect(versions.rows[0].v).toBe(SCHEMA_VERSION)
    })
  )

  it.scopedLive("no position is handed out past an append still in flight, so a reader never skips one", () =>
    Effect.gen(function* () {
      const { memory, store } = yield* freshStore()
      yield* store.append("counter/a", counterCodec, 0, [inc(1, "first")], at)
      // a writer on another host has taken the next position and not committed yet
      const client = yield* raw
      yield* Effect.promise(async () => {
        await client.query("BEGIN")
        await client.query(`UPDATE ${PG_SCHEMA}.memories SET last_position = last_position + 1 WHERE memory = $1`, [
          memory
        ])
      })
      const waiting = yield* Effect.fork(store.append("counter/b", counterCodec, 0, [inc(2, "second")], at))
      yield* Effect.sleep("300 millis")
      // the append waits for the in-flight one; readers see only what is committed
      expect(waiting.unsafePoll()).toBeNull()
      expect((yield* store.readAll(0, counters)).map((e) => e.position)).toEqual([1])
      expect(yield* store.head).toBe(1)
      // the other writer gives its position back (a rollback): the waiting append takes it, leaving no gap
      yield* Effect.promise(() => client.query("ROLLBACK"))
      const done = yield* Fiber.join(waiting)
      expect(done.position).toBe(2)
      expect((yield* store.readAll(0, counters)).map((e) => `${e.position}:${e.stream}`)).toEqual([
        "1:counter/a",
        "2:counter/b"
      ])
    })
  )

  it.scopedLive("a subscriber is woken by another process's append at once, not at its next poll", () =>
    Effect.gen(function* () {
      const { memory, store } = yield* freshStore({ pollMs: 60_000 })
      const other = Context.get(yield* Layer.build(pgLayer(memory)), EventStore)
      const got = yield* Effect.fork(Stream.runCollect(Stream.take(store.subscribe(0, counters), 2)))
      yield* other.append("counter/a", counterCodec, 0, [inc(1, "one")], at)
      yield* Effect.sleep("200 millis")
      yield* other.append("counter/a", counterCodec, 1, [inc(1, "two")], at)
      // a minute's poll would time this out; the NOTIFY of each commit wakes the subscriber
      const entries = yield* Fiber.join(got).pipe(Effect.timeout("10 seconds"))
      expect(Chunk.toReadonlyArray(entries).map((e) => e.batch.version)).toEqual([1, 2])
    })
  )

  it.scopedLive("a long stream leaves a snapshot; a new process loads from it and gets the replay's state", () =>
    Effect.gen(function* () {
      const { memory, store } = yield* freshStore({ snapshotEvery: 5 })
      let version = 0
      for (let i = 0; i < 12; i++) {
        version = (yield* store.append("counter/s", snapshotCounter, version, [inc(i, `n${i}`)], at)).batch.version
      }
      const fresh = Context.get(yield* Layer.build(pgLayer(memory, { snapshotEvery: 5 })), EventStore)
      const loaded = yield* fresh.load("counter/s", snapshotCounter)
      expect(loaded.version).toBe(12)
      expect(loaded.state).toStrictEqual({ total: 66, notes: Array.from({ length: 12 }, (_, i) => `n${i}`) })
      const client = yield* raw
      const snap = yield* Effect.promise(() =>
        client.query(`SELECT version FROM ${PG_SCHEMA}.snapshots WHERE memory = $1 AND stream = $2`, [
          memory,
          "counter/s"
        ])
      )
      expect(snap.rows).toEqual([{ version: 12 }])
      // the snapshot answers the next process: a batch behind it that no longer decodes is never read
      yield* Effect.promise(() =>
        client.query(
          `UPDATE ${PG_SCHEMA}.batches SET events = '[{"_tag":"Nonsense"}]' WHERE memory = $1 AND version = 3`,
          [memory]
        )
      )
      const third = Context.get(yield* Layer.build(pgLayer(memory)), EventStore)
      expect((yield* third.load("counter/s", snapshotCounter)).state).toStrictEqual(loaded.state)
      // while a reader of the whole history is told which batch is damaged
      const read = yield* Effect.either(third.read("counter/s", snapshotCounter))
      expect(Either.isLeft(read) && read.left._tag === "StoreError" && read.left.reason).toBe("corrupt")
    })
  )
})
