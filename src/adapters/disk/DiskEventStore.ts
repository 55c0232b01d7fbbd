import { Duration, Effect, Either, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  type Batch,
  batchCodec,
  type CodecOf,
  type FeedEntry,
  foldStream,
  isValidConsumerName,
  isValidStreamName,
  type FilesProjection,
  type Projections,
  type StreamCodec,
  type TextProjection
} from "../../domain/kernel/Stream.js"
import { odekProjections } from "../../domain/odek/projections.js"
import { trimSpace } from "../../domain/text/utf8.js"
import { type Appended, EventStore, type Loaded, StoreError, VersionConflict } from "../../ports/EventStore.js"
import { pollingSubscribe } from "../feedPolling.js"
import { nowIso } from "../../app/clock.js"
import { oneLine, storeError } from "./errors.js"
import { bytesMemo } from "./bytesMemo.js"
import * as Feed from "./feed.js"
import {
  completeLines,
  EMPTY_HASH,
  encodeLine,
  type JournalLine,
  type LineHead,
  lineChecksum,
  lossyUtf8,
  sha256,
  splitLines,
  strictUtf8,
  type Tail,
  utf8,
  verifyLine
} from "./journal.js"
import * as Files from "./files.js"
import * as Snapshots from "./snapshots.js"
import * as Lock from "./lock.js"

export interface DiskOptions {
  /** The memory directory; created (0700) on the first write. */
  readonly dir: string
  /** The files the streams are projected onto (default: odek's layout with the default caps). */
  readonly projections?: Projections
  /** A fold from a journal that goes through this many events or more leaves a snapshot (default 1,000). */
  readonly snapshotEvery?: number
  /** How long a writer waits for another process's lock before giving up, in ms. */
  readonly lockWaitMs?: number
  /** Crash-test hook: runs after the journal line is durable and before the projection is renamed into place. */
  readonly beforeProjectionRename?: (stream: string) => void
  /** Race-test hook: runs under the lock right before the journal line is written. */
  readonly beforeJournalAppend?: (stream: string) => void
  /** How long a changed projection must have held still before it is adopted (an editor may be mid-save), in ms. */
  readonly settleMs?: number
  /** How long a write waits for a projection that is being saved to settle before it gives up, in ms. */
  readonly settleWaitMs?: number
}

/** Thrown when the projection is no longer the file the write was decided against (a person saved meanwhile). */
class Moved extends Error {}

// One in-process mutex per journal, shared by every store instance in the process; the file lock covers other
// processes.
const mutexes = new Map<string, Effect.Semaphore>()
const mutexFor = (key: string) => {
  let m = mutexes.get(key)
  if (m === undefined) {
    m = Effect.unsafeMakeSemaphore(1)
    mutexes.set(key, m)
  }
  return m
}

