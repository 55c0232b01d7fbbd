import { FileSystem, Path } from "@effect/platform"
import { Clock, Effect, Either, Layer, Schema } from "effect"
import { createHash, randomBytes } from "node:crypto"
import lockfile from "proper-lockfile"
import { foldEvents } from "../../domain/kernel/Decider.js"
import { type Batch, isValidStreamName, type StreamCodec } from "../../domain/kernel/Stream.js"
import { trimSpace } from "../../domain/text/utf8.js"
import { type Appended, EventStore, type Loaded, StoreError, VersionConflict } from "../../ports/EventStore.js"
import { oneLine, storeError } from "./errors.js"

/** Where each projected stream is written, relative to the memory directory (odek's layout). */
export const PROJECTION_FILES: Readonly<Record<string, string>> = { "facts/user": "user.md", "facts/env": "env.md" }

export interface DiskOptions {
  /** The memory directory; created (0700) on the first write. */
  readonly dir: string
  /** How long a writer waits for another process's lock before giving up, in ms. */
  readonly lockWaitMs?: number
  /** Crash-test hook: runs after the journal line is durable and before the projection is renamed into place. */
  readonly beforeProjectionRename?: (stream: string) => void
}

const JournalLine = Schema.Struct({
  version: Schema.Int,
  at: Schema.String,
  events: Schema.Array(Schema.Unknown),
  projectionHash: Schema.optionalWith(Schema.String, { exact: true })
})
type JournalLine = typeof JournalLine.Type
const decodeLine = Schema.decodeUnknownEither(JournalLine)

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex")
const EMPTY_HASH = sha256("")
const utf8 = new TextEncoder()
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
const lossyUtf8 = new TextDecoder("utf-8", { ignoreBOM: true })

/** The end of a journal: its last two complete batches, and whether a crash left a partial line after them. */
interface Tail {
  readonly exists: boolean
  readonly size: number
  /** Offset just past the last complete line. */
  readonly complete: number
  readonly last: JournalLine | undefined
  readonly prev: JournalLine | undefined
  readonly mtimeMs: number
}

// One in-process mutex per journal, shared by every store instance in the process; the file lock covers other processes.
const mutexes = new Map<string, Effect.Semaphore>()
const mutexFor = (key: string) => {
  let m = mutexes.get(key)
  if (m === undefined) {
    m = Effect.unsafeMakeSemaphore(1)
    mutexes.set(key, m)
  }
  return m
}

