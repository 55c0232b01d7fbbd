import { Effect, type Scope } from "effect"
import pg from "pg"
import { DEFAULT_MEMORY, memoryIdProblem } from "../../domain/kernel/MemoryId.js"
import { StoreError } from "../../ports/EventStore.js"
import { isValidSchemaName, parseStoreUrl, storeFailure, type Target } from "./connection.js"
import { migrate, SCHEMA_VERSION, SchemaTooNew } from "./migrations.js"

/** How a process reaches one memory in a PostgreSQL database (every PostgreSQL adapter takes these). */
export interface PgConnection {
  /** `postgres://user@host:5432/database`; never repeated in errors (it may hold a password). */
  readonly url: string
  /** Which memory of the database (several share one). Default `default`. */
  readonly memory?: string
  /** The PostgreSQL schema of the tables. Default `tmem`. */
  readonly schema?: string
  /** Connections kept open, shared by every adapter of the process on this database. Default 4. */
  readonly poolSize?: number
  /** How long a connection attempt may take. Default 5 s. */
  readonly connectTimeoutMs?: number
  /** The connections' `application_name` (what `pg_stat_activity` shows). Default `tmem`. */
  readonly applicationName?: string
}

export interface Settled {
  readonly target: Target
  readonly memory: string
  readonly schema: string
}

/** The options checked, or a one-line error saying which is wrong. */
export const settle = (options: PgConnection): Settled | StoreError => {
  const target = parseStoreUrl(options.url)
  if (target instanceof StoreError) return target
  const memory = options.memory ?? DEFAULT_MEMORY
  const problem = memoryIdProblem(memory)
  if (problem !== undefined) return new StoreError({ stream: "", text: `memory: ${problem}`, reason: "invalid" })
  const schema = options.schema ?? "tmem"
  if (!isValidSchemaName(schema))
    return new StoreError({
      stream: "",
      text: `memory: invalid schema name ${JSON.stringify(schema)}; use lowercase letters, digits and _`,
      reason: "invalid"
    })
  return { target, memory, schema }
}

/** Any failure as a one-line StoreError; a schema newer than this program is its own. */
export const failure = (e: unknown, target: Target, schema: string, doing: string, stream = ""): StoreError =>
  e instanceof SchemaTooNew
    ? new StoreError({
        stream,
        text:
          `memory: the tables in schema ${schema} are version ${e.found}, newer than this tmem knows ` +
          `(${SCHEMA_VERSION}); nothing was changed; upgrade tmem`,
        reason: "invalid"
      })
    : storeFailure(e, target, doing, stream)

/** Thrown by a transaction's body to roll back and hand `value` back instead of failing. */
export class Rollback<A> {
  constructor(readonly value: A) {}
}

interface Shared {
  readonly pool: pg.Pool
  users: number
  /** Schemas this pool has brought up to date. */
  readonly ready: Set<string>
}

// One pool per database, user and application name in a process, however many adapters use it: the store, the
// search index and the derived files share its connections.
const pools = new Map<string, Shared>()

const sharedPool = (config: pg.ClientConfig, max: number): Effect.Effect<Shared, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const key = `${config.connectionString}\n${config.application_name}`
      let shared = pools.get(key)
      if (shared === undefined) {
        const pool = new pg.Pool({ ...config, max, idleTimeoutMillis: 10_000 })
        // an idle connection the server drops emits here; the next query opens another
        pool.on("error", () => undefined)
        // The server can end a connection in the same packet that says it is ready (a restart, an administrator
        // cutting it), before whoever asked for it can listen: every connection keeps a listener of its own, so
        // that event is never thrown at the process; the query it was wanted for then fails and is retried.
        pool.on("connect", (client) => void client.on("error", () => undefined))
        shared = { pool, users: 0, ready: new Set() }
        pools.set(key, shared)
      }
      shared.users++
      return { key, shared }
    }),
    ({ key, shared }) =>
      Effect.promise(async () => {
        if (--shared.users > 0) return
        pools.delete(key)
        await shared.pool.end().catch(() => undefined)
      })
  ).pipe(Effect.map(({ shared }) => shared))

/**
 * A checked-out connection for `use`. A connection the server ends while it is checked out says so by an event
 * (which would otherwise be thrown at the process); the query under way fails with it, and the connection is not
 * handed to the next caller.
 */
const withClient = async <A>(pool: pg.Pool, use: (c: pg.PoolClient) => Promise<A>): Promise<A> => {
  const c = await pool.connect()
  let broken = false
  const cut = () => {
    broken = true
  }
  c.on("error", cut)
  try {
    return await use(c)
  } catch (e) {
    broken = true
    throw e
  } finally {
    c.off("error", cut)
    c.release(broken)
  }
}

/** The database of one memory: its tables (brought up to date on first use), queries and transactions. */
export const openDatabase = (options: PgConnection, settled: Settled) =>
  Effect.gen(function* () {
    const { target, schema } = settled
    const config: pg.ClientConfig = {
      connectionString: options.url,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      application_name: options.applicationName ?? "tmem"
    }
    const shared = yield* sharedPool(config, options.poolSize ?? 4)
    const pool = shared.pool
    const t = (table: string) => `${schema}.${table}`
    const fail =
      (doing: string, stream = "") =>
      (e: unknown) =>
        failure(e, target, schema, doing, stream)

    // the tables are brought up to date on first use (or by `tmem db migrate`); a failure is retried next call
    const migrateNow = Effect.tryPromise({
      try: () => withClient(pool, (c) => migrate(c, schema)),
      catch: fail("prepare the database")
    })
    const prepared = Effect.suspend(() =>
      shared.ready.has(schema) ? Effect.void : Effect.tap(migrateNow, () => void shared.ready.add(schema))
    )

    const query = <R extends pg.QueryResultRow>(doing: string, stream: string, text: string, values: Array<unknown>) =>
      Effect.zipRight(
        prepared,
        Effect.tryPromise({ try: () => pool.query<R>(text, values), catch: fail(doing, stream) })
      )

    /** `body` in one transaction on one connection; a thrown Rollback rolls back and is handed back as a value. */
    const transaction = <A, B = never>(doing: string, stream: string, body: (c: pg.PoolClient) => Promise<A>) =>
      Effect.zipRight(
        prepared,
        Effect.tryPromise({
          try: () =>
            withClient(pool, async (c): Promise<A | Rollback<B>> => {
              await c.query("BEGIN")
              try {
                const out = await body(c)
                await c.query("COMMIT")
                return out
              } catch (e) {
                if (!(e instanceof Rollback)) throw e
                await c.query("ROLLBACK")
                return e as Rollback<B>
              }
            }),
          catch: fail(doing, stream)
        })
      )

    return { config, t, fail, query, transaction }
  })
