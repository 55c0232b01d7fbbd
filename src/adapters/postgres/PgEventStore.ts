import { Chunk, Deferred, Duration, Effect, Either, Layer, Option, Schedule, Schema, Stream } from "effect"
import pg from "pg"
import {
  type Batch,
  batchCodec,
  type CodecOf,
  type FeedEntry,
  foldStream,
  isValidConsumerName,
  isValidStreamName,
  type StreamCodec
} from "../../domain/kernel/Stream.js"
import { type Base, EventStore, StoreError, VersionConflict } from "../../ports/EventStore.js"
import { migrate } from "./migrations.js"
import { failure, openDatabase, type PgConnection, Rollback, settle } from "./shared.js"

/**
 * The EventStore on PostgreSQL (issue 14, docs/SCALING.md): many processes on many hosts share one memory. The
 * database enforces what the disk store's lock does: an append lands only on the version it expects (the streams
 * row is updated only from that version; a unique key refuses a second batch with one version), and feed positions
 * are handed out in commit order (see migrations.ts), so a subscriber that reads past position p never meets a
 * batch committed later with a smaller one. Ranking and folding stay in this process.
 */
export interface PgOptions extends PgConnection {
  /** A load that folds this many events or more leaves a snapshot for the next process. Default 1,000. */
  readonly snapshotEvery?: number
  /** How long a subscriber waits for a wake-up (LISTEN/NOTIFY) before it looks anyway. Default 1 s. */
  readonly pollMs?: number
}

/** Rows a feed read takes from the database at a time. */
const PAGE = 500
/** The NOTIFY channel of every memory; the payload names the memory that moved. */
const CHANNEL = "tmem_feed"

const int = (v: unknown): number => (typeof v === "number" ? v : Number(v))

interface Cached {
  readonly codec: StreamCodec<any, any>
  readonly version: number
  readonly state: unknown
}

interface BatchRow {
  readonly version: number
  readonly count: number
  readonly at: string
  readonly events: unknown
}

/** A failure thrown inside a decode step: the store's own errors as they are, anything else as damage. */
const asStoreError =
  (stream: string) =>
  (e: unknown): StoreError =>
    e instanceof StoreError
      ? e
      : new StoreError({
          stream,
          text: `memory: ${stream} in the database cannot be read: ${String(e)}`,
          reason: "corrupt"
        })

/**
 * One dedicated connection listening for feed wake-ups, opened on a subscriber's first wait. A lost connection is no
 * failure: subscribers fall back to looking every `pollMs`, and the next wait opens it again.
 */
const makeListener = (config: pg.ClientConfig, memory: string) => {
  let generation = 0
  let waiters: Array<Deferred.Deferred<void>> = []
  let client: pg.Client | undefined
  let opening: Promise<void> | undefined
  let closed = false
  const wake = () => {
    generation++
    const woken = waiters
    waiters = []
    for (const d of woken) Deferred.unsafeDone(d, Effect.void)
  }
  const open = () => {
    if (closed || client !== undefined || opening !== undefined) return
    const c = new pg.Client(config)
    const drop = () => {
      if (client === c) client = undefined
      c.end().catch(() => undefined)
      // whatever was committed while nobody listened is found by the next look
      wake()
    }
    c.on("error", drop)
    c.on("end", drop)
    c.on("notification", (n) => {
      if (n.payload === memory) wake()
    })
    opening = c
      .connect()
      .then(() => c.query(`LISTEN ${CHANNEL}`))
      .then(
        () => {
          if (closed) void c.end().catch(() => undefined)
          else client = c
        },
        () => void c.end().catch(() => undefined)
      )
      .finally(() => {
        opening = undefined
      })
  }
  return {
    generation: () => generation,
    /** Returns once a wake-up came after `seen`, or after `ms`. */
    waitAfter: (seen: number, ms: number) =>
      Effect.suspend(() => {
        open()
        if (generation !== seen) return Effect.void
        return Effect.flatMap(Deferred.make<void>(), (d) => {
          waiters.push(d)
          return Deferred.await(d).pipe(Effect.timeoutOption(Duration.millis(ms)), Effect.asVoid)
        })
      }),
    close: async () => {
      closed = true
      await opening
      await client?.end().catch(() => undefined)
      client = undefined
    }
  }
}