export const make = (options: DiskOptions) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = path.resolve(options.dir)
    const lockWaitMs = options.lockWaitMs ?? 30_000

    const journalPath = (stream: string) => path.join(dir, "journal", `${stream}.jsonl`)
    const projectionPath = (stream: string) => {
      const file = PROJECTION_FILES[stream]
      return file === undefined ? undefined : path.join(dir, file)
    }
    const rel = (p: string) => path.relative(dir, p) || "."
    const fail = (stream: string, p: string, action: string) => (e: unknown) =>
      storeError(stream, p === dir ? dir : `${dir}/${rel(p)}`, action, e)
    const nowIso = Clock.currentTimeMillis.pipe(Effect.map((ms) => new Date(ms).toISOString()))

    const checkStream = (stream: string) =>
      isValidStreamName(stream)
        ? Effect.void
        : Effect.fail(new StoreError({ stream, text: `memory: invalid stream name ${JSON.stringify(stream)}` }))

    const isNotFound = (e: unknown) => (e as { _tag?: string; reason?: string })._tag === "SystemError" && (e as { reason?: string }).reason === "NotFound"

    const readOptional = (stream: string, p: string) =>
      fs.readFile(p).pipe(
        Effect.map((b): Uint8Array | undefined => b),
        Effect.catchIf(isNotFound, () => Effect.succeed(undefined)),
        Effect.mapError(fail(stream, p, "read"))
      )

    const damaged = (stream: string, p: string, lineNo: number, why: string) =>
      new StoreError({
        stream,
        text: `memory: ${rel(p)} line ${lineNo} is damaged (${why}); restore the journal from a backup, or move it aside to re-import the files`
      })

    const parseLine = (stream: string, p: string, lineNo: number, text: string) => {
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch (e) {
        return Either.left(damaged(stream, p, lineNo, `invalid JSON: ${oneLine(e)}`))
      }
      return Either.mapLeft(decodeLine(json), () => damaged(stream, p, lineNo, "not a batch: it needs version, at and events"))
    }

    /** Finds the first damaged line of a journal, to name it exactly (the tail reader sees only the end). */
    const locateDamage = (stream: string, p: string) =>
      Effect.gen(function* () {
        const bytes = yield* readOptional(stream, p)
        const text = lossyUtf8.decode(bytes ?? new Uint8Array())
        const lines = text.slice(0, Math.max(0, text.lastIndexOf("\n"))).split("\n")
        for (const [i, l] of lines.entries()) {
          const r = parseLine(stream, p, i + 1, l)
          if (Either.isLeft(r)) return r.left
        }
        return damaged(stream, p, lines.length, "unreadable")
      })

    /** Reads only the end of the journal: enough to know the version and the last two projection hashes. */
    const readTail = (stream: string, p: string): Effect.Effect<Tail, StoreError> =>
      Effect.scoped(
        Effect.gen(function* () {
          const file = yield* fs.open(p, { flag: "r" }).pipe(
            Effect.map((f): FileSystem.File | undefined => f),
            Effect.catchIf(isNotFound, () => Effect.succeed(undefined))
          )
          if (file === undefined) return { exists: false, size: 0, complete: 0, last: undefined, prev: undefined, mtimeMs: 0 }
          const info = yield* file.stat
          const size = Number(info.size)
          const mtimeMs = Option_getTime(info.mtime)
          let chunk = Math.min(size, 64 * 1024)
          for (;;) {
            const start = size - chunk
            const buf = new Uint8Array(chunk)
            yield* file.seek(start, "start")
            let got = 0
            while (got < chunk) {
              const n = Number(yield* file.read(buf.subarray(got)))
              if (n === 0) break
              got += n
            }
            const lastNl = buf.subarray(0, got).lastIndexOf(10)
            if (lastNl < 0 && start > 0) {
              chunk = Math.min(size, chunk * 4)
              continue
            }
            const complete = lastNl < 0 ? 0 : start + lastNl + 1
            const lines = lastNl < 0 ? [] : lossyUtf8.decode(buf.subarray(0, lastNl)).split("\n")
            // The first piece of a chunk that starts mid-file may be a partial line: never trust it.
            const whole = start > 0 ? lines.slice(1) : lines
            if (whole.length < 2 && start > 0) {
              chunk = Math.min(size, chunk * 4)
              continue
            }
            const lastText = whole[whole.length - 1]
            const prevText = whole[whole.length - 2]
            const last = lastText === undefined ? undefined : parseLine(stream, p, 0, lastText)
            const prev = prevText === undefined ? undefined : parseLine(stream, p, 0, prevText)
            if ((last && Either.isLeft(last)) || (prev && Either.isLeft(prev))) return yield* Effect.fail(yield* locateDamage(stream, p))
            const lastLine = last === undefined ? undefined : Either.getOrThrow(last)
            const prevLine = prev === undefined ? undefined : Either.getOrThrow(prev)
            return { exists: true, size, complete, last: lastLine, prev: prevLine, mtimeMs }
          }
        })
      ).pipe(Effect.mapError((e) => (e instanceof StoreError ? e : fail(stream, p, "read")(e))))

    /** Every complete batch of the journal, decoded and checked for a gapless version chain. */
    const readAll = <S, E>(stream: string, codec: StreamCodec<S, E>): Effect.Effect<ReadonlyArray<Batch<E>>, StoreError> =>
      Effect.gen(function* () {
        const p = journalPath(stream)
        const bytes = yield* readOptional(stream, p)
        if (bytes === undefined) return []
        const text = lossyUtf8.decode(bytes)
        const end = text.lastIndexOf("\n")
        if (end < 0) return []
        const lines = text.slice(0, end).split("\n")
        const decodeEvents = Schema.decodeUnknownEither(Schema.Array(codec.events))
        const batches: Array<Batch<E>> = []
        let version = 0
        for (const [i, lineText] of lines.entries()) {
          const line = yield* parseLine(stream, p, i + 1, lineText)
          const events = yield* Either.mapLeft(decodeEvents(line.events), () =>
            damaged(stream, p, i + 1, `holds an event this version of tmem cannot read`)
          )
          if (events.length === 0 || line.version !== version + events.length)
            return yield* Effect.fail(damaged(stream, p, i + 1, `version ${line.version} does not follow ${version}`))
          version = line.version
          batches.push({ version, at: line.at, events })
        }
        return batches
      })

    const foldAll = <S, E>(stream: string, codec: StreamCodec<S, E>) =>
      Effect.map(readAll(stream, codec), (batches) => ({
        state: foldEvents(codec.evolve, codec.initialState, batches.flatMap((b) => b.events)),
        version: batches.length === 0 ? 0 : batches[batches.length - 1]!.version
      }))

    const ensureDir = (stream: string, p: string) =>
      fs.exists(p).pipe(
        Effect.flatMap((exists) => (exists ? Effect.succeed(false) : fs.makeDirectory(p, { recursive: true, mode: 0o700 }).pipe(Effect.as(true)))),
        Effect.mapError(fail(stream, p, "created"))
      )

    const fsyncDir = (stream: string, p: string) =>
      Effect.scoped(Effect.flatMap(fs.open(p, { flag: "r" }), (d) => d.sync)).pipe(Effect.mapError(fail(stream, p, "synced")))

    /** Writes bytes to a fresh exclusive temp file beside `target` and makes them durable; returns the temp path. */
    const writeTemp = (stream: string, target: string, bytes: Uint8Array) => {
      const tmp = path.join(path.dirname(target), `.${path.basename(target)}.tmp-${randomBytes(8).toString("hex")}`)
      return Effect.scoped(
        Effect.gen(function* () {
          const f = yield* fs.open(tmp, { flag: "wx", mode: 0o600 })
          // An emptied fact file is a real 0-byte file (odek's format); the platform refuses zero-length writes.
          if (bytes.length > 0) yield* f.writeAll(bytes)
          yield* f.sync
        })
      ).pipe(
        Effect.as(tmp),
        Effect.tapError(() => fs.remove(tmp).pipe(Effect.ignore)),
        Effect.mapError(fail(stream, target, "written"))
      )
    }

    const appendDurably = (stream: string, p: string, bytes: Uint8Array) =>
      Effect.scoped(
        Effect.gen(function* () {
          const f = yield* fs.open(p, { flag: "a", mode: 0o600 })
          yield* f.writeAll(bytes)
          yield* f.sync
        })
      ).pipe(Effect.mapError(fail(stream, p, "appended to")))

    /** Replaces a projection atomically: temp file, fsync, rename. Durability comes from the journal. */
    const writeProjection = (stream: string, target: string, text: string) =>
      Effect.flatMap(writeTemp(stream, target, utf8.encode(text)), (tmp) =>
        fs.rename(tmp, target).pipe(
          Effect.tapError(() => fs.remove(tmp).pipe(Effect.ignore)),
          Effect.mapError(fail(stream, target, "renamed into place"))
        )
      )

    /**
     * Appends a batch and projects it, with the stream lock held. The temp projection and the journal line are
     * written and fsynced in parallel (one disk flush instead of two); the rename happens only once both are durable.
     */
    const commit = <S, E>(
      stream: string,
      codec: StreamCodec<S, E>,
      stateBefore: S,
      versionBefore: number,
      events: ReadonlyArray<E>,
      at: string
    ): Effect.Effect<Appended<S, E>, StoreError> =>
      Effect.gen(function* () {
        const state = foldEvents(codec.evolve, stateBefore, events)
        const version = versionBefore + events.length
        const encoded = yield* Schema.encodeEither(Schema.Array(codec.events))(events).pipe(
          Effect.mapError((e) => new StoreError({ stream, text: `memory: cannot encode events for ${stream}: ${oneLine(e.message)}` }))
        )
        const target = projectionPath(stream)
        const rendered = target !== undefined && codec.text !== undefined ? codec.text.render(state) : undefined
        const renderedBytes = rendered === undefined ? undefined : utf8.encode(rendered)
        const line: JournalLine =
          renderedBytes === undefined
            ? { version, at, events: encoded as ReadonlyArray<unknown> }
            : { version, at, events: encoded as ReadonlyArray<unknown>, projectionHash: sha256(renderedBytes) }
        const jp = journalPath(stream)
        const createdJournal = !(yield* fs.exists(jp).pipe(Effect.orElseSucceed(() => false)))
        const [tmp] = yield* Effect.all(
          [
            target === undefined || renderedBytes === undefined ? Effect.succeed(undefined) : writeTemp(stream, target, renderedBytes),
            appendDurably(stream, jp, utf8.encode(`${JSON.stringify(line)}\n`))
          ],
          { concurrency: 2, mode: "either" }
        ).pipe(
          Effect.flatMap(([t, j]) => {
            // The journal decides: if its line failed, nothing happened; if only the projection failed, the next load repairs it.
            if (Either.isLeft(j)) {
              const cleanup = Either.isRight(t) && t.right !== undefined ? fs.remove(t.right).pipe(Effect.ignore) : Effect.void
              return Effect.zipRight(cleanup, Effect.fail(j.left))
            }
            return Effect.succeed([Either.getOrUndefined(t)] as const)
          })
        )
        if (createdJournal) yield* fsyncDir(stream, path.dirname(jp))
        if (tmp !== undefined && target !== undefined) {
          options.beforeProjectionRename?.(stream)
          yield* fs.rename(tmp, target).pipe(
            Effect.tapError(() => fs.remove(tmp).pipe(Effect.ignore)),
            Effect.catchAll((e) => Effect.logWarning(`memory: ${rel(target)} will be repaired on next load: ${oneLine(e)}`))
          )
        }
        return { state, batch: { version, at, events } }
      })

    const withLock = <A, Err>(stream: string, effect: Effect.Effect<A, Err>): Effect.Effect<A, Err | StoreError> => {
      const jp = journalPath(stream)
      const acquire = Effect.gen(function* () {
        const created = yield* ensureDir(stream, path.dirname(jp))
        if (created) yield* fsyncDir(stream, dir).pipe(Effect.ignore)
        return yield* Effect.tryPromise({
          try: () =>
            lockfile.lock(jp, {
              realpath: false,
              lockfilePath: `${jp}.lock`,
              // A lock whose holder died (the crash tests kill writers) is taken over after this long; critical
              // sections last milliseconds, and the holder refreshes the lock every second while it runs.
              stale: 4_000,
              update: 1_000,
              retries: { retries: Math.max(1, Math.ceil(lockWaitMs / 50)), factor: 1.1, minTimeout: 2, maxTimeout: 50, randomize: true },
              onCompromised: () => {}
            }),
          catch: fail(stream, `${jp}.lock`, "locked")
        })
      })
      return mutexFor(jp).withPermits(1)(
        Effect.acquireUseRelease(acquire, () => effect, (release) => Effect.promise(() => release().catch(() => undefined)))
      )
    }

    /** Text of a projection a person touched. Invalid UTF-8 is kept byte for byte in a backup beside it. */
    const adoptText = (stream: string, target: string, bytes: Uint8Array, version: number) =>
      Effect.gen(function* () {
        try {
          return { text: strictUtf8.decode(bytes), note: undefined as string | undefined }
        } catch {
          const backup = `${target}.invalid-utf8-v${version}`
          yield* fs.writeFile(backup, bytes, { mode: 0o600 }).pipe(Effect.mapError(fail(stream, backup, "written")))
          return {
            text: lossyUtf8.decode(bytes),
            note: `${path.basename(target)} was not valid UTF-8; invalid bytes became U+FFFD, original kept in ${path.basename(backup)}`
          }
        }
      })

    /** Moves a partial last line (a crash during append) aside and cuts the journal back to its last whole batch. */
    const cutTornTail = (stream: string, p: string, tail: Tail) =>
      Effect.gen(function* () {
        const bytes = yield* fs.readFile(p).pipe(Effect.mapError(fail(stream, p, "read")))
        yield* appendDurably(stream, `${p}.torn`, bytes.subarray(tail.complete))
        yield* fs.truncate(p, tail.complete).pipe(Effect.mapError(fail(stream, p, "truncated")))
        yield* Effect.scoped(Effect.flatMap(fs.open(p, { flag: "r+" }), (f) => f.sync)).pipe(Effect.mapError(fail(stream, p, "synced")))
        yield* Effect.logWarning(
          `memory: ${rel(p)} ended in a partial batch (a crash during a write); ${tail.size - tail.complete} bytes moved to ${rel(p)}.torn`
        )
      })

    const removeStrayTemps = (target: string) =>
      fs.readDirectory(path.dirname(target)).pipe(
        Effect.flatMap((names) =>
          Effect.forEach(
            names.filter((n) => n.startsWith(`.${path.basename(target)}.tmp-`)),
            (n) => fs.remove(path.join(path.dirname(target), n)),
            { discard: true }
          )
        ),
        Effect.ignore
      )

    /**
     * The stream's true state with the lock held, repairing whatever a crash or a person left behind:
     * a partial journal line, a projection one batch behind, a missing projection, a hand edit, or a directory
     * with files but no journal (imported).
     */
    const reconcile = <S, E>(stream: string, codec: StreamCodec<S, E>): Effect.Effect<Loaded<S, E>, StoreError> =>
      Effect.gen(function* () {
        const jp = journalPath(stream)
        let tail = yield* readTail(stream, jp)
        if (tail.complete < tail.size) {
          yield* cutTornTail(stream, jp, tail)
          tail = yield* readTail(stream, jp)
        }
        const target = projectionPath(stream)
        const text = codec.text
        if (target === undefined || text === undefined) return { ...(yield* foldAll(stream, codec)), recorded: [] }
        yield* removeStrayTemps(target)
        const bytes = yield* readOptional(stream, target)
        const at = yield* nowIso
        if (tail.last === undefined) {
          if (bytes === undefined) return { state: codec.initialState, version: 0, recorded: [] }
          const adopted = yield* adoptText(stream, target, bytes, 0)
          if (trimSpace(adopted.text) === "") return { state: codec.initialState, version: 0, recorded: [] }
          const events = text.imported(adopted.text, at)
          const done = yield* commit(stream, codec, codec.initialState, 0, events, at)
          return { state: done.state, version: done.batch.version, recorded: [done.batch] }
        }
        const last = tail.last
        const hash = bytes === undefined ? undefined : sha256(bytes)
        if (hash === last.projectionHash) return { state: text.parse(strictUtf8.decode(bytes!)), version: last.version, recorded: [] }
        const full = yield* foldAll(stream, codec)
        if (bytes === undefined) {
          // A deleted projection is restored rather than read as "forget everything": emptying the file is how to clear it.
          yield* writeProjection(stream, target, text.render(full.state))
          return { ...full, recorded: [] }
        }
        const prevHash = tail.prev?.projectionHash ?? EMPTY_HASH
        const mtime = yield* fs.stat(target).pipe(
          Effect.map((i) => Option_getTime(i.mtime)),
          Effect.mapError(fail(stream, target, "read"))
        )
        // One batch behind and not touched since the journal was: a crash between append and rename.
        if (hash === prevHash && mtime <= tail.mtimeMs) {
          yield* writeProjection(stream, target, text.render(full.state))
          yield* Effect.logWarning(`memory: ${rel(target)} was one write behind its journal (a crash); re-projected`)
          return { ...full, recorded: [] }
        }
        const adopted = yield* adoptText(stream, target, bytes, last.version)
        const events = text.editedExternally(adopted.text, full.state, at, adopted.note)
        const done = yield* commit(stream, codec, full.state, full.version, events, at)
        return { state: done.state, version: done.batch.version, recorded: [done.batch] }
      })

    /** Lock-free fast path: the projection's hash matches the journal's last batch, so the projection is the state. */
    const tryFastLoad = <S, E>(stream: string, codec: StreamCodec<S, E>) =>
      Effect.gen(function* () {
        const jp = journalPath(stream)
        const tail = yield* readTail(stream, jp)
        if (tail.complete < tail.size) return undefined
        const target = projectionPath(stream)
        const text = codec.text
        if (target === undefined || text === undefined) {
          if (!tail.exists) return { state: codec.initialState, version: 0, recorded: [] }
          return undefined
        }
        const bytes = yield* readOptional(stream, target)
        if (tail.last === undefined) {
          if (bytes === undefined) return { state: codec.initialState, version: 0, recorded: [] }
          return undefined
        }
        if (bytes === undefined || sha256(bytes) !== tail.last.projectionHash) return undefined
        const decoded = Either.try(() => strictUtf8.decode(bytes))
        if (Either.isLeft(decoded)) return undefined
        return { state: text.parse(decoded.right), version: tail.last.version, recorded: [] }
      })

    return EventStore.of({
      load: <S, E>(stream: string, codec: StreamCodec<S, E>) =>
        Effect.gen(function* () {
          yield* checkStream(stream)
          const fast = yield* tryFastLoad(stream, codec)
          if (fast !== undefined) return fast as Loaded<S, E>
          // Without a projection to trust, fold the journal; repairs need the lock, plain folding does not.
          if (projectionPath(stream) === undefined || codec.text === undefined) {
            const tail = yield* readTail(stream, journalPath(stream))
            if (tail.complete === tail.size) return { ...(yield* foldAll(stream, codec)), recorded: [] }
          }
          return yield* withLock(stream, reconcile(stream, codec))
        }),
      read: (stream, codec, fromVersion = 0) =>
        Effect.zipRight(
          checkStream(stream),
          Effect.map(readAll(stream, codec), (batches) => batches.filter((b) => b.version > fromVersion))
        ),
      append: <S, E>(stream: string, codec: StreamCodec<S, E>, expectedVersion: number, events: ReadonlyArray<E>, at: string) =>
        Effect.gen(function* () {
          yield* checkStream(stream)
          return yield* withLock(
            stream,
            Effect.gen(function* () {
              const current = yield* reconcile(stream, codec)
              if (current.version !== expectedVersion)
                return yield* Effect.fail(new VersionConflict({ stream, expected: expectedVersion, actual: current.version }))
              if (events.length === 0) return { state: current.state, batch: { version: current.version, at, events: [] } }
              return yield* commit(stream, codec, current.state, current.version, events, at)
            })
          )
        })
    })
  })

const Option_getTime = (o: { _tag: "Some"; value: Date } | { _tag: "None" }): number => (o._tag === "Some" ? o.value.getTime() : 0)

/** The disk store; needs FileSystem and Path (NodeContext in production). */
export const layer = (options: DiskOptions) => Layer.effect(EventStore, make(options))
