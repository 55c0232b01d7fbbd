import type { ClientBase } from "pg"

/**
 * The PostgreSQL store's tables (docs/SCALING.md), one migration per schema version, applied in order inside one
 * transaction under an advisory lock, so two processes starting at once never apply one twice. A database whose
 * schema is newer than this program knows is refused, never written to.
 *
 * - `memories`: one row per memory id; `last_position` is the feed's head. Every append takes the next position by
 *   updating this row, which holds its row lock until the transaction ends: positions are handed out in commit
 *   order, with no gap a reader could see and none left by a rolled-back append.
 * - `streams`: each stream's version, the expected-version check of every append.
 * - `batches`: one row per appended batch; (memory, stream, version) and (memory, position) are unique, so the
 *   database itself refuses a second batch with one version however a writer got there.
 * - `snapshots`: the state of a long stream at a version, in its codec's snapshot form, so a load need not fold it
 *   all; the batches it stands for may still be there.
 * - `bases`: where a compacted or copied stream's kept history begins (its version, time and state): the batches
 *   after it are the whole rest of the stream.
 * - `checkpoints`: the last feed position each named consumer handled.
 * - `derived_files`: what the disk store keeps beside the files and a database keeps here, shared by every host (the
 *   episode vectors): losing one costs a rebuild, never data.
 * - `search_docs`, `search_marks`: the lexical half of recall (PgEpisodeSearch): each document's search terms as a
 *   tsvector under a GIN index, scored with BM25 by the database; the mark the index was last brought in step with.
 */
export const MIGRATIONS: ReadonlyArray<(schema: string) => string> = [
  (s) => `
    CREATE TABLE ${s}.memories (
      memory text PRIMARY KEY,
      last_position bigint NOT NULL DEFAULT 0
    );
    CREATE TABLE ${s}.streams (
      memory text NOT NULL,
      stream text NOT NULL,
      version integer NOT NULL,
      PRIMARY KEY (memory, stream)
    );
    CREATE TABLE ${s}.batches (
      memory text NOT NULL,
      stream text NOT NULL,
      version integer NOT NULL,
      count integer NOT NULL,
      position bigint NOT NULL,
      at text NOT NULL,
      events json NOT NULL,
      PRIMARY KEY (memory, stream, version),
      UNIQUE (memory, position)
    );
    CREATE TABLE ${s}.snapshots (
      memory text NOT NULL,
      stream text NOT NULL,
      version integer NOT NULL,
      state json NOT NULL,
      PRIMARY KEY (memory, stream)
    );
    CREATE TABLE ${s}.checkpoints (
      memory text NOT NULL,
      consumer text NOT NULL,
      position bigint NOT NULL,
      PRIMARY KEY (memory, consumer)
    );`,
  (s) => `
    CREATE TABLE ${s}.derived_files (
      memory text NOT NULL,
      name text NOT NULL,
      bytes bytea NOT NULL,
      PRIMARY KEY (memory, name)
    );
    CREATE TABLE ${s}.search_docs (
      memory text NOT NULL,
      collection text NOT NULL,
      id text NOT NULL,
      stamp text NOT NULL,
      length integer NOT NULL,
      terms tsvector NOT NULL,
      PRIMARY KEY (memory, collection, id)
    );
    CREATE INDEX search_docs_terms ON ${s}.search_docs USING gin (terms);
    CREATE TABLE ${s}.search_marks (
      memory text NOT NULL,
      collection text NOT NULL,
      mark text NOT NULL,
      PRIMARY KEY (memory, collection)
    );`,
  // Where a compacted (or copied) stream's kept history begins, apart from the snapshots loads keep for speed: a
  // load's snapshot may stand for batches that are still there, a base never does. Streams compacted under version
  // 2 kept their base as the snapshot: it becomes their base, and the batches it stands for go, so that what
  // follows a base is always the whole rest of the stream (a snapshot at the stream's last batch stays as it was,
  // since compaction never leaves a stream without its last batch).
  (s) => `
    CREATE TABLE ${s}.bases (
      memory text NOT NULL,
      stream text NOT NULL,
      version integer NOT NULL,
      at text NOT NULL,
      state json NOT NULL,
      PRIMARY KEY (memory, stream)
    );
    INSERT INTO ${s}.bases (memory, stream, version, at, state)
      SELECT n.memory, n.stream, n.version,
        COALESCE(
          (SELECT b.at FROM ${s}.batches b WHERE b.memory = n.memory AND b.stream = n.stream AND b.version >= n.version
           ORDER BY b.version LIMIT 1),
          to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
        n.state
      FROM ${s}.snapshots n
      WHERE (SELECT min(b.version - b.count) FROM ${s}.batches b WHERE b.memory = n.memory AND b.stream = n.stream) > 0
        AND (SELECT max(b.version) FROM ${s}.batches b WHERE b.memory = n.memory AND b.stream = n.stream) > n.version;
    DELETE FROM ${s}.batches b USING ${s}.bases a
      WHERE b.memory = a.memory AND b.stream = a.stream AND b.version <= a.version;`
]

/** The schema version this program writes. */
export const SCHEMA_VERSION = MIGRATIONS.length

/** The database's schema is newer than this program: nothing was changed. */
export class SchemaTooNew extends Error {
  constructor(readonly found: number) {
    super(`schema version ${found} is newer than this tmem knows (${SCHEMA_VERSION})`)
  }
}

/**
 * Brings `schema` up to SCHEMA_VERSION (creating it if need be) and answers the versions before and after. The
 * caller's client is used for one transaction; `schema` must be a validated identifier.
 */
export const migrate = async (client: ClientBase, schema: string): Promise<{ from: number; to: number }> => {
  await client.query("BEGIN")
  try {
    // one migrator at a time per schema, whichever process it is; the lock goes with the transaction
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`tmem-migrate:${schema}`])
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.migrations (
         version integer PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`
    )
    const found = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${schema}.migrations`)
    const from = found.rows[0]?.v ?? 0
    if (from > SCHEMA_VERSION) throw new SchemaTooNew(from)
    for (let v = from + 1; v <= SCHEMA_VERSION; v++) {
      await client.query(MIGRATIONS[v - 1]!(schema))
      await client.query(`INSERT INTO ${schema}.migrations (version) VALUES ($1)`, [v])
    }
    await client.query("COMMIT")
    return { from, to: Math.max(from, SCHEMA_VERSION) }
  } catch (e) {
    await client.query("ROLLBACK").catch(() => undefined)
    throw e
  }
}