/** Temp files a multi-file write keeps open at once, far below the usual 1,024 open-files limit. */
const OPEN_AT_ONCE = 128
const chunksOf = <A>(xs: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> =>
  Array.from({ length: Math.ceil(xs.length / size) }, (_, i) => xs.slice(i * size, (i + 1) * size))

/** Thrown inside the synchronous parts and turned into the typed error at their boundary. */
class Failure extends Error {
  /** `conflict`: the journal moved on under the lock; an append reports it as the conflict it is. */
  constructor(
    readonly error: StoreError,
    readonly conflict?: VersionConflict
  ) {
    super(error.message)
  }
}

export const make = (options: DiskOptions) =>
  Effect.sync(() => {
    const dir = path.resolve(options.dir)
    const lockWaitMs = options.lockWaitMs ?? 30_000
    const settleMs = options.settleMs ?? 100
    const settleWaitMs = options.settleWaitMs ?? 2_000
    const snapshotEvery = options.snapshotEvery ?? 1_000

    const journalPath = (stream: string) => path.join(dir, "journal", `${stream}.jsonl`)
    const projections = options.projections ?? odekProjections()
    const registered = (stream: string) => projections.get(stream)
    /** The text projection of a stream and its file, if it has one. */
    const textOf = (stream: string): TextProjection<any, any> | undefined => {
      const p = registered(stream)
      return p?.kind === "text" ? p.text : undefined
    }
    /** The multi-file projection of a stream, if it has one. */
    const filesOf = (stream: string): FilesProjection<any, any> | undefined => {
      const p = registered(stream)
      return p?.kind === "files" ? p.files : undefined
    }
    const projectionPath = (stream: string) => {
      const p = registered(stream)
      return p?.kind === "text" ? path.join(dir, p.file) : undefined
    }
    const textFiles = new Set([...projections.values()].flatMap((p) => (p.kind === "text" ? [p.file] : [])))
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
    const failureOf = (e: unknown) =>
      e instanceof Failure ? e.error : new StoreError({ stream: "", text: `memory: ${oneLine(e)}` })
    const attempt = <A>(f: () => A): Effect.Effect<A, StoreError> => Effect.try({ try: f, catch: failureOf })

    const checkpointPath = (consumer: string) => path.join(dir, "journal", "consumers", `${consumer}.position`)
    const checkConsumer = (consumer: string) =>
      isValidConsumerName(consumer)
        ? Effect.void
        : Effect.fail(
            new StoreError({
              stream: "",
              text: `memory: invalid consumer name ${JSON.stringify(consumer)}; use lowercase letters, digits, - and _`,
              reason: "invalid"
            })
          )

    const checkStream = (stream: string) =>
      isValidStreamName(stream)
        ? Effect.void
        : Effect.fail(
            new StoreError({ stream, text: `memory: invalid stream name ${JSON.stringify(stream)}`, reason: "invalid" })
          )

    const damaged = (stream: string, p: string, lineNo: number, why: string) =>
      new Failure(
        new StoreError({
          stream,
          text: `memory: ${rel(p)} line ${lineNo} is damaged (${why}); restore the journal from a backup, or move it aside to re-import the files`,
          reason: "corrupt"
        })
      )

    // The last lines the tail readers verified or this store wrote: each write reads the journal's end three times
    // (the lock-free load, the reconcile under the lock, the check before the append), and the same bytes verify the
    // same way. Keyed on a line's whole bytes, so another writer's line or an edited one is verified afresh.
    const tailLines = bytesMemo<LineHead>(8)
    /** verifyLine for the journal's last lines, remembering the lines that verified. */
    const parseLine = (bytes: Uint8Array): Either.Either<LineHead, string> => {
      const known = tailLines.get(bytes)
      if (known !== undefined) return Either.right(known)
      return Either.map(verifyLine(bytes), (line) => {
        const head = { version: line.version, projectionHash: line.projectionHash }
        tailLines.set(bytes, head)
        return head
      })
    }
    /** A line this store is about to append: its bytes (newline included) are known to verify as `line`. */
    const encodeKnownLine = (line: JournalLine): Uint8Array => {
      const bytes = encodeLine(line)
      tailLines.set(bytes.subarray(0, bytes.length - 1), { version: line.version, projectionHash: line.projectionHash })
      return bytes
    }

    /** Every complete line of a journal (bytes, no newline); the partial tail a crash may leave is not a line. */

    /** Names the first damaged line exactly (the tail reader only sees the end). */
    const locateDamage = (stream: string, p: string): Failure => {
      const lines = completeLines(io(stream, p, "read", () => Files.readNoFollow(p)))
      for (const [i, l] of lines.entries()) {
        const r = verifyLine(l)
        if (Either.isLeft(r)) return damaged(stream, p, i + 1, r.left)
      }
      return damaged(stream, p, lines.length, "unreadable")
    }

    /** The end of the journal open as `fd`: enough to know the version and the last two projection hashes. */
    const tailAt = (stream: string, p: string, fd: number): Tail => {
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
        const lines = lastNl < 0 ? [] : splitLines(buf.subarray(0, lastNl))
        // The first piece of a chunk that starts mid-file may be a partial line: never trust it.
        const whole = start > 0 ? lines.slice(1) : lines
        if (whole.length < 2 && start > 0) {
          chunk = Math.min(size, chunk * 4)
          continue
        }
        const parse = (t: Buffer | undefined) => {
          if (t === undefined) return undefined
          const r = parseLine(t)
          if (Either.isLeft(r)) throw locateDamage(stream, p)
          return r.right
        }
        const last = parse(whole[whole.length - 1])
        const prev = parse(whole[whole.length - 2])
        return { exists: true, size, complete, last, prev, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs }
      }
    }

    /** Reads only the end of the journal (tailAt). */
    const readTail = (stream: string, p: string): Tail =>
      io(stream, p, "read", () => {
        let fd: number
        try {
          fd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === "ENOENT")
            return { exists: false, size: 0, complete: 0, last: undefined, prev: undefined, mtimeMs: 0, ctimeMs: 0 }
          throw e
        }
        try {
          return tailAt(stream, p, fd)
        } finally {
          fs.closeSync(fd)
        }
      })

    type Checked<E> = { readonly batch: Batch<E>; readonly checksum: string }

    /**
     * The complete lines of `bytes` as batches with their checksums (empty for lines written before checksums),
     * decoded and checked to continue the version chain from `version`; `firstLine` numbers them in messages.
     */
    const decodeLines = <S, E>(
      stream: string,
      codec: StreamCodec<S, E>,
      bytes: Buffer | undefined,
      version: number,
      firstLine: number | (() => number)
    ): Array<Checked<E>> => {
      const p = journalPath(stream)
      const decodeEvents = batchCodec(codec).decode
      const batches: Array<Checked<E>> = []
      // line numbers are only for saying where the damage is
      const at = (i: number) => (typeof firstLine === "number" ? firstLine : firstLine()) + i
      for (const [i, text] of completeLines(bytes).entries()) {
        const line = verifyLine(text)
        if (Either.isLeft(line)) throw damaged(stream, p, at(i), line.left)
        const events = decodeEvents(line.right.events)
        if (Either.isLeft(events)) throw damaged(stream, p, at(i), "holds an event this version of tmem cannot read")
        if (events.right.length === 0 || line.right.version !== version + events.right.length)
          throw damaged(stream, p, at(i), `version ${line.right.version} does not follow ${version}`)
        version = line.right.version
        batches.push({
          batch: { version, at: line.right.at, events: events.right },
          checksum: line.right.checksum ?? ""
        })
      }
      return batches
    }

    /** Every complete batch of the journal, decoded and checked for a gapless version chain. */
    const readAll = <S, E>(stream: string, codec: StreamCodec<S, E>): ReadonlyArray<Batch<E>> => {
      const p = journalPath(stream)
      return decodeLines(
        stream,
        codec,
        io(stream, p, "read", () => Files.readNoFollow(p)),
        0,
        1
      ).map((b) => b.batch)
    }

    // A feed reader's view of each journal: journals only grow (a torn tail is cut, a repair replaces nothing a
    // reader has seen complete), so following the feed reads only what was appended since the last look, and reads a
    // journal whole again only when it is another file or shorter than before.
    const feedJournals = new Map<
      string,
      {
        readonly ino: number
        readonly end: number
        readonly lines: number
        readonly version: number
        readonly codec: unknown
        readonly byVersion: Map<number, Checked<unknown>>
      }
    >()
    const batchesByVersion = (stream: string, codec: StreamCodec<unknown, unknown>, fresh: boolean) => {
      const jp = journalPath(stream)
      return io(stream, jp, "read", () => {
        let fd: number
        try {
          fd = fs.openSync(jp, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === "ENOENT") return new Map<number, Checked<unknown>>()
          throw e
        }
        try {
          const info = fs.fstatSync(fd)
          let known = feedJournals.get(jp)
          if (fresh || known === undefined || known.codec !== codec || known.ino !== info.ino || info.size < known.end)
            known = { ino: info.ino, end: 0, lines: 0, version: 0, codec, byVersion: new Map() }
          if (info.size > known.end) {
            const bytes = Files.readRange(fd, known.end, info.size - known.end)
            const complete = bytes.lastIndexOf(10) + 1
            const added = decodeLines(stream, codec, bytes.subarray(0, complete), known.version, known.lines + 1)
            for (const b of added) known.byVersion.set(b.batch.version, b)
            known = {
              ...known,
              end: known.end + complete,
              lines: known.lines + added.length,
              version: added.length === 0 ? known.version : added[added.length - 1]!.batch.version
            }
          }
          feedJournals.set(jp, known)
          return known.byVersion
        } finally {
          fs.closeSync(fd)
        }
      })
    }

    /**
     * The feed's batches after `after`. A feed line names its batch by stream, version and checksum; a line whose
     * batch is not (yet) in its journal is either being written (the feed lock is held: stop here, the next read
     * goes on) or a crash's leftover (the lock is free and a fresh look still finds no such batch: pass it over).
     */
    const feedAfter = (after: number, codecOf: CodecOf, limit: number): ReadonlyArray<FeedEntry> => {
      const batchOf = (line: Feed.FeedLine, codec: StreamCodec<unknown, unknown>, fresh: boolean) => {
        const found = batchesByVersion(line.stream, codec, fresh).get(line.version)
        return found !== undefined && (line.checksum === "" || found.checksum === line.checksum) ? found : undefined
      }
      const out: Array<FeedEntry> = []
      let lines = feed.linesAfter(after)
      let i = 0
      while (i < lines.length && out.length < limit) {
        const line = lines[i]!
        const codec = codecOf(line.stream)
        if (codec === undefined) {
          i++
          continue
        }
        let found = batchOf(line, codec, false)
        if (found === undefined) {
          if (!feed.idle()) break
          // both files read again: the line may have been taken back (its append failed) and replaced since
          lines = feed.linesAfter(line.position - 1, true)
          i = 0
          const now = lines[0]
          if (
            now !== undefined &&
            (now.stream !== line.stream || now.version !== line.version || now.checksum !== line.checksum)
          )
            continue
          found = batchOf(line, codec, true)
        }
        if (found !== undefined) out.push({ position: line.position, stream: line.stream, batch: found.batch })
        i++
      }
      return out
    }

    const snapshotPath = (stream: string) => `${journalPath(stream).slice(0, -".jsonl".length)}.snapshot.json`

    /**
     * The stream's state from its journal: from its snapshot when one was taken of this journal, folding only the
     * batches after it; a fold that had to go through `snapshotEvery` events or more leaves a new snapshot.
     */
    const foldAll = <S, E>(stream: string, codec: StreamCodec<S, E>) => {
      const p = journalPath(stream)
      // what follows the snapshot (all of the journal without one), read with the descriptor the snapshot was
      // checked through; one byte past the size, to notice a journal that grows meanwhile
      const read = io(stream, p, "read", () =>
        Files.withNoFollow(p, (fd, stat) => {
          const size = Number(stat.size)
          const from = Snapshots.read(snapshotPath(stream), codec, size, (a, b) => Files.readRange(fd, a, b - a))
          const start = from?.offset ?? 0
          return { from, start, rest: Files.readRange(fd, start, size - start + 1) }
        })
      )
      const from = read?.from
      const start = read?.start ?? 0
      // the first line after the snapshot: one more than the lines before it (read again only to say where damage is)
      const firstLine = () => {
        const prefix = Files.readNoFollow(p)?.subarray(0, start) ?? Buffer.alloc(0)
        let n = 1
        for (let nl = prefix.indexOf(10); nl >= 0; nl = prefix.indexOf(10, nl + 1)) n++
        return n
      }
      const rest = decodeLines(stream, codec, read?.rest, from?.version ?? 0, firstLine)
      const events = rest.flatMap((b) => b.batch.events)
      const state = foldStream(codec, from?.state ?? codec.initialState, events)
      const version = rest.length === 0 ? (from?.version ?? 0) : rest[rest.length - 1]!.batch.version
      if (codec.snapshot !== undefined && read !== undefined && events.length >= snapshotEvery) {
        const offset = start + read.rest.lastIndexOf(10) + 1
        const from = Snapshots.windowStart(offset)
        // the hashed window, from what was read when it lies there, else from the journal again
        const window =
          from >= start
            ? read.rest.subarray(from - start, offset - start)
            : Files.withNoFollow(p, (fd) => Files.readRange(fd, from, offset - from))
        if (window !== undefined) Snapshots.write(snapshotPath(stream), codec, state, version, offset, window)
      }
      return { state, version }
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

    /** A file as it stands: size, mtime and change time. Any write, rename or timestamp change gives another. */
    const momentOf = (info: { readonly size: number; readonly mtimeMs: number; readonly ctimeMs: number }) =>
      `${info.size}:${info.mtimeMs}:${info.ctimeMs}`

    // Streams whose projection is not read back (multi-file and plain ones) are folded from the journal; the fold is
    // kept per journal and reused while the journal stands as it was. The same state object is then handed back on
    // every load, as the EventStore port promises.
    const folds = new Map<string, { readonly moment: string; readonly state: unknown; readonly version: number }>()
    const foldCached = <S, E>(stream: string, codec: StreamCodec<S, E>, tail: Tail): { state: S; version: number } => {
      const jp = journalPath(stream)
      const hit = folds.get(jp)
      if (hit !== undefined && hit.moment === momentOf(tail)) return { state: hit.state as S, version: hit.version }
      const full = foldAll(stream, codec)
      folds.set(jp, { moment: momentOf(tail), state: full.state, version: full.version })
      return full
    }
    const remember = (stream: string, state: unknown, version: number) => {
      const jp = journalPath(stream)
      try {
        folds.set(jp, { moment: momentOf(fs.statSync(jp)), state, version })
      } catch {
        folds.delete(jp)
      }
    }

    // A state's file set, once: the state a batch starts from is, as a rule, the one the last batch left (the store
    // hands it back unchanged), whose files were rendered for that batch; an episode store of 10,000 sessions
    // rendered both sides of every ingest anew.
    // (Kept per projection: two projections may be handed one shared state, such as an initial one.)
    const renders = new WeakMap<object, WeakMap<object, ReadonlyMap<string, string>>>()
    const renderedFiles = <S>(files: { readonly render: (state: S) => ReadonlyMap<string, string> }, state: S) => {
      if (typeof state !== "object" || state === null) return files.render(state)
      let byState = renders.get(files)
      if (byState === undefined) {
        byState = new WeakMap()
        renders.set(files, byState)
      }
      let known = byState.get(state)
      if (known === undefined) {
        known = files.render(state)
        byState.set(state, known)
      }
      return known
    }

    /** The files of a multi-file projection as absolute paths; a name that is not a plain file name is refused. */
    const projectedFiles = (stream: string, rendered: ReadonlyMap<string, string>) =>
      [...rendered].map(([name, content]) => {
        if (
          name === "" ||
          name === "." ||
          name === ".." ||
          name.includes("/") ||
          name.includes("\\") ||
          name.includes("\0")
        )
          throw new Failure(
            new StoreError({
              stream,
              text: `memory: refusing to write ${JSON.stringify(name)} outside ${dir}`,
              reason: "invalid"
            })
          )
        return [name, path.join(dir, name), content] as const
      })

    /** Rewrites every file of a multi-file projection now (repairs; rare). The manifest goes last. */
    const reprojectFiles = <S>(stream: string, state: S) => {
      const files = filesOf(stream)!
      const all = projectedFiles(stream, files.render(state))
      const ordered = [...all.filter(([n]) => n !== files.manifest), ...all.filter(([n]) => n === files.manifest)]
      for (const [, target, content] of ordered) io(stream, target, "write", () => writeProjectionNow(target, content))
    }

    /**
     * Appends a batch's line only onto the batch it follows. The lock makes a mismatch impossible; should the lock ever
     * fail (its file deleted by hand, a file system whose locks do nothing), the last line is re-read through the very
     * descriptor the line is appended with, just before writing, so the journal never gets two batches with one
     * version.
     */
    const appendBatch = (
      stream: string,
      jp: string,
      versionBefore: number,
      version: number,
      bytes: Uint8Array
    ): Journaled => {
      const checksum = lineChecksum(bytes)
      const journaled = inFeed(stream, version, checksum, () =>
        io(stream, jp, "append to", () => {
          const fd = fs.openSync(jp, "a+", 0o600)
          try {
            const tail = tailAt(stream, jp, fd)
            const found = tail.complete < tail.size ? "partial" : (tail.last?.version ?? 0)
            if (found !== versionBefore) {
              const text =
                found === "partial"
                  ? `memory: ${rel(jp)} ends in a partial line written since the lock was taken (another writer got past the lock); nothing was written; retry`
                  : `memory: ${rel(jp)} already ends at version ${found}, so a batch following version ${versionBefore} was refused and nothing was written (another writer got past the lock); retry`
              const conflict =
                found === "partial"
                  ? undefined
                  : new VersionConflict({ stream, expected: versionBefore, actual: found })
              throw new Failure(new StoreError({ stream, text, reason: "conflict" }), conflict)
            }
            Files.writeAll(fd, bytes)
            // an empty journal (new, as a rule) needs its directory entry made durable too
            return { fd, path: jp, fresh: tail.size === 0, stamp: Files.stampOfFd(fd) }
          } catch (e) {
            fs.closeSync(fd)
            throw e
          }
        })
      )
      return { ...journaled.result, position: journaled.position, feed: journaled.pending }
    }

    const feedRoot = path.join(dir, "journal")
    const feed = Feed.make(feedRoot, lockWaitMs)
    const feedPath = shown(feed.file)
    /** The feed's failures as the store's: a lock held too long is `unavailable`, a damaged feed `corrupt`. */
    const feedFailure = (e: unknown, verb = "read"): Failure =>
      e instanceof Failure
        ? e
        : e instanceof Feed.FeedBusy
          ? new Failure(
              new StoreError({
                stream: "",
                text: `memory: cannot lock ${feedPath}.lock: another tmem process has held it for over ${Math.min(lockWaitMs, 2_000) / 1000} s (stopped or hung?); nothing was written; end that process and retry`,
                reason: "unavailable"
              })
            )
          : e instanceof Feed.FeedDamaged
            ? new Failure(
                new StoreError({
                  stream: "",
                  text: `memory: ${feedPath} ${e.message}; move it aside and tmem builds it again from the journals`,
                  reason: "corrupt"
                })
              )
            : new Failure(storeError("", feedPath, verb, e))
    /**
     * The batch is durable in its journal but its feed line may not be: after a power loss the batch could lack its
     * place in the feed. Said, not failed: the write itself holds.
     */
    const feedUnsynced = (stream: string, synced: PromiseSettledResult<unknown>) =>
      synced.status === "rejected"
        ? Effect.logWarning(
            `${storeError(stream, feedPath, "sync", synced.reason).text} (the write of ${stream} itself is durable)`
          )
        : Effect.void
    /** Feed work, its failures thrown as the store's (`feedFailure`). */
    const onFeed = <A>(f: () => A, verb?: string): A => {
      try {
        return f()
      } catch (e) {
        throw feedFailure(e, verb)
      }
    }
    const inFeed = <A>(stream: string, version: number, checksum: string, append: () => A) =>
      onFeed(() => feed.around(stream, version, checksum, append), "append to")

    /**
     * A batch's line appended to its journal, not yet durable; `stamp` is the journal's right after the write, `feed`
     * the feed's write of the batch's position, to be made durable with it.
     */
    type Journaled = Files.Pending & {
      readonly fresh: boolean
      readonly stamp: Files.Stamp
      readonly position: number
      readonly feed: Files.Pending
    }

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
    const stage = <S, E>(
      stream: string,
      codec: StreamCodec<S, E>,
      stateBefore: S,
      versionBefore: number,
      events: ReadonlyArray<E>,
      at: string
    ): Staged<S, E> => {
      const state = foldStream(codec, stateBefore, events)
      const version = versionBefore + events.length
      const encoded = batchCodec(codec).encode(events)
      if (Either.isLeft(encoded))
        throw new Failure(
          new StoreError({
            stream,
            text: `memory: cannot encode events for ${stream}: ${oneLine(encoded.left.message)}`
          })
        )
      if (filesOf(stream) !== undefined)
        return stageFiles(stream, stateBefore, state, version, encoded.right as ReadonlyArray<unknown>, events, at)
      const target = projectionPath(stream)
      const text = textOf(stream)
      const rendered = target !== undefined && text !== undefined ? utf8.encode(text.render(state)) : undefined
      const line: JournalLine =
        rendered === undefined
          ? { version, at, events: encoded.right as ReadonlyArray<unknown> }
          : { version, at, events: encoded.right as ReadonlyArray<unknown>, projectionHash: sha256(rendered) }
      const jp = journalPath(stream)
      const temp =
        rendered !== undefined && target !== undefined
          ? io(stream, target, "write", () => Files.writeTemp(target, rendered))
          : undefined
      let journal: Journaled
      try {
        options.beforeJournalAppend?.(stream)
        if (target !== undefined) unmoved(stream, target)
        journal = appendBatch(stream, jp, versionBefore, version, encodeKnownLine(line))
      } catch (e) {
        if (temp !== undefined) {
          Files.closeQuietly(temp)
          fs.rmSync(temp.path, { force: true })
        }
        throw e
      }
      written.delete(stream)
      // One promise for both flushes: they run side by side in the thread pool.
      const finish = Effect.flatMap(
        Effect.promise(() =>
          Promise.allSettled([
            temp === undefined ? Promise.resolve() : Files.syncAndClose(temp),
            Files.syncAndClose(journal),
            Files.syncAndClose(journal.feed)
          ])
        ),
        ([t, j, f]) => {
          // The journal decides: if its line is not durable the write failed; if only the projection failed, the
          // next load sees a projection one batch behind and repairs it.
          if (j!.status === "rejected") {
            if (temp !== undefined) fs.rmSync(temp.path, { force: true })
            return Effect.fail(storeError(stream, shown(jp), "sync", j!.reason))
          }
          const placed = attempt(() => {
            if (journal.fresh) io(stream, path.dirname(jp), "sync", () => Files.fsyncDir(path.dirname(jp)))
            if (temp === undefined || target === undefined) {
              // a plain journal: its fold is this state until the journal changes
              if (text === undefined) remember(stream, state, version)
              return undefined
            }
            if (t!.status === "rejected") {
              fs.rmSync(temp.path, { force: true })
              return undefined
            }
            options.beforeProjectionRename?.(stream)
            const outcome = placeProjection(stream, temp.path, target, version)
            if (outcome === true) rememberWrite(stream, target, rendered!, journal.stamp, state, version)
            return outcome === true ? undefined : outcome
          })
          return Effect.zipRight(
            feedUnsynced(stream, f!),
            Effect.flatMap(placed, (warning) => (warning === undefined ? Effect.void : Effect.logWarning(warning)))
          )
        }
      )
      return { result: { state, batch: { version, at, events }, position: journal.position }, finish }
    }

    /**
     * A batch of a multi-file projection: the changed files go to temp files, fsynced with the journal line in
     * parallel; then they are renamed into place with the manifest last, and files the new state no longer has are
     * removed. A crash leaves the journal ahead of some files; the next load sees the manifest's hash behind and
     * re-projects.
     */
    const stageFiles = <S, E>(
      stream: string,
      stateBefore: S,
      state: S,
      version: number,
      encoded: ReadonlyArray<unknown>,
      events: ReadonlyArray<E>,
      at: string
    ): Staged<S, E> => {
      const files = filesOf(stream)!
      const before = renderedFiles(files, stateBefore)
      const after = renderedFiles(files, state)
      const manifest = after.get(files.manifest) ?? ""
      const line: JournalLine = { version, at, events: encoded, projectionHash: sha256(utf8.encode(manifest)) }
      const changed = projectedFiles(stream, after).filter(
        ([name, , content]) => before.get(name) !== content || name === files.manifest
      )
      const ordered = [
        ...changed.filter(([n]) => n !== files.manifest),
        ...changed.filter(([n]) => n === files.manifest)
      ]
      const removed = projectedFiles(stream, new Map([...before].filter(([name]) => !after.has(name))))
      const jp = journalPath(stream)
      // At most OPEN_AT_ONCE temp files are open at a time: the first chunk is written now and flushed with the
      // journal line (the common batch is one chunk: one flush), later chunks are written and flushed in turn after
      // it. Nothing is renamed before every temp file and the journal line are durable.
      const [first, ...later] = chunksOf(ordered, OPEN_AT_ONCE)
      const discard = (temps: ReadonlyArray<{ readonly pending: Files.Pending }>) => {
        for (const t of temps) {
          Files.closeQuietly(t.pending)
          fs.rmSync(t.pending.path, { force: true })
        }
      }
      const writeTemps = (chunk: ReadonlyArray<(typeof ordered)[number]>) => {
        const temps: Array<{ readonly pending: Files.Pending; readonly target: string }> = []
        try {
          for (const [, target, content] of chunk)
            temps.push({
              pending: io(stream, target, "write", () => Files.writeTemp(target, utf8.encode(content))),
              target
            })
        } catch (e) {
          discard(temps)
          throw e
        }
        return temps
      }
      const temps = writeTemps(first ?? [])
      let journal: Journaled
      try {
        options.beforeJournalAppend?.(stream)
        journal = appendBatch(stream, jp, version - events.length, version, encodeKnownLine(line))
      } catch (e) {
        discard(temps)
        throw e
      }
      const syncAll = (pending: ReadonlyArray<Files.Pending>) =>
        Effect.promise(() => Promise.allSettled(pending.map((p) => Files.syncAndClose(p))))
      const finish = Effect.gen(function* () {
        const [journalSynced, feedSynced, ...firstSynced] = yield* syncAll([
          journal,
          journal.feed,
          ...temps.map((t) => t.pending)
        ])
        yield* feedUnsynced(stream, feedSynced!)
        if (journalSynced!.status === "rejected") {
          for (const t of temps) fs.rmSync(t.pending.path, { force: true })
          return yield* Effect.fail(storeError(stream, shown(jp), "sync", journalSynced!.reason))
        }
        // every changed file in rename order: its temp file (none when it could not be written) and whether it is
        // durable
        const durable: Array<{ readonly temp: string | undefined; readonly target: string; readonly ok: boolean }> =
          temps.map((t, i) => ({
            temp: t.pending.path,
            target: t.target,
            ok: firstSynced[i]!.status === "fulfilled"
          }))
        for (const chunk of later) {
          // a temp file that cannot be written leaves its target behind; the manifest then stays behind too (below)
          const written = Either.try(() => writeTemps(chunk))
          if (Either.isLeft(written)) {
            durable.push(...chunk.map(([, target]) => ({ temp: undefined, target, ok: false })))
            continue
          }
          const synced = yield* syncAll(written.right.map((t) => t.pending))
          durable.push(
            ...written.right.map((t, i) => ({
              temp: t.pending.path,
              target: t.target,
              ok: synced[i]!.status === "fulfilled"
            }))
          )
        }
        yield* attempt(() => {
          if (journal.fresh) io(stream, path.dirname(jp), "sync", () => Files.fsyncDir(path.dirname(jp)))
          options.beforeProjectionRename?.(stream)
          let complete = true
          for (const t of durable) {
            try {
              // the manifest goes last and only over a complete set: if it lags, the next load re-projects from the
              // journal
              if (t.temp === undefined || !t.ok || (!complete && t === durable[durable.length - 1]))
                throw new Error("not durable")
              fs.renameSync(t.temp, t.target)
            } catch {
              complete = false
              if (t.temp !== undefined) fs.rmSync(t.temp, { force: true })
            }
          }
          for (const [, target] of removed) fs.rmSync(target, { force: true })
          remember(stream, state, version)
        })
      })
      return { result: { state, batch: { version, at, events }, position: journal.position }, finish }
    }

    /** Appends and projects; a projection that moved since the caller's reconcile turns into a conflict (re-decide). */
    const commit = <S, E>(
      stream: string,
      codec: StreamCodec<S, E>,
      stateBefore: S,
      versionBefore: number,
      events: ReadonlyArray<E>,
      at: string
    ) =>
      Effect.flatMap(
        Effect.try({
          try: () => stage(stream, codec, stateBefore, versionBefore, events, at),
          catch: (e): StoreError | VersionConflict =>
            e instanceof Moved
              ? new VersionConflict({ stream, expected: versionBefore, actual: versionBefore })
              : e instanceof Failure && e.conflict !== undefined
                ? e.conflict
                : failureOf(e)
        }),
        (s) => Effect.as(s.finish, s.result)
      )

    // What this store last wrote to each single-file projection and its journal, by the stamps of the two files it
    // left: while both names still show exactly those stamps, the state is known without reading either. A person's
    // save, another writer's append or a repair moves a stamp (its change time at least), and the files are read again.
    const written = new Map<
      string,
      {
        readonly journal: Files.Stamp
        readonly projection: Files.Stamp
        readonly state: unknown
        readonly version: number
      }
    >()
    const rememberWrite = (
      stream: string,
      target: string,
      rendered: Uint8Array,
      journal: Files.Stamp,
      state: unknown,
      version: number
    ) => {
      // read back through the name: what it shows now is the projection only if it holds the bytes just written
      const projection = Files.stampIfHolds(target, rendered)
      if (projection !== undefined) written.set(stream, { journal, projection, state, version })
    }
    const unchangedSinceWrite = <S>(
      stream: string,
      target: string
    ): { readonly state: S; readonly version: number; readonly projection: Files.Identity } | undefined => {
      const w = written.get(stream)
      if (w === undefined) return undefined
      const jp = journalPath(stream)
      if (
        Files.sameStamp(
          io(stream, jp, "read", () => Files.stamp(jp)),
          w.journal
        ) &&
        Files.sameStamp(
          io(stream, target, "read", () => Files.stamp(target)),
          w.projection
        )
      )
        return w as { readonly state: S; readonly version: number; readonly projection: Files.Identity }
      written.delete(stream)
      return undefined
    }

    /** The state of a single-file projected stream when both its files are still the ones this store wrote last. */
    const knownState = <S>(stream: string): { readonly state: S; readonly version: number } | undefined => {
      const target = projectionPath(stream)
      if (filesOf(stream) !== undefined || textOf(stream) === undefined || target === undefined) return undefined
      const w = unchangedSinceWrite<S>(stream, target)
      if (w === undefined) return undefined
      seen.set(stream, w.projection)
      return { state: w.state, version: w.version }
    }

    // The projection file each stream's last reconcile saw (undefined: none), under the lock: a write goes ahead
    // only while the file is still that one, so a person's save is never overwritten unseen.
    const seen = new Map<string, Files.Identity | undefined>()

    /** Throws Moved when the projection is no longer the file the current decision was made on. */
    const unmoved = (stream: string, target: string) => {
      if (
        seen.has(stream) &&
        !Files.sameIdentity(
          io(stream, target, "read", () => Files.identity(target)),
          seen.get(stream)
        )
      )
        throw new Moved()
    }

    /**
     * Renames a new projection into place unless a person saved the file since the load (between the durable
     * journal append and now): their file then stays where it is and the next load records it as an edit.
     */
    const placeProjection = (
      stream: string,
      temp: string,
      target: string,
      version: number
    ): true | string | undefined => {
      const known = seen.has(stream)
      const expected = seen.get(stream)
      seen.delete(stream)
      let r: Files.Replaced
      try {
        if (known) r = Files.replaceIf(temp, target, expected, () => asideName(target, "edited", version))
        else {
          fs.renameSync(temp, target)
          r = { done: true }
        }
      } catch {
        // the projection lags; the next load re-projects it from the journal
        fs.rmSync(temp, { force: true })
        return undefined
      }
      if (r.done) return true
      return r.keptAside === undefined
        ? `memory: ${rel(target)} was saved by another program while tmem wrote it; the save is left in place and will be recorded as an edit on the next load`
        : `memory: ${rel(target)} was saved twice by another program while tmem wrote it; the earlier save is kept as ${rel(r.keptAside)}`
    }

    // Journal directories this store created or found: each write checked again cost more than its lock.
    const journalDirs = new Set<string>()

    /**
     * Takes the stream's kernel lock (./lock.ts), waiting with jittered back-off up to lockWaitMs for another holder.
     */
    const acquireLock = (stream: string, jp: string) => {
      const journalDir = path.dirname(jp)
      const lockPath = `${jp}.lock`
      const ensured = attempt(() => {
        if (journalDirs.has(journalDir)) return
        if (io(stream, journalDir, "create", () => Files.ensureDir(journalDir)))
          io(stream, dir, "sync", () => Files.fsyncDir(dir))
        journalDirs.add(journalDir)
      })
      const take = Effect.zipRight(ensured, Lock.acquire(lockPath, lockWaitMs))
      return take.pipe(
        // the directory was removed since this store last saw it: create it again
        Effect.catchIf(
          (e) => (e as NodeJS.ErrnoException | undefined)?.code === "ENOENT",
          () =>
            Effect.zipRight(
              Effect.sync(() => journalDirs.delete(journalDir)),
              take
            )
        ),
        Effect.mapError((e) =>
          e instanceof StoreError
            ? e
            : e instanceof Lock.LockBusy
              ? new StoreError({
                  stream,
                  text: `memory: cannot lock ${shown(lockPath)}: another tmem process has held it for over ${Math.round(e.waitedMs / 100) / 10} s (stopped or hung?); end that process (its lock goes with it) and retry`,
                  reason: "unavailable"
                })
              : storeError(stream, shown(lockPath), "lock", e)
        )
      )
    }

    const withLock = <A, Err>(stream: string, effect: Effect.Effect<A, Err>): Effect.Effect<A, Err | StoreError> => {
      const jp = journalPath(stream)
      const release = (fd: number) => Effect.sync(() => Lock.release(fd))
      return mutexFor(jp).withPermits(1)(
        Effect.suspend(() => {
          // the common case, in one step: a journal directory this store knows and a lock no other process holds
          const fd = journalDirs.has(path.dirname(jp)) ? Lock.takeNow(`${jp}.lock`) : undefined
          return fd !== undefined
            ? Effect.ensuring(effect, release(fd))
            : Effect.acquireUseRelease(acquireLock(stream, jp), () => effect, release)
        })
      )
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

    // Streams whose crash leftovers this store has dealt with (once per process and stream).
    const swept = new Set<string>()
    const DERIVED_TEMP_AGE_MS = 10 * 60_000

    /**
     * Counts (and with `remove`, removes) temp files a crashed writer left beside the stream's files. Removing
     * happens under the stream's lock, so only temp files of that stream's own writers, which need the same lock,
     * are candidates; derived files (the episode vectors) are written without a lock, so only theirs that are far
     * older than any write can take count.
     */
    const leftovers = (stream: string, remove: boolean): number => {
      const jp = journalPath(stream)
      let found = Files.leftoverTemps(path.dirname(jp), (name) => name === path.basename(jp), remove)
      const target = projectionPath(stream)
      if (target !== undefined) found += Files.leftoverTemps(dir, (name) => name === path.basename(target), remove)
      if (filesOf(stream) === undefined) return found
      const manifest = filesOf(stream)!.manifest
      const factFiles = textFiles
      return (
        found +
        Files.leftoverTemps(
          dir,
          (name, temp) => {
            if (factFiles.has(name)) return false
            if (name === manifest || name.endsWith(".md")) return true
            return (Files.mtimeMs(temp) ?? Date.now()) < Date.now() - DERIVED_TEMP_AGE_MS
          },
          remove
        )
      )
    }
    const sweepLeftovers = (stream: string) => {
      if (swept.has(stream)) return
      leftovers(stream, true)
      swept.add(stream)
    }

    /**
     * What reconcile found when the projection is being saved right now: the journal's state, and when to look again.
     */
    interface Unsettled<S, E> {
      readonly unsettled: Loaded<S, E>
      readonly retryInMs: number
    }
    type Reconciled<S, E> = Loaded<S, E> | { readonly staged: Staged<S, E> } | Unsettled<S, E>

    // When each changed projection was first seen in its current form, for file systems whose clock is not ours.
    const firstSeen = new Map<string, { readonly identity: Files.Identity; readonly at: number }>()

    /** 0 when a changed file has held still for the settle interval (an editor is done saving), else ms to wait. */
    const settlesIn = (target: string, snap: Files.Snapshot): number => {
      if (!snap.steady) return settleMs
      const now = Date.now()
      const first = firstSeen.get(target)
      if (first === undefined || !Files.sameIdentity(first.identity, snap.identity))
        firstSeen.set(target, { identity: snap.identity, at: now })
      const still = Math.max(
        now - Number(snap.identity.mtimeNs / 1_000_000n),
        first !== undefined && Files.sameIdentity(first.identity, snap.identity) ? now - first.at : 0
      )
      if (still >= settleMs) {
        firstSeen.delete(target)
        return 0
      }
      return Math.max(1, Math.ceil(settleMs - still))
    }

    /**
     * Why a person's file cannot be adopted: too large to read, not UTF-8, or a write rule (cap, scanner, controls).
     */
    const refusal = (text: TextProjection<unknown, unknown>, snap: Files.Snapshot): Either.Either<string, string> => {
      if (snap.bytes === undefined) return Either.left(`it is ${snap.identity.size} bytes, far over the cap`)
      const decoded = Either.try(() => strictUtf8.decode(snap.bytes!))
      if (Either.isLeft(decoded)) return Either.left("it is not valid UTF-8")
      const problem = text.problem(decoded.right)
      return problem === undefined ? Either.right(decoded.right) : Either.left(problem)
    }

    /** A free name beside `target` for a file kept aside: `<name>.<kind>-v<version>`, then `.2`, `.3`… */
    const asideName = (target: string, kind: string, version: number) => {
      const base = `${target}.${kind}-v${version}`
      for (let n = 1; ; n++) {
        const candidate = n === 1 ? base : `${base}.${n}`
        if (!fs.existsSync(candidate)) return candidate
      }
    }

    /**
     * A person's changed projection, under the lock: adopted once it has settled and obeys the write rules;
     * refused (moved aside, recorded, the last valid state projected again) when it breaks them; left alone while
     * it is still being saved.
     */
    const adoptOrRefuse = <S, E>(
      stream: string,
      codec: StreamCodec<S, E>,
      target: string,
      snap: Files.Snapshot,
      current: { readonly state: S; readonly version: number },
      at: string,
      warnings: Array<string>
    ): Reconciled<S, E> => {
      const text = textOf(stream)!
      const wait = settlesIn(target, snap)
      if (wait > 0) return { unsettled: { ...current, recorded: [] }, retryInMs: wait }
      const verdict = refusal(text as TextProjection<unknown, unknown>, snap)
      if (Either.isRight(verdict)) {
        if (current.version > 0)
          return {
            staged: stage(
              stream,
              codec,
              current.state,
              current.version,
              text.editedExternally(verdict.right, current.state, at, undefined),
              at
            )
          }
        if (trimSpace(verdict.right) === "") return { ...current, recorded: [] }
        return { staged: stage(stream, codec, current.state, 0, text.imported(verdict.right, at), at) }
      }
      const kept = asideName(target, "rejected", current.version + 1)
      const moved = io(stream, target, "move", () => {
        if (!Files.sameIdentity(Files.identity(target), snap.identity)) return false
        fs.renameSync(target, kept)
        return true
      })
      if (!moved) return { unsettled: { ...current, recorded: [] }, retryInMs: settleMs }
      seen.set(stream, undefined)
      const size = Number(snap.identity.size)
      const name = path.basename(target)
      warnings.push(
        `memory: ${name} was edited outside tmem but not adopted (${verdict.left}); the memory keeps its last valid state and your file is kept as ${path.basename(kept)} — fix it and save it as ${name} again`
      )
      return {
        staged: stage(
          stream,
          codec,
          current.state,
          current.version,
          text.rejected(verdict.left, path.basename(kept), size, at),
          at
        )
      }
    }

    /**
     * Writes a repaired projection in place, unless a person's file took its place meanwhile (then that is decided
     * next: a write about to follow finds the file moved and re-decides).
     */
    const restoreProjection = (stream: string, target: string, content: string, expected: Files.Identity | undefined) =>
      io(stream, target, "write", () => {
        const done = Files.replaceIf(durableTemp(target, content), target, expected, () =>
          asideName(target, "edited", 0)
        ).done
        if (done) seen.set(stream, Files.identity(target))
        return done
      })

    // A fact file's hash and text, both pure functions of its bytes: the lock-free load and the reconcile under the
    // lock read the same file, and it is usually the one this store wrote or read last.
    // The state parsed from those bytes is kept with them too (per projection), so a file that did not change gives
    // back the very state object it gave before, as the EventStore port promises.
    interface Digest {
      readonly hash: string
      readonly text: string | undefined
      readonly states: WeakMap<object, unknown>
    }
    const digests = bytesMemo<Digest>(4)
    const digestOf = (bytes: Uint8Array): Digest => {
      const known = digests.get(bytes)
      if (known !== undefined) return known
      const decoded = Either.try(() => strictUtf8.decode(bytes))
      const digest = {
        hash: sha256(bytes),
        text: Either.isRight(decoded) ? decoded.right : undefined,
        states: new WeakMap()
      }
      digests.set(bytes, digest)
      return digest
    }
    const parsed = <S>(digest: Digest & { readonly text: string }, text: TextProjection<S, unknown>): S => {
      if (!digest.states.has(text)) digest.states.set(text, text.parse(digest.text))
      return digest.states.get(text) as S
    }

    /** A single-file projection under the lock: the cases of docs/ARCHITECTURE.md "Loading". */
    const reconcileText = <S, E>(
      stream: string,
      codec: StreamCodec<S, E>,
      target: string,
      tail: Tail,
      at: string,
      warnings: Array<string>
    ): Reconciled<S, E> => {
      const text = textOf(stream)!
      const snap = io(stream, target, "read", () => Files.readSnapshot(target, text.maxBytes))
      // what a write decided on this reconcile may replace; repairs below update it
      seen.set(stream, snap?.identity)
      const digest = snap?.bytes === undefined ? undefined : digestOf(snap.bytes)
      const hash = digest?.hash
      if (snap !== undefined && tail.last !== undefined && hash === tail.last.projectionHash) {
        return {
          state:
            digest!.text !== undefined
              ? parsed({ ...digest!, text: digest!.text }, text as TextProjection<S, unknown>)
              : text.parse(strictUtf8.decode(snap.bytes!)),
          version: tail.last.version,
          recorded: []
        }
      }
      const full = tail.last === undefined ? { state: codec.initialState, version: 0 } : foldAll(stream, codec)
      if (snap === undefined) {
        // A deleted projection is restored rather than read as "forget everything": emptying the file is how to clear
        // it.
        if (tail.last !== undefined) restoreProjection(stream, target, text.render(full.state), undefined)
        return { ...full, recorded: [] }
      }
      const prevHash = tail.prev?.projectionHash ?? EMPTY_HASH
      // One batch behind and not touched since the journal was: a crash between append and rename.
      if (
        tail.last !== undefined &&
        hash === prevHash &&
        snap.steady &&
        Number(snap.identity.mtimeNs / 1_000_000n) <= tail.mtimeMs
      ) {
        if (restoreProjection(stream, target, text.render(full.state), snap.identity))
          warnings.push(`memory: ${rel(target)} was one write behind its journal (a crash); re-projected`)
        return { ...full, recorded: [] }
      }
      return adoptOrRefuse(stream, codec, target, snap, full, at, warnings)
    }

    /**
     * The stream's true state with the lock held, repairing whatever a crash or a person left behind: a partial
     * journal line, a projection one batch behind, a missing projection, a hand edit, or a directory with files but
     * no journal (imported). Returns the staged write of any event it had to record, or the state as is; or, while a
     * person's save is still in progress, the journal's state and when to look again.
     */
    const reconcileOnce = <S, E>(stream: string, codec: StreamCodec<S, E>, at: string) =>
      Effect.gen(function* () {
        const jp = journalPath(stream)
        const warnings: Array<string> = []
        const outcome = yield* attempt((): Reconciled<S, E> => {
          // (a stream this store wrote itself and that is unchanged was answered by `reconcile` without coming here)
          sweepLeftovers(stream)
          const target = projectionPath(stream)
          let tail = readTail(stream, jp)
          const torn = tail.complete < tail.size
          if (torn) {
            warnings.push(cutTornTail(stream, jp, tail))
            tail = readTail(stream, jp)
          }
          if (filesOf(stream) !== undefined) return reconcileFiles(stream, codec, tail, at, warnings, torn)
          if (target === undefined || textOf(stream) === undefined)
            return { ...foldCached(stream, codec, tail), recorded: [] }
          try {
            return reconcileText(stream, codec, target, tail, at, warnings)
          } catch (e) {
            // the file moved between reading it and recording what was read: look again shortly
            if (e instanceof Moved)
              return { unsettled: { ...foldAll(stream, codec), recorded: [] }, retryInMs: settleMs }
            throw e
          }
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
     * reconcileOnce, looking again while a person's save is in progress. A load waits about one settle interval,
     * then leaves the file alone (the journal's state is returned, the next load decides). A write waits longer,
     * bounded, since it must not decide against a file that is about to change; then it fails with a retryable
     * error, having written nothing.
     */
    const reconcile = <S, E>(
      stream: string,
      codec: StreamCodec<S, E>,
      at: string,
      forWrite: boolean
    ): Effect.Effect<Loaded<S, E>, StoreError> =>
      // the stamps are read through `attempt`: a file that cannot be stat'ed is a StoreError, not a defect
      Effect.flatMap(
        attempt(() => (swept.has(stream) ? knownState<S>(stream) : undefined)),
        (known): Effect.Effect<Loaded<S, E>, StoreError> =>
          known !== undefined ? Effect.succeed({ ...known, recorded: [] }) : reconcileLoop(stream, codec, at, forWrite)
      )

    const reconcileLoop = <S, E>(stream: string, codec: StreamCodec<S, E>, at: string, forWrite: boolean) =>
      Effect.gen(function* () {
        const deadline = Date.now() + (forWrite ? settleWaitMs : Math.min(settleWaitMs, 2 * settleMs))
        for (;;) {
          const outcome = yield* reconcileOnce(stream, codec, at)
          if (!("unsettled" in outcome)) return outcome
          if (Date.now() >= deadline) {
            if (!forWrite) return outcome.unsettled
            const name = projectionPath(stream) ?? stream
            return yield* Effect.fail(
              new StoreError({
                stream,
                text: `memory: ${rel(name)} is being saved by another program and did not settle within ${settleWaitMs} ms; nothing was written — retry once the save is done`,
                reason: "unavailable"
              })
            )
          }
          yield* Effect.sleep(Duration.millis(Math.min(outcome.retryInMs, Math.max(1, deadline - Date.now()))))
        }
      })

    /**
     * A multi-file projection under the lock: adopt an odek directory found without a journal; otherwise the journal
     * decides, and a manifest that does not match it is rewritten — after a crash silently, after an outside edit
     * with the edited file kept beside it and a warning, since an edit of the index must never change trust.
     */
    const reconcileFiles = <S, E>(
      stream: string,
      codec: StreamCodec<S, E>,
      tail: Tail,
      at: string,
      warnings: Array<string>,
      torn: boolean
    ): Loaded<S, E> | { readonly staged: Staged<S, E> } => {
      const files = filesOf(stream)!
      const manifestPath = path.join(dir, files.manifest)
      // files adopted from the directory (an import, a recovery) are read as they are: a link is not followed
      const read = (name: string) => {
        try {
          const bytes = Files.readNoFollow(path.join(dir, name))
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
      const mtime = io(stream, manifestPath, "read", () => Files.mtimeMs(manifestPath)) ?? 0
      const crash = bytes === undefined || (hash === tail.prev?.projectionHash && mtime <= tail.mtimeMs)
      // A journal cut back to its last whole line lost a batch that the files may still show, as a fact file
      // would: what they hold beyond the journal's state is adopted again, but never with more trust.
      const recovered = torn && !crash ? (files.recovered?.(read, full.state, at) ?? []) : []
      if (!crash) {
        const kept = asideName(manifestPath, "edited", full.version)
        io(stream, kept, "write", () => fs.writeFileSync(kept, bytes!, { mode: 0o600 }))
        warnings.push(
          `memory: ${rel(manifestPath)} was changed outside tmem; the journal decides which episodes exist and which are trusted, so it was rewritten (the edited file is kept as ${rel(kept)})`
        )
      } else if (bytes !== undefined)
        warnings.push(`memory: ${rel(manifestPath)} was behind its journal (a crash); re-projected`)
      reprojectFiles(stream, full.state)
      if (recovered.length === 0) return { ...full, recorded: [] }
      warnings.push(
        `memory: ${rel(journalPath(stream))} had lost its last batch; what ${rel(manifestPath)} still showed of it was recorded again, untrusted until a person promotes it (tmem episodes list, then promote)`
      )
      return { staged: stage(stream, codec, full.state, full.version, recovered, at) }
    }

    /** Repairs write the projection durably in one go; they are rare, so no parallel trick is needed. */
    const writeProjectionNow = (target: string, text: string) => fs.renameSync(durableTemp(target, text), target)

    /** A temp file beside `target` holding `text`, already durable. */
    const durableTemp = (target: string, text: string) => {
      const temp = Files.writeTemp(target, utf8.encode(text))
      fs.fsyncSync(temp.fd)
      fs.closeSync(temp.fd)
      return temp.path
    }

    /** Lock-free fast path: the projection's hash matches the journal's last batch, so the projection is the state. */
    const tryFastLoad = <S, E>(stream: string, codec: StreamCodec<S, E>): Loaded<S, E> | undefined => {
      // the first load of a projected stream looks for what a crashed writer left behind; finding any, it takes the
      // lock to remove it (a read-only directory with nothing to sweep stays readable without the lock)
      if (
        !swept.has(stream) &&
        (filesOf(stream) !== undefined || (textOf(stream) !== undefined && projectionPath(stream) !== undefined))
      ) {
        if (leftovers(stream, false) > 0) return undefined
        swept.add(stream)
      }
      if (filesOf(stream) !== undefined) {
        // nothing moved since the last verified load: not even the journal's tail needs reading (its last line can
        // be an import of thousands of episodes)
        const jp = journalPath(stream)
        const manifestPath = path.join(dir, filesOf(stream)!.manifest)
        const [j, m, known, hit] = [
          statOptional(jp),
          statOptional(manifestPath),
          verified.get(manifestPath),
          folds.get(jp)
        ]
        if (
          j !== undefined &&
          m !== undefined &&
          known !== undefined &&
          hit !== undefined &&
          known.journal === momentOf(j) &&
          known.manifest === momentOf(m) &&
          hit.moment === momentOf(j)
        )
          return { state: hit.state as S, version: hit.version, recorded: [] }
      }
      const known = knownState<S>(stream)
      if (known !== undefined) return { ...known, recorded: [] }
      const target = projectionPath(stream)
      const tail = readTail(stream, journalPath(stream))
      if (tail.complete < tail.size) return undefined
      if (filesOf(stream) !== undefined) {
        const manifestPath = path.join(dir, filesOf(stream)!.manifest)
        // the manifest can be large (an index of thousands of episodes): re-hash it only when it or the journal moved
        const seen = statOptional(manifestPath)
        const known = verified.get(manifestPath)
        if (
          tail.last !== undefined &&
          seen !== undefined &&
          known !== undefined &&
          known.journal === momentOf(tail) &&
          known.manifest === momentOf(seen)
        )
          return { ...foldCached(stream, codec, tail), recorded: [] }
        const bytes = io(stream, manifestPath, "read", () => Files.readOptional(manifestPath))
        if (tail.last === undefined)
          return bytes === undefined ? { state: codec.initialState, version: 0, recorded: [] } : undefined
        if (bytes === undefined || sha256(bytes) !== tail.last.projectionHash) return undefined
        if (seen !== undefined)
          verified.set(manifestPath, {
            journal: momentOf(tail),
            manifest: momentOf(seen)
          })
        return { ...foldCached(stream, codec, tail), recorded: [] }
      }
      const text = textOf(stream)
      if (target === undefined || text === undefined)
        return tail.exists
          ? { ...foldCached(stream, codec, tail), recorded: [] }
          : { state: codec.initialState, version: 0, recorded: [] }
      const snap = io(stream, target, "read", () => Files.readSnapshot(target, text.maxBytes))
      if (tail.last === undefined)
        return snap === undefined ? { state: codec.initialState, version: 0, recorded: [] } : undefined
      const digest = snap?.bytes === undefined ? undefined : digestOf(snap.bytes)
      if (digest === undefined || digest.hash !== tail.last.projectionHash || digest.text === undefined)
        return undefined
      return {
        state: parsed({ ...digest, text: digest.text }, text as TextProjection<S, unknown>),
        version: tail.last.version,
        recorded: []
      }
    }

    // Batches the store recorded while an append was refused (a hand edit found under the lock); the caller's
    // retry loads again, and that load reports them, so the edit's lifecycle event is not lost.
    const pending = new Map<string, Array<Batch<unknown>>>()
    const takePending = <E>(stream: string): ReadonlyArray<Batch<E>> => {
      const batches = pending.get(stream) ?? []
      pending.delete(stream)
      return batches as ReadonlyArray<Batch<E>>
    }

    const readFeed = (after: number, codecOf: CodecOf, limit?: number) =>
      attempt(() => onFeed(() => feedAfter(after, codecOf, limit ?? Number.POSITIVE_INFINITY)))
    // another process's appends show only in the file: look every 100 ms (a stat when nothing changed)
    const subscribe = pollingSubscribe(readFeed, 100)

    return EventStore.of({
      load: <S, E>(stream: string, codec: StreamCodec<S, E>) =>
        Effect.zipRight(
          checkStream(stream),
          Effect.flatMap(
            attempt(() => tryFastLoad(stream, codec)),
            (fast) => {
              const loaded =
                fast !== undefined
                  ? Effect.succeed(fast)
                  : Effect.flatMap(nowIso, (at) => withLock(stream, reconcile(stream, codec, at, false)))
              return Effect.map(loaded, (l) => {
                const earlier = takePending<E>(stream)
                return earlier.length === 0 ? l : { ...l, recorded: [...earlier, ...l.recorded] }
              })
            }
          )
        ),
      readAll: readFeed,
      head: attempt(() => onFeed(feed.last)),
      checkpoint: (consumer) =>
        Effect.zipRight(
          checkConsumer(consumer),
          attempt(() => {
            const p = checkpointPath(consumer)
            const bytes = io("", p, "read", () => Files.readNoFollow(p))
            if (bytes === undefined) return undefined
            const text = bytes.toString("utf8").trim()
            if (!/^\d{1,15}$/.test(text))
              throw new Failure(
                new StoreError({
                  stream: "",
                  text: `memory: ${shown(p)} does not hold a feed position; delete it and the consumer starts from the feed's end`,
                  reason: "corrupt"
                })
              )
            return Number(text)
          })
        ),
      saveCheckpoint: (consumer, position) =>
        Effect.zipRight(
          checkConsumer(consumer),
          attempt(() => {
            const p = checkpointPath(consumer)
            io("", p, "write", () => {
              Files.ensureDir(path.dirname(p))
              // no fsync: a checkpoint that falls back after a crash only repeats some deliveries
              const temp = Files.writeTemp(p, utf8.encode(`${position}\n`))
              fs.closeSync(temp.fd)
              fs.renameSync(temp.path, p)
            })
          })
        ),
      subscribe,
      read: (stream, codec, fromVersion = 0) =>
        Effect.zipRight(
          checkStream(stream),
          attempt(() => readAll(stream, codec).filter((b) => b.version > fromVersion))
        ),
      append: <S, E>(
        stream: string,
        codec: StreamCodec<S, E>,
        expectedVersion: number,
        events: ReadonlyArray<E>,
        at: string
      ) =>
        Effect.zipRight(
          checkStream(stream),
          withLock(
            stream,
            Effect.flatMap(
              reconcile(stream, codec, at, true),
              (current): Effect.Effect<Appended<S, E>, StoreError | VersionConflict> => {
                if (current.version !== expectedVersion) {
                  if (current.recorded.length > 0)
                    pending.set(stream, [...(pending.get(stream) ?? []), ...current.recorded])
                  return Effect.fail(
                    new VersionConflict({ stream, expected: expectedVersion, actual: current.version })
                  )
                }
                if (events.length === 0)
                  return Effect.succeed({
                    state: current.state,
                    batch: { version: current.version, at, events: [] },
                    position: 0
                  })
                return commit(stream, codec, current.state, current.version, events, at)
              }
            )
          )
        )
    })
  })

/** The disk store (node:fs; no platform services needed). */
export const layer = (options: DiskOptions) =>
  // closing the store waits for the displaced projections still being unlinked in the thread pool (./files.ts)
  Layer.scoped(
    EventStore,
    Effect.zipLeft(
      make(options),
      Effect.addFinalizer(() => Effect.promise(Files.unlinked))
    )
  )