/**
 * A store whose every call fails with `error`: options that cannot work (a malformed URL, a bad memory id) are
 * reported by the first call as any storage failure is, in one line, instead of failing whoever builds the layer.
 */
const refusing = (error: StoreError) =>
  EventStore.of({
    load: () => Effect.fail(error),
    read: () => Effect.fail(error),
    append: () => Effect.fail(error),
    compact: () => Effect.fail(error),
    base: () => Effect.fail(error),
    seed: () => Effect.fail(error),
    readAll: () => Effect.fail(error),
    head: Effect.fail(error),
    subscribe: () => Stream.fail(error),
    checkpoint: () => Effect.fail(error),
    saveCheckpoint: () => Effect.fail(error)
  })

export const make = (options: PgOptions) =>
  Effect.gen(function* () {
    const settled = settle(options)
    if (settled instanceof StoreError) return refusing(settled)
    const { memory } = settled
    const snapshotEvery = options.snapshotEvery ?? 1_000
    const pollMs = options.pollMs ?? 1_000
    const db = yield* openDatabase(options, settled)
    const { config, t, query, transaction } = db
    const listener = makeListener(config, memory)
    yield* Effect.addFinalizer(() => Effect.promise(() => listener.close()))

    const invalid = (stream: string, text: string) => new StoreError({ stream, text, reason: "invalid" })
    const checkStream = (stream: string) =>
      isValidStreamName(stream)
        ? Effect.void
        : Effect.fail(invalid(stream, `memory: invalid stream name ${JSON.stringify(stream)}`))
    const checkConsumer = (consumer: string) =>
      isValidConsumerName(consumer)
        ? Effect.void
        : Effect.fail(
            invalid(
              "",
              `memory: invalid consumer name ${JSON.stringify(consumer)}; use lowercase letters, digits, - and _`
            )
          )
    const corrupt = (stream: string, text: string) =>
      new StoreError({ stream, text: `memory: ${stream} in the database ${text}`, reason: "corrupt" })

    const decodeBatch = <S, E>(stream: string, codec: StreamCodec<S, E>, row: BatchRow): Batch<E> => {
      const events = batchCodec(codec).decode(row.events)
      if (Either.isLeft(events))
        throw corrupt(stream, `has a batch at version ${row.version} that does not decode: ${events.left.message}`)
      if (events.right.length !== row.count)
        throw corrupt(stream, `has a batch at version ${row.version} whose event count does not match`)
      return { version: row.version, at: row.at, events: events.right }
    }

    const versionOf = (stream: string) =>
      Effect.map(
        query<{ version: number }>(
          "read",
          stream,
          `SELECT version FROM ${t("streams")} WHERE memory = $1 AND stream = $2`,
          [memory, stream]
        ),
        (r) => r.rows[0]?.version ?? 0
      )

    const batchesBetween = (stream: string, after: number, through: number) =>
      Effect.map(
        query<BatchRow>(
          "read",
          stream,
          `SELECT version, count, at, events FROM ${t("batches")}
           WHERE memory = $1 AND stream = $2 AND version > $3 AND version <= $4 ORDER BY version`,
          [memory, stream, after, through]
        ),
        (r) => r.rows
      )

    /** The events after `from` up to `through`, checked to follow one another with nothing missing. */
    const eventsAfter = <S, E>(
      stream: string,
      codec: StreamCodec<S, E>,
      rows: ReadonlyArray<BatchRow>,
      from: number
    ) => {
      const out: Array<E> = []
      let at = from
      for (const row of rows) {
        if (row.version - row.count !== at) return undefined
        out.push(...decodeBatch(stream, codec, row).events)
        at = row.version
      }
      return { events: out, version: at }
    }

    const states = new Map<string, Cached>()

    /** The stream's state at its current version, from the fold kept in this process when it still applies. */
    const loadNow = <S, E>(stream: string, codec: StreamCodec<S, E>) =>
      Effect.gen(function* () {
        const version = yield* versionOf(stream)
        const kept = states.get(stream)
        if (kept !== undefined && kept.codec === codec && kept.version === version)
          return { state: kept.state as S, version }
        if (kept !== undefined && kept.codec === codec && kept.version < version) {
          const rows = yield* batchesBetween(stream, kept.version, version)
          const next = yield* Effect.try({
            try: () => eventsAfter(stream, codec, rows, kept.version),
            catch: asStoreError(stream)
          })
          if (next !== undefined && next.version === version) {
            const state = foldStream(codec, kept.state as S, next.events)
            states.set(stream, { codec, version, state })
            return { state, version }
          }
        }
        // from the newest of the load's snapshot and the compacted stream's base, when the codec keeps them
        let base: { state: S; version: number } = { state: codec.initialState, version: 0 }
        const snapshot = codec.snapshot
        if (snapshot !== undefined && version > 0) {
          const found = yield* query<{ version: number; state: unknown }>(
            "read",
            stream,
            `SELECT version, state FROM ${t("snapshots")} WHERE memory = $1 AND stream = $2 AND version <= $3
             UNION ALL
             SELECT version, state FROM ${t("bases")} WHERE memory = $1 AND stream = $2 AND version <= $3
             ORDER BY version DESC LIMIT 1`,
            [memory, stream, version]
          )
          const row = found.rows[0]
          if (row !== undefined) {
            const decoded = Schema.decodeUnknownEither(snapshot)(row.state)
            if (Either.isLeft(decoded))
              return yield* Effect.fail(corrupt(stream, `has a snapshot that does not decode: ${decoded.left.message}`))
            base = { state: decoded.right, version: row.version }
          }
        }
        const rows = yield* batchesBetween(stream, base.version, version)
        const rest = yield* Effect.try({
          try: () => eventsAfter(stream, codec, rows, base.version),
          catch: asStoreError(stream)
        })
        if (rest === undefined || rest.version !== version)
          return yield* Effect.fail(
            corrupt(stream, `is missing batches before version ${version} (compacted without a snapshot?)`)
          )
        const state = foldStream(codec, base.state, rest.events)
        if (snapshot !== undefined && rest.events.length >= snapshotEvery)
          yield* query(
            "snapshot",
            stream,
            `INSERT INTO ${t("snapshots")} (memory, stream, version, state) VALUES ($1, $2, $3, $4)
             ON CONFLICT (memory, stream) DO UPDATE SET version = EXCLUDED.version, state = EXCLUDED.state
             WHERE ${t("snapshots")}.version < EXCLUDED.version`,
            [memory, stream, version, JSON.stringify(Schema.encodeSync(snapshot)(state))]
          ).pipe(Effect.ignore)
        states.set(stream, { codec, version, state })
        return { state, version }
      })

    const load = <S, E>(stream: string, codec: StreamCodec<S, E>) =>
      Effect.zipRight(checkStream(stream), loadNow(stream, codec))

    const read = <S, E>(stream: string, codec: StreamCodec<S, E>, fromVersion = 0) =>
      Effect.gen(function* () {
        yield* checkStream(stream)
        const rows = yield* query<BatchRow>(
          "read",
          stream,
          `SELECT version, count, at, events FROM ${t("batches")}
           WHERE memory = $1 AND stream = $2 AND version > $3 ORDER BY version`,
          [memory, stream, fromVersion]
        )
        return yield* Effect.try({
          try: () => rows.rows.map((row) => decodeBatch(stream, codec, row)),
          catch: asStoreError(stream)
        })
      })

    const append = <S, E>(
      stream: string,
      codec: StreamCodec<S, E>,
      expectedVersion: number,
      events: ReadonlyArray<E>,
      at: string
    ) =>
      Effect.gen(function* () {
        yield* checkStream(stream)
        const { encode, decode } = batchCodec(codec)
        const encoded = encode(events)
        // the events as any reader will get them back: through their schema both ways
        const decoded = Either.flatMap(encoded, decode)
        if (Either.isLeft(encoded) || Either.isLeft(decoded))
          return yield* Effect.fail(
            new StoreError({
              stream,
              text: `memory: cannot encode events for ${stream}: ${
                (Either.isLeft(encoded) ? encoded.left : (decoded as Either.Left<Error, unknown>).left).message
              }`
            })
          )
        const before = yield* loadNow(stream, codec)
        if (before.version !== expectedVersion)
          return yield* Effect.fail(new VersionConflict({ stream, expected: expectedVersion, actual: before.version }))
        if (decoded.right.length === 0)
          return { state: before.state, batch: { version: before.version, at, events: [] as Array<E> }, position: 0 }
        const version = expectedVersion + decoded.right.length
        const written = yield* transaction<number, number>("append to", stream, async (c) => {
          const moved =
            expectedVersion === 0
              ? await c.query(
                  `INSERT INTO ${t("streams")} (memory, stream, version) VALUES ($1, $2, $3)
                   ON CONFLICT (memory, stream) DO UPDATE SET version = EXCLUDED.version
                   WHERE ${t("streams")}.version = 0 RETURNING version`,
                  [memory, stream, version]
                )
              : await c.query(
                  `UPDATE ${t("streams")} SET version = $3 WHERE memory = $1 AND stream = $2 AND version = $4
                   RETURNING version`,
                  [memory, stream, version, expectedVersion]
                )
          if (moved.rowCount === 0) {
            const now = await c.query<{ version: number }>(
              `SELECT version FROM ${t("streams")} WHERE memory = $1 AND stream = $2`,
              [memory, stream]
            )
            throw new Rollback(now.rows[0]?.version ?? 0)
          }
          // the memories row stays locked until commit: the next append of this memory waits for this one's
          // position to be committed or given back
          const position = await c.query<{ last_position: string }>(
            `INSERT INTO ${t("memories")} (memory, last_position) VALUES ($1, 1)
             ON CONFLICT (memory) DO UPDATE SET last_position = ${t("memories")}.last_position + 1
             RETURNING last_position`,
            [memory]
          )
          const p = int(position.rows[0]!.last_position)
          await c.query(
            `INSERT INTO ${t("batches")} (memory, stream, version, count, position, at, events)
             VALUES ($1, $2, $3, $4, $5, $6, $7)`,
            [memory, stream, version, decoded.right.length, p, at, JSON.stringify(encoded.right)]
          )
          await c.query("SELECT pg_notify($1, $2)", [CHANNEL, memory])
          return p
        })
        if (written instanceof Rollback)
          return yield* Effect.fail(new VersionConflict({ stream, expected: expectedVersion, actual: written.value }))
        const state = foldStream(codec, before.state, decoded.right)
        states.set(stream, { codec, version, state })
        return { state, batch: { version, at, events: decoded.right }, position: written }
      })

    const compact = <S, E>(stream: string, codec: StreamCodec<S, E>, through: number) =>
      Effect.gen(function* () {
        yield* checkStream(stream)
        const snapshot = codec.snapshot
        if (snapshot === undefined)
          return yield* Effect.fail(invalid(stream, `memory: ${stream} keeps no snapshots, so it cannot be compacted`))
        const gone = yield* transaction("compact", stream, async (c) => {
          // appends to the stream wait for the compaction
          const head = await c.query<{ version: number }>(
            `SELECT version FROM ${t("streams")} WHERE memory = $1 AND stream = $2 FOR UPDATE`,
            [memory, stream]
          )
          if (head.rows.length === 0) return 0
          const found = await c.query<{ version: number; state: unknown }>(
            `SELECT version, state FROM ${t("bases")} WHERE memory = $1 AND stream = $2`,
            [memory, stream]
          )
          const rows = await c.query<BatchRow>(
            `SELECT version, count, at, events FROM ${t("batches")} WHERE memory = $1 AND stream = $2 ORDER BY version`,
            [memory, stream]
          )
          // the last batch stays, as on disk
          let keep = rows.rows.findIndex((r) => r.version > through)
          if (keep < 0) keep = rows.rows.length - 1
          if (keep <= 0) return 0
          const forgotten = rows.rows.slice(0, keep)
          const last = forgotten[forgotten.length - 1]!
          // the new base: the old one (or the start) and every batch it now stands for
          let state = codec.initialState
          let from = 0
          const old = found.rows[0]
          if (old !== undefined) {
            const decoded = Schema.decodeUnknownEither(snapshot)(old.state)
            if (Either.isLeft(decoded)) throw corrupt(stream, `has a compacted state that does not decode`)
            state = decoded.right
            from = old.version
          }
          const rest = eventsAfter(stream, codec, forgotten, from)
          if (rest === undefined) throw corrupt(stream, `is missing batches before version ${last.version}`)
          state = foldStream(codec, state, rest.events)
          await c.query(
            `INSERT INTO ${t("bases")} (memory, stream, version, at, state) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (memory, stream) DO UPDATE
             SET version = EXCLUDED.version, at = EXCLUDED.at, state = EXCLUDED.state`,
            [memory, stream, last.version, last.at, JSON.stringify(Schema.encodeSync(snapshot)(state))]
          )
          await c.query(`DELETE FROM ${t("batches")} WHERE memory = $1 AND stream = $2 AND version <= $3`, [
            memory,
            stream,
            last.version
          ])
          return forgotten.length
        })
        return gone instanceof Rollback ? 0 : gone
      })

    const base = <S, E>(stream: string, codec: StreamCodec<S, E>) =>
      Effect.gen(function* () {
        yield* checkStream(stream)
        const found = yield* query<{ version: number; at: string; state: unknown }>(
          "read",
          stream,
          `SELECT version, at, state FROM ${t("bases")} WHERE memory = $1 AND stream = $2`,
          [memory, stream]
        )
        const row = found.rows[0]
        if (row === undefined) return undefined
        const decoded = codec.snapshot === undefined ? undefined : Schema.decodeUnknownEither(codec.snapshot)(row.state)
        if (decoded === undefined || Either.isLeft(decoded))
          return yield* Effect.fail(corrupt(stream, "has a compacted state that does not decode"))
        return { state: decoded.right, version: row.version, at: row.at } satisfies Base<S>
      })

    const seed = <S, E>(stream: string, codec: StreamCodec<S, E>, from: Base<S>) =>
      Effect.gen(function* () {
        yield* checkStream(stream)
        const snapshot = codec.snapshot
        if (snapshot === undefined)
          return yield* Effect.fail(
            invalid(stream, `memory: ${stream} keeps no snapshots, so it cannot start from a compacted state`)
          )
        if (!Number.isSafeInteger(from.version) || from.version < 1)
          return yield* Effect.fail(
            invalid(stream, `memory: a stream starts from version 1 or later, not ${from.version}`)
          )
        const encoded = JSON.stringify(Schema.encodeSync(snapshot)(from.state))
        const done = yield* transaction<void, number>("start", stream, async (c) => {
          const claimed = await c.query(
            `INSERT INTO ${t("streams")} (memory, stream, version) VALUES ($1, $2, $3)
             ON CONFLICT (memory, stream) DO UPDATE SET version = EXCLUDED.version
             WHERE ${t("streams")}.version = 0 RETURNING version`,
            [memory, stream, from.version]
          )
          if (claimed.rowCount === 0) {
            const now = await c.query<{ version: number }>(
              `SELECT version FROM ${t("streams")} WHERE memory = $1 AND stream = $2`,
              [memory, stream]
            )
            throw new Rollback(now.rows[0]?.version ?? 0)
          }
          await c.query(
            `INSERT INTO ${t("bases")} (memory, stream, version, at, state) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (memory, stream) DO UPDATE
             SET version = EXCLUDED.version, at = EXCLUDED.at, state = EXCLUDED.state`,
            [memory, stream, from.version, from.at, encoded]
          )
        })
        if (done instanceof Rollback)
          return yield* Effect.fail(new VersionConflict({ stream, expected: 0, actual: done.value }))
        states.delete(stream)
      })

    const readAll = (after: number, codecOf: CodecOf, limit = Number.POSITIVE_INFINITY) =>
      Effect.gen(function* () {
        const out: Array<FeedEntry> = []
        let cursor = Math.max(0, after)
        while (out.length < limit) {
          const rows = yield* query<BatchRow & { position: string; stream: string }>(
            "read the feed of",
            "",
            `SELECT position, stream, version, count, at, events FROM ${t("batches")}
             WHERE memory = $1 AND position > $2 ORDER BY position LIMIT ${PAGE}`,
            [memory, cursor]
          )
          for (const row of rows.rows) {
            cursor = int(row.position)
            const codec = codecOf(row.stream)
            if (codec === undefined) continue
            const batch = yield* Effect.try({
              try: () => decodeBatch(row.stream, codec, row),
              catch: asStoreError(row.stream)
            })
            out.push({ position: cursor, stream: row.stream, batch })
            if (out.length >= limit) break
          }
          if (rows.rows.length < PAGE) break
        }
        return out as ReadonlyArray<FeedEntry>
      })

    const head = Effect.map(
      query<{ last_position: string }>(
        "read the feed of",
        "",
        `SELECT last_position FROM ${t("memories")} WHERE memory = $1`,
        [memory]
      ),
      (r) => (r.rows[0] === undefined ? 0 : int(r.rows[0].last_position))
    )

    /** Reads on from the last batch delivered; with nothing new, waits for a wake-up from any writer (or pollMs). */
    const subscribe = (after: number, codecOf: CodecOf): Stream.Stream<FeedEntry, StoreError> =>
      Stream.paginateChunkEffect(after, (cursor) =>
        Effect.suspend(() => {
          const seen = listener.generation()
          return Effect.flatMap(readAll(cursor, codecOf, 1_000), (entries) =>
            entries.length === 0
              ? Effect.as(listener.waitAfter(seen, pollMs), [Chunk.empty<FeedEntry>(), Option.some(cursor)] as const)
              : Effect.succeed([
                  Chunk.unsafeFromArray(entries),
                  Option.some(entries[entries.length - 1]!.position)
                ] as const)
          )
        })
      )

    const checkpoint = (consumer: string) =>
      Effect.zipRight(
        checkConsumer(consumer),
        Effect.map(
          query<{ position: string }>(
            "read the checkpoint of",
            "",
            `SELECT position FROM ${t("checkpoints")} WHERE memory = $1 AND consumer = $2`,
            [memory, consumer]
          ),
          (r) => (r.rows[0] === undefined ? undefined : int(r.rows[0].position))
        )
      )

    const saveCheckpoint = (consumer: string, position: number) =>
      Effect.zipRight(
        checkConsumer(consumer),
        Effect.asVoid(
          query(
            "save the checkpoint of",
            "",
            `INSERT INTO ${t("checkpoints")} (memory, consumer, position) VALUES ($1, $2, $3)
             ON CONFLICT (memory, consumer) DO UPDATE SET position = EXCLUDED.position`,
            [memory, consumer, position]
          )
        )
      )

    return EventStore.of({
      load,
      read,
      append,
      compact,
      base,
      seed,
      readAll,
      head,
      subscribe,
      checkpoint,
      saveCheckpoint,
      retry: {
        // writers on other hosts take milliseconds per append, not microseconds: back off (to at most 200 ms
        // between tries) rather than spend a few fixed quick tries while eight others hold the stream
        conflict: Schedule.exponential(Duration.millis(4), 1.5).pipe(
          Schedule.either(Schedule.spaced(Duration.millis(200))),
          Schedule.jittered,
          Schedule.upTo(Duration.seconds(30))
        ),
        // a restart of the server takes seconds: back off from 50 ms, for about half a minute in all
        unavailable: Schedule.jittered(Schedule.exponential(Duration.millis(50), 1.6)).pipe(
          Schedule.upTo(Duration.seconds(30))
        )
      }
    })
  })

/** The store as a layer; the pool and the listening connection close with its scope. */
export const layer = (options: PgOptions): Layer.Layer<EventStore> => Layer.scoped(EventStore, make(options))

/** Creates or upgrades the tables ahead of first use (`tmem db migrate`): the versions before and after. */
export const migrateDatabase = (options: PgOptions) =>
  Effect.gen(function* () {
    const settled = settle(options)
    if (settled instanceof StoreError) return yield* Effect.fail(settled)
    const { target, schema } = settled
    return yield* Effect.acquireUseRelease(
      Effect.sync(
        () =>
          new pg.Client({ connectionString: options.url, connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000 })
      ),
      (client) =>
        Effect.tryPromise({
          try: async () => {
            client.on("error", () => undefined)
            await client.connect()
            return await migrate(client, schema)
          },
          catch: (e) => failure(e, target, schema, "prepare the database")
        }),
      (client) => Effect.promise(() => client.end().catch(() => undefined))
    )
  })
