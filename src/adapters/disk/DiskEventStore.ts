import { Effect, Either, Layer, Schema } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { foldEvents } from "../../domain/kernel/Decider.js"
import { type Batch, batchCodec, isValidStreamName, type StreamCodec } from "../../domain/kernel/Stream.js"
import { trimSpace } from "../../domain/text/utf8.js"
import { type Appended, EventStore, type Loaded, StoreError, VersionConflict } from "../../ports/EventStore.js"
import { nowIso } from "../../app/clock.js"
import { oneLine, storeError } from "./errors.js"
import * as Files from "./files.js"
import * as Lock from "./lock.js"

/** Where each projected stream is written, relative to the memory directory (odek's layout). */
export const PROJECTION_FILES: Readonly<Record<string, string>> = { "facts/user": "user.md", "facts/env": "env.md" }

export interface DiskOptions {
  /** The memory directory; created (0700) on the first write. */
  readonly dir: string
  /** How long a writer waits for another process's lock before giving up, in ms. */
  readonly lockWaitMs?: number
  /** Crash-test hook: runs after the journal line is durable and before the projection is renamed into place. */
  readonly beforeProjectionRename?: (stream: string) => void
  /** Test hook: runs under the lock just before a batch's journal line is checked against the journal and appended. */
  readonly beforeJournalAppend?: (stream: string) => void
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

/** The end of a journal: its last two complete batches, and where the last complete line ends. */
interface Tail {
  readonly exists: boolean
  readonly size: number
  /** Offset just past the last complete line; less than `size` when a crash left a partial line. */
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

/** Thrown inside the synchronous parts and turned into the typed error at their boundary. */
class Failure extends Error {
  /** `conflict`: the journal moved on under the lock; an append reports it as the conflict it is. */
  constructor(readonly error: StoreError, readonly conflict?: VersionConflict) {
    super(error.message)
  }
}

export const make = (options: DiskOptions) =>
  Effect.sync(() => {
    const dir = path.resolve(options.dir)
    const lockWaitMs = options.lockWaitMs ?? 30_000

    const journalPath = (stream: string) => path.join(dir, "journal", `${stream}.jsonl`)
    const projectionPath = (stream: string) => {
      const file = PROJECTION_FILES[stream]
      return file === undefined ? undefined : path.join(dir, file)
    }
    const rel = (p: string) => path.relative(dir, p) || "."
    const shown = (p: string) => (p === dir ? dir : `${dir}/${rel(p)}`)

    /** Runs synchronous file work, turning any failure into a one-line StoreError about `p`. */
    const io = <A>(stream: string, p: string, action: string, f: () => A): A => {
      try {
        return f()
      } catch (e) {
        if (e instanceof Failure) throw e
        throw new Failure(storeError(stream, shown(p), action, e))
      }
    }
    const failureOf = (e: unknown) => (e instanceof Failure ? e.error : new StoreError({ stream: "", text: `memory: ${oneLine(e)}` }))
    const attempt = <A>(f: () => A): Effect.Effect<A, StoreError> => Effect.try({ try: f, catch: failureOf })

    const checkStream = (stream: string) =>
      isValidStreamName(stream) ? Effect.void : Effect.fail(new StoreError({ stream, text: `memory: invalid stream name ${JSON.stringify(stream)}` }))

    const damaged = (stream: string, p: string, lineNo: number, why: string) =>
      new Failure(
        new StoreError({
          stream,
          text: `memory: ${rel(p)} line ${lineNo} is damaged (${why}); restore the journal from a backup, or move it aside to re-import the files`
        })
      )

    const parseLine = (text: string): Either.Either<JournalLine, string> => {
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch (e) {
        return Either.left(`invalid JSON: ${oneLine(e)}`)
      }
      return Either.mapLeft(decodeLine(json), () => "not a batch: it needs version, at and events")
    }

    /** Every complete line of a journal with its number; the partial tail a crash may leave is not a line. */
    const completeLines = (bytes: Uint8Array | undefined): Array<string> => {
      if (bytes === undefined) return []
      const text = lossyUtf8.decode(bytes)
      const end = text.lastIndexOf("\n")
      return end < 0 ? [] : text.slice(0, end).split("\n")
    }

    /** Names the first damaged line exactly (the tail reader only sees the end). */
    const locateDamage = (stream: string, p: string): Failure => {
      const lines = completeLines(io(stream, p, "read", () => Files.readOptional(p)))
      for (const [i, l] of lines.entries()) {
        const r = parseLine(l)
        if (Either.isLeft(r)) return damaged(stream, p, i + 1, r.left)
      }
      return damaged(stream, p, lines.length, "unreadable")
    }

    /** Reads only the end of the journal: enough to know the version and the last two projection hashes. */
    const readTail = (stream: string, p: string): Tail =>
      io(stream, p, "read", () => {
        let fd: number
        try {
          fd = fs.openSync(p, "r")
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === "ENOENT")
            return { exists: false, size: 0, complete: 0, last: undefined, prev: undefined, mtimeMs: 0 }
          throw e
        }
        try {
          const info = fs.fstatSync(fd)
          const size = info.size
          let chunk = Math.min(size, 4 * 1024)
          for (;;) {
            const start = size - chunk
            const buf = Files.readRange(fd, start, chunk)
            const lastNl = buf.lastIndexOf(10)
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
            const parse = (t: string | undefined) => {
              if (t === undefined) return undefined
              const r = parseLine(t)
              if (Either.isLeft(r)) throw locateDamage(stream, p)
              return r.right
            }
            const last = parse(whole[whole.length - 1])
            const prev = parse(whole[whole.length - 2])
            return { exists: true, size, complete, last, prev, mtimeMs: info.mtimeMs }
          }
        } finally {
          fs.closeSync(fd)
        }
      })

    /** Every complete batch of the journal, decoded and checked for a gapless version chain. */
    const readAll = <S, E>(stream: string, codec: StreamCodec<S, E>): ReadonlyArray<Batch<E>> => {
      const p = journalPath(stream)
      const lines = completeLines(io(stream, p, "read", () => Files.readOptional(p)))
      const decodeEvents = batchCodec(codec).decode
      const batches: Array<Batch<E>> = []
      let version = 0
      for (const [i, text] of lines.entries()) {
        const line = parseLine(text)
        if (Either.isLeft(line)) throw damaged(stream, p, i + 1, line.left)
        const events = decodeEvents(line.right.events)
        if (Either.isLeft(events)) throw damaged(stream, p, i + 1, "holds an event this version of tmem cannot read")
        if (events.right.length === 0 || line.right.version !== version + events.right.length)
          throw damaged(stream, p, i + 1, `version ${line.right.version} does not follow ${version}`)
        version = line.right.version
        batches.push({ version, at: line.right.at, events: events.right })
      }
      return batches
    }

    const foldAll = <S, E>(stream: string, codec: StreamCodec<S, E>) => {
      const batches = readAll(stream, codec)
      return {
        state: foldEvents(codec.evolve, codec.initialState, batches.flatMap((b) => b.events)),
        version: batches.length === 0 ? 0 : batches[batches.length - 1]!.version
      }
    }

    const statOptional = (p: string) => {
      try {
        return fs.statSync(p)
      } catch {
        return undefined
      }
    }
    /** Manifests whose hash was checked against the journal, with the sizes and mtimes they had then. */
    const verified = new Map<string, { readonly journal: string; readonly manifest: string }>()

    // Multi-file projections are never read back, so their streams are folded from the journal; the fold is kept
    // per journal and reused while the journal's size and mtime are unchanged.
    const folds = new Map<string, { readonly size: number; readonly mtimeMs: number; readonly state: unknown; readonly version: number }>()
    const foldCached = <S, E>(stream: string, codec: StreamCodec<S, E>, tail: Tail): { state: S; version: number } => {
      const jp = journalPath(stream)
      const hit = folds.get(jp)
      if (hit !== undefined && hit.size === tail.size && hit.mtimeMs === tail.mtimeMs) return { state: hit.state as S, version: hit.version }
      const full = foldAll(stream, codec)
      folds.set(jp, { size: tail.size, mtimeMs: tail.mtimeMs, state: full.state, version: full.version })
      return full
    }
    const remember = (stream: string, state: unknown, version: number) => {
      const jp = journalPath(stream)
      try {
        const info = fs.statSync(jp)
        folds.set(jp, { size: info.size, mtimeMs: info.mtimeMs, state, version })
      } catch {
        folds.delete(jp)
      }
    }

    /** The files of a multi-file projection as absolute paths; a name that is not a plain file name is refused. */
    const projectedFiles = (stream: string, rendered: ReadonlyMap<string, string>) =>
      [...rendered].map(([name, content]) => {
        if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\\") || name.includes("\0"))
          throw new Failure(new StoreError({ stream, text: `memory: refusing to write ${JSON.stringify(name)} outside ${dir}` }))
        return [name, path.join(dir, name), content] as const
      })

    /** Rewrites every file of a multi-file projection now (repairs; rare). The manifest goes last. */
    const reprojectFiles = <S, E>(stream: string, codec: StreamCodec<S, E>, state: S) => {
      const files = codec.files!
      const all = projectedFiles(stream, files.render(state))
      const ordered = [...all.filter(([n]) => n !== files.manifest), ...all.filter(([n]) => n === files.manifest)]
      for (const [, target, content] of ordered) io(stream, target, "write", () => writeProjectionNow(target, content))
    }

    /** The version of the journal's last complete line, read backwards through `fd`; "partial" when it ends mid-line. */
    const lastVersionAt = (stream: string, jp: string, fd: number): number | "partial" => {
      const size = fs.fstatSync(fd).size
      if (size === 0) return 0
      for (let chunk = Math.min(size, 4096); ; chunk = Math.min(size, chunk * 4)) {
        const buf = Files.readRange(fd, size - chunk, chunk)
        if (buf[buf.length - 1] !== 10) return "partial"
        const start = buf.lastIndexOf(10, buf.length - 2) + 1
        if (start === 0 && chunk < size) continue
        const line = parseLine(lossyUtf8.decode(buf.subarray(start, buf.length - 1)))
        if (Either.isLeft(line)) throw locateDamage(stream, jp)
        return line.right.version
      }
    }

    /**
     * Appends a batch's line only onto the batch it follows. The lock makes a mismatch impossible; should the lock ever
     * fail (its file deleted by hand, a file system whose locks do nothing), the last line is re-read through the very
     * descriptor the line is appended with, just before writing, so the journal never gets two batches with one version.
     */
    const appendBatch = (stream: string, jp: string, versionBefore: number, bytes: Uint8Array): Files.Pending =>
      io(stream, jp, "append to", () => {
        options.beforeJournalAppend?.(stream)
        const fd = fs.openSync(jp, "a+", 0o600)
        try {
          const found = lastVersionAt(stream, jp, fd)
          if (found !== versionBefore) {
            const text = found === "partial"
              ? `memory: ${rel(jp)} ends in a partial line written since the lock was taken (another writer got past the lock); nothing was written; retry`
              : `memory: ${rel(jp)} already ends at version ${found}, so a batch following version ${versionBefore} was refused and nothing was written (another writer got past the lock); retry`
            const conflict = found === "partial" ? undefined : new VersionConflict({ stream, expected: versionBefore, actual: found })
            throw new Failure(new StoreError({ stream, text }), conflict)
          }
          Files.writeAll(fd, bytes)
        } catch (e) {
          fs.closeSync(fd)
          throw e
        }
        return { fd, path: jp }
      })

    /** A batch written to disk but not yet durable; `finish` makes it so and puts the projection in place. */
    interface Staged<S, E> {
      readonly result: Appended<S, E>
      readonly finish: Effect.Effect<void, StoreError>
    }

    /**
     * Writes a batch's journal line and its new projection (to a temp file). Both are fsynced in parallel, one disk
     * flush instead of two; the projection is renamed into place only once both are durable, so a crash leaves either
     * the old projection (repaired on load: it is one batch behind) or the new one, never a torn file.
     */
    const stage = <S, E>(stream: string, codec: StreamCodec<S, E>, stateBefore: S, versionBefore: number, events: ReadonlyArray<E>, at: string): Staged<S, E> => {
      const state = foldEvents(codec.evolve, stateBefore, events)
      const version = versionBefore + events.length
      const encoded = batchCodec(codec).encode(events)
      if (Either.isLeft(encoded)) throw new Failure(new StoreError({ stream, text: `memory: cannot encode events for ${stream}: ${oneLine(encoded.left.message)}` }))
      if (codec.files !== undefined) return stageFiles(stream, codec, stateBefore, state, version, encoded.right as ReadonlyArray<unknown>, events, at)
      const target = projectionPath(stream)
      const rendered = target !== undefined && codec.text !== undefined ? utf8.encode(codec.text.render(state)) : undefined
      const line: JournalLine =
        rendered === undefined
          ? { version, at, events: encoded.right as ReadonlyArray<unknown> }
          : { version, at, events: encoded.right as ReadonlyArray<unknown>, projectionHash: sha256(rendered) }
      const jp = journalPath(stream)
      const createdJournal = !fs.existsSync(jp)
      const temp = rendered !== undefined && target !== undefined ? io(stream, target, "write", () => Files.writeTemp(target, rendered)) : undefined
      let journal: Files.Pending
      try {
        journal = appendBatch(stream, jp, versionBefore, utf8.encode(`${JSON.stringify(line)}\n`))
      } catch (e) {
        if (temp !== undefined) {
          Files.closeQuietly(temp)
          fs.rmSync(temp.path, { force: true })
        }
        throw e
      }
      const finish = Effect.gen(function* () {
        // One promise for both flushes: they run side by side in the thread pool.
        const [t, j] = yield* Effect.promise(() =>
          Promise.allSettled([temp === undefined ? Promise.resolve() : Files.syncAndClose(temp), Files.syncAndClose(journal)])
        )
        // The journal decides: if its line is not durable the write failed; if only the projection failed, the
        // next load sees a projection one batch behind and repairs it.
        if (j.status === "rejected") {
          if (temp !== undefined) fs.rmSync(temp.path, { force: true })
          return yield* Effect.fail(storeError(stream, shown(jp), "sync", j.reason))
        }
        yield* attempt(() => {
          if (createdJournal) io(stream, path.dirname(jp), "sync", () => Files.fsyncDir(path.dirname(jp)))
          if (temp === undefined || target === undefined) return
          if (t.status === "rejected") {
            fs.rmSync(temp.path, { force: true })
            return
          }
          options.beforeProjectionRename?.(stream)
          try {
            fs.renameSync(temp.path, target)
          } catch {
            fs.rmSync(temp.path, { force: true })
          }
        })
      })
      return { result: { state, batch: { version, at, events } }, finish }
    }

    /**
     * A batch of a multi-file projection: the changed files go to temp files, fsynced with the journal line in
     * parallel; then they are renamed into place with the manifest last, and files the new state no longer has are
     * removed. A crash leaves the journal ahead of some files; the next load sees the manifest's hash behind and
     * re-projects.
     */
    const stageFiles = <S, E>(
      stream: string,
      codec: StreamCodec<S, E>,
      stateBefore: S,
      state: S,
      version: number,
      encoded: ReadonlyArray<unknown>,
      events: ReadonlyArray<E>,
      at: string
    ): Staged<S, E> => {
      const files = codec.files!
      const before = files.render(stateBefore)
      const after = files.render(state)
      const manifest = after.get(files.manifest) ?? ""
      const line: JournalLine = { version, at, events: encoded, projectionHash: sha256(utf8.encode(manifest)) }
      const changed = projectedFiles(stream, after).filter(([name, , content]) => before.get(name) !== content || name === files.manifest)
      const ordered = [...changed.filter(([n]) => n !== files.manifest), ...changed.filter(([n]) => n === files.manifest)]
      const removed = projectedFiles(stream, new Map([...before].filter(([name]) => !after.has(name))))
      const jp = journalPath(stream)
      const createdJournal = !fs.existsSync(jp)
      const temps: Array<{ readonly pending: Files.Pending; readonly target: string }> = []
      let journal: Files.Pending
      try {
        for (const [, target, content] of ordered) temps.push({ pending: io(stream, target, "write", () => Files.writeTemp(target, utf8.encode(content))), target })
        journal = appendBatch(stream, jp, version - events.length, utf8.encode(`${JSON.stringify(line)}\n`))
      } catch (e) {
        for (const t of temps) {
          Files.closeQuietly(t.pending)
          fs.rmSync(t.pending.path, { force: true })
        }
        throw e
      }
      const finish = Effect.gen(function* () {
        const settled = yield* Effect.promise(() => Promise.allSettled([Files.syncAndClose(journal), ...temps.map((t) => Files.syncAndClose(t.pending))]))
        if (settled[0]!.status === "rejected") {
          for (const t of temps) fs.rmSync(t.pending.path, { force: true })
          return yield* Effect.fail(storeError(stream, shown(jp), "sync", settled[0]!.reason))
        }
        yield* attempt(() => {
          if (createdJournal) io(stream, path.dirname(jp), "sync", () => Files.fsyncDir(path.dirname(jp)))
          options.beforeProjectionRename?.(stream)
          temps.forEach((t, i) => {
            try {
              if (settled[i + 1]!.status === "rejected") throw new Error("not durable")
              fs.renameSync(t.pending.path, t.target)
            } catch {
              // the projection lags; the next load re-projects from the journal
              fs.rmSync(t.pending.path, { force: true })
            }
          })
          for (const [, target] of removed) fs.rmSync(target, { force: true })
          remember(stream, state, version)
        })
      })
      return { result: { state, batch: { version, at, events } }, finish }
    }

    const commit = <S, E>(stream: string, codec: StreamCodec<S, E>, stateBefore: S, versionBefore: number, events: ReadonlyArray<E>, at: string) =>
      Effect.flatMap(
        Effect.try({
          try: () => stage(stream, codec, stateBefore, versionBefore, events, at),
          catch: (e) => (e instanceof Failure && e.conflict !== undefined ? e.conflict : failureOf(e))
        }),
        (s) => Effect.as(s.finish, s.result)
      )

    /** Takes the stream's kernel lock (./lock.ts), waiting with jittered back-off up to lockWaitMs for another holder. */
    const acquireLock = (stream: string, jp: string) =>
      Effect.suspend(() => {
        try {
          if (io(stream, path.dirname(jp), "create", () => Files.ensureDir(path.dirname(jp)))) io(stream, dir, "sync", () => Files.fsyncDir(dir))
        } catch (e) {
          return Effect.fail(failureOf(e))
        }
        const lockPath = `${jp}.lock`
        return Effect.mapError(Lock.acquire(lockPath, lockWaitMs), (e) =>
          e instanceof Lock.LockBusy
            ? new StoreError({
                stream,
                text: `memory: cannot lock ${shown(lockPath)}: another tmem process has held it for over ${Math.round(e.waitedMs / 100) / 10} s (stopped or hung?); end that process (its lock goes with it) and retry`
              })
            : storeError(stream, shown(lockPath), "lock", e)
        )
      })

    const withLock = <A, Err>(stream: string, effect: Effect.Effect<A, Err>): Effect.Effect<A, Err | StoreError> => {
      const jp = journalPath(stream)
      return mutexFor(jp).withPermits(1)(
        Effect.acquireUseRelease(acquireLock(stream, jp), () => effect, (fd) => Effect.sync(() => Lock.release(fd)))
      )
    }

    /** Text of a projection a person touched. Invalid UTF-8 is kept byte for byte in a backup beside it. */
    const adoptText = (stream: string, target: string, bytes: Uint8Array, version: number) => {
      try {
        return { text: strictUtf8.decode(bytes), note: undefined as string | undefined }
      } catch {
        const backup = `${target}.invalid-utf8-v${version}`
        io(stream, backup, "write", () => fs.writeFileSync(backup, bytes, { mode: 0o600 }))
        return {
          text: lossyUtf8.decode(bytes),
          note: `${path.basename(target)} was not valid UTF-8; invalid bytes became U+FFFD, original kept in ${path.basename(backup)}`
        }
      }
    }

    /** Moves a partial last line (a crash during append) aside and cuts the journal back to its last whole batch. */
    const cutTornTail = (stream: string, p: string, tail: Tail) =>
      io(stream, p, "repair", () => {
        const bytes = fs.readFileSync(p)
        const torn = Files.appendTo(`${p}.torn`, bytes.subarray(tail.complete))
        fs.fsyncSync(torn.fd)
        fs.closeSync(torn.fd)
        fs.truncateSync(p, tail.complete)
        const fd = fs.openSync(p, "r+")
        fs.fsyncSync(fd)
        fs.closeSync(fd)
        return `memory: ${rel(p)} ended in a partial batch (a crash during a write); ${tail.size - tail.complete} bytes moved to ${rel(p)}.torn`
      })

    const removeStrayTemps = (target: string) => {
      try {
        const prefix = `.${path.basename(target)}.tmp-`
        for (const n of fs.readdirSync(path.dirname(target))) if (n.startsWith(prefix)) fs.rmSync(path.join(path.dirname(target), n), { force: true })
      } catch {
        // best effort: a stray temp file is harmless
      }
    }

    /**
     * The stream's true state with the lock held, repairing whatever a crash or a person left behind: a partial
     * journal line, a projection one batch behind, a missing projection, a hand edit, or a directory with files but
     * no journal (imported). Returns the staged write of any event it had to record, or the state as is.
     */
    const reconcile = <S, E>(stream: string, codec: StreamCodec<S, E>, at: string) =>
      Effect.gen(function* () {
        const jp = journalPath(stream)
        const warnings: Array<string> = []
        const outcome = yield* attempt((): Loaded<S, E> | { readonly staged: Staged<S, E> } => {
          let tail = readTail(stream, jp)
          if (tail.complete < tail.size) {
            warnings.push(cutTornTail(stream, jp, tail))
            tail = readTail(stream, jp)
          }
          if (codec.files !== undefined) return reconcileFiles(stream, codec, tail, at, warnings)
          const target = projectionPath(stream)
          const text = codec.text
          if (target === undefined || text === undefined) return { ...foldAll(stream, codec), recorded: [] }
          const bytes = io(stream, target, "read", () => Files.readOptional(target))
          const hash = bytes === undefined ? undefined : sha256(bytes)
          if (tail.last !== undefined && hash === tail.last.projectionHash)
            return { state: text.parse(strictUtf8.decode(bytes!)), version: tail.last.version, recorded: [] }
          removeStrayTemps(target)
          if (tail.last === undefined) {
            if (bytes === undefined) return { state: codec.initialState, version: 0, recorded: [] }
            const adopted = adoptText(stream, target, bytes, 0)
            if (trimSpace(adopted.text) === "") return { state: codec.initialState, version: 0, recorded: [] }
            return { staged: stage(stream, codec, codec.initialState, 0, text.imported(adopted.text, at), at) }
          }
          const full = foldAll(stream, codec)
          if (bytes === undefined) {
            // A deleted projection is restored rather than read as "forget everything": emptying the file is how to clear it.
            io(stream, target, "write", () => writeProjectionNow(target, text.render(full.state)))
            return { ...full, recorded: [] }
          }
          const prevHash = tail.prev?.projectionHash ?? EMPTY_HASH
          const mtime = io(stream, target, "read", () => Files.mtimeMs(target)) ?? 0
          // One batch behind and not touched since the journal was: a crash between append and rename.
          if (hash === prevHash && mtime <= tail.mtimeMs) {
            io(stream, target, "write", () => writeProjectionNow(target, text.render(full.state)))
            warnings.push(`memory: ${rel(target)} was one write behind its journal (a crash); re-projected`)
            return { ...full, recorded: [] }
          }
          const adopted = adoptText(stream, target, bytes, tail.last.version)
          return { staged: stage(stream, codec, full.state, full.version, text.editedExternally(adopted.text, full.state, at, adopted.note), at) }
        })
        for (const w of warnings) yield* Effect.logWarning(w)
        if ("staged" in outcome) {
          yield* outcome.staged.finish
          const r = outcome.staged.result
          return { state: r.state, version: r.batch.version, recorded: [r.batch] } satisfies Loaded<S, E>
        }
        return outcome
      })

    /**
     * A multi-file projection under the lock: adopt an odek directory found without a journal; otherwise the journal
     * decides, and a manifest that does not match it is rewritten — after a crash silently, after an outside edit
     * with the edited file kept beside it and a warning, since an edit of the index must never change trust.
     */
    const reconcileFiles = <S, E>(stream: string, codec: StreamCodec<S, E>, tail: Tail, at: string, warnings: Array<string>): Loaded<S, E> | { readonly staged: Staged<S, E> } => {
      const files = codec.files!
      const manifestPath = path.join(dir, files.manifest)
      const read = (name: string) => {
        try {
          const bytes = Files.readOptional(path.join(dir, name))
          return bytes === undefined ? undefined : lossyUtf8.decode(bytes)
        } catch {
          return undefined
        }
      }
      if (tail.last === undefined) {
        const events = files.imported(read, at)
        if (events.length === 0) return { state: codec.initialState, version: 0, recorded: [] }
        return { staged: stage(stream, codec, codec.initialState, 0, events, at) }
      }
      const full = foldCached(stream, codec, tail)
      const bytes = io(stream, manifestPath, "read", () => Files.readOptional(manifestPath))
      const hash = bytes === undefined ? undefined : sha256(bytes)
      if (hash === tail.last.projectionHash) return { ...full, recorded: [] }
      removeStrayTemps(manifestPath)
      const mtime = io(stream, manifestPath, "read", () => Files.mtimeMs(manifestPath)) ?? 0
      const crash = bytes === undefined || (hash === tail.prev?.projectionHash && mtime <= tail.mtimeMs)
      if (!crash) {
        const kept = `${manifestPath}.edited-v${full.version}`
        io(stream, kept, "write", () => fs.writeFileSync(kept, bytes!, { mode: 0o600 }))
        warnings.push(
          `memory: ${rel(manifestPath)} was changed outside tmem; the journal decides which episodes exist and which are trusted, so it was rewritten (the edited file is kept as ${rel(kept)})`
        )
      } else if (bytes !== undefined) warnings.push(`memory: ${rel(manifestPath)} was behind its journal (a crash); re-projected`)
      reprojectFiles(stream, codec, full.state)
      return { ...full, recorded: [] }
    }

    /** Repairs write the projection durably in one go; they are rare, so no parallel trick is needed. */
    const writeProjectionNow = (target: string, text: string) => {
      const temp = Files.writeTemp(target, utf8.encode(text))
      fs.fsyncSync(temp.fd)
      fs.closeSync(temp.fd)
      fs.renameSync(temp.path, target)
    }

    /** Lock-free fast path: the projection's hash matches the journal's last batch, so the projection is the state. */
    const tryFastLoad = <S, E>(stream: string, codec: StreamCodec<S, E>): Loaded<S, E> | undefined => {
      if (codec.files !== undefined) {
        // nothing moved since the last verified load: not even the journal's tail needs reading (its last line can
        // be an import of thousands of episodes)
        const jp = journalPath(stream)
        const manifestPath = path.join(dir, codec.files.manifest)
        const [j, m, known, hit] = [statOptional(jp), statOptional(manifestPath), verified.get(manifestPath), folds.get(jp)]
        if (j !== undefined && m !== undefined && known !== undefined && hit !== undefined &&
          known.journal === `${j.size}:${j.mtimeMs}` && known.manifest === `${m.size}:${m.mtimeMs}` && hit.size === j.size && hit.mtimeMs === j.mtimeMs)
          return { state: hit.state as S, version: hit.version, recorded: [] }
      }
      const tail = readTail(stream, journalPath(stream))
      if (tail.complete < tail.size) return undefined
      if (codec.files !== undefined) {
        const manifestPath = path.join(dir, codec.files.manifest)
        // the manifest can be large (an index of thousands of episodes): re-hash it only when it or the journal moved
        const seen = statOptional(manifestPath)
        const known = verified.get(manifestPath)
        if (tail.last !== undefined && seen !== undefined && known !== undefined && known.journal === `${tail.size}:${tail.mtimeMs}` && known.manifest === `${seen.size}:${seen.mtimeMs}`)
          return { ...foldCached(stream, codec, tail), recorded: [] }
        const bytes = io(stream, manifestPath, "read", () => Files.readOptional(manifestPath))
        if (tail.last === undefined) return bytes === undefined ? { state: codec.initialState, version: 0, recorded: [] } : undefined
        if (bytes === undefined || sha256(bytes) !== tail.last.projectionHash) return undefined
        if (seen !== undefined) verified.set(manifestPath, { journal: `${tail.size}:${tail.mtimeMs}`, manifest: `${seen.size}:${seen.mtimeMs}` })
        return { ...foldCached(stream, codec, tail), recorded: [] }
      }
      const target = projectionPath(stream)
      const text = codec.text
      if (target === undefined || text === undefined) return tail.exists ? { ...foldAll(stream, codec), recorded: [] } : { state: codec.initialState, version: 0, recorded: [] }
      const bytes = io(stream, target, "read", () => Files.readOptional(target))
      if (tail.last === undefined) return bytes === undefined ? { state: codec.initialState, version: 0, recorded: [] } : undefined
      if (bytes === undefined || sha256(bytes) !== tail.last.projectionHash) return undefined
      const decoded = Either.try(() => strictUtf8.decode(bytes))
      return Either.isLeft(decoded) ? undefined : { state: text.parse(decoded.right), version: tail.last.version, recorded: [] }
    }


    // Batches the store recorded while an append was refused (a hand edit found under the lock); the caller's
    // retry loads again, and that load reports them, so the edit's lifecycle event is not lost.
    const pending = new Map<string, Array<Batch<unknown>>>()
    const takePending = <E>(stream: string): ReadonlyArray<Batch<E>> => {
      const batches = pending.get(stream) ?? []
      pending.delete(stream)
      return batches as ReadonlyArray<Batch<E>>
    }

    return EventStore.of({
      load: <S, E>(stream: string, codec: StreamCodec<S, E>) =>
        Effect.gen(function* () {
          yield* checkStream(stream)
          const fast = yield* attempt(() => tryFastLoad(stream, codec))
          const loaded = fast ?? (yield* withLock(stream, reconcile(stream, codec, yield* nowIso)))
          const earlier = takePending<E>(stream)
          return earlier.length === 0 ? loaded : { ...loaded, recorded: [...earlier, ...loaded.recorded] }
        }),
      read: (stream, codec, fromVersion = 0) =>
        Effect.zipRight(checkStream(stream), attempt(() => readAll(stream, codec).filter((b) => b.version > fromVersion))),
      append: <S, E>(stream: string, codec: StreamCodec<S, E>, expectedVersion: number, events: ReadonlyArray<E>, at: string) =>
        Effect.gen(function* () {
          yield* checkStream(stream)
          return yield* withLock(
            stream,
            Effect.gen(function* () {
              const current = yield* reconcile(stream, codec, at)
              if (current.version !== expectedVersion) {
                if (current.recorded.length > 0) pending.set(stream, [...(pending.get(stream) ?? []), ...current.recorded])
                return yield* Effect.fail(new VersionConflict({ stream, expected: expectedVersion, actual: current.version }))
              }
              if (events.length === 0) return { state: current.state, batch: { version: current.version, at, events: [] } }
              return yield* commit(stream, codec, current.state, current.version, events, at)
            })
          )
        })
    })
  })

/** The disk store (node:fs; no platform services needed). */
export const layer = (options: DiskOptions) => Layer.effect(EventStore, make(options))
