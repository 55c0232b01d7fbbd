import { Effect, Either, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  type Batch,
  batchCodec,
  type CodecOf,
  type FeedEntry,
  foldStream,
  type StreamCodec
} from "../../domain/kernel/Stream.js"
import { type Base, StoreError, VersionConflict } from "../../ports/EventStore.js"
import { bytesMemo } from "./bytesMemo.js"
import { type Context, Failure, momentOf } from "./context.js"
import { storeError } from "./errors.js"
import * as Feed from "./feed.js"
import * as Files from "./files.js"
import {
  completeLines,
  encodeLine,
  type JournalLine,
  type LineHead,
  lineChecksum,
  splitLines,
  type Tail,
  verifyLine
} from "./journal.js"
import * as Snapshots from "./snapshots.js"

/**
 * One disk store's journals (`journal/<stream>.jsonl`, their lines encoded by ./journal.ts) and their place in the
 * store's feed (./feed.ts): reading a journal's end, its batches or its fold (from a snapshot when there is one),
 * naming and cutting away damage, and appending a batch's line only onto the batch it follows. What it reads is
 * cached per store (the verified last lines, each feed reader's view of a journal, the folds of the streams whose
 * projection is not read back), so the caches live in `makeJournals`.
 */

type Checked<E> = { readonly batch: Batch<E>; readonly checksum: string }

/**
 * A batch's line appended to its journal, not yet durable; `stamp` is the journal's right after the write, `feed`
 * the feed's write of the batch's position, to be made durable with it.
 */
export type Journaled = Files.Pending & {
  readonly fresh: boolean
  readonly stamp: Files.Stamp
  readonly position: number
  readonly feed: Files.Pending
}

const NEWLINE = Buffer.from([10])

/** What opens a compacted journal: the state its base line stands for, once a read has met it. */
interface Opening<S> {
  base?: { readonly state: S; readonly version: number }
}

export const makeJournals = (context: Context) => {
  const { dir, journalPath, rel, shown, io, lockWaitMs, snapshotEvery } = context

  const damaged = (stream: string, p: string, lineNo: number, why: string) =>
    new Failure(
      new StoreError({
        stream,
        text:
          `memory: ${rel(p)} line ${lineNo} is damaged (${why}); ` +
          "restore the journal from a backup, or move it aside to re-import the files",
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

  /**
   * The complete lines of `bytes` as batches with their checksums (empty for lines written before checksums),
   * decoded and checked to continue the version chain from `version`; `firstLine` numbers them in messages. When
   * `bytes` start the journal, `opening` receives a compacted journal's base line (its state and version), which
   * the chain then continues from; a base line anywhere else is damage.
   */
  const decodeLines = <S, E>(
    stream: string,
    codec: StreamCodec<S, E>,
    bytes: Buffer | undefined,
    version: number,
    firstLine: number | (() => number),
    opening?: Opening<S>
  ): Array<Checked<E>> => {
    const p = journalPath(stream)
    const decodeEvents = batchCodec(codec).decode
    const batches: Array<Checked<E>> = []
    // line numbers are only for saying where the damage is
    const at = (i: number) => (typeof firstLine === "number" ? firstLine : firstLine()) + i
    for (const [i, text] of completeLines(bytes).entries()) {
      const line = verifyLine(text)
      if (Either.isLeft(line)) throw damaged(stream, p, at(i), line.left)
      if (line.right.base !== undefined) {
        if (i !== 0 || opening === undefined || codec.snapshot === undefined || line.right.events.length > 0)
          throw damaged(stream, p, at(i), "holds a compacted state where only a journal's first line may")
        const base = Schema.decodeUnknownEither(codec.snapshot)(line.right.base)
        if (Either.isLeft(base))
          throw damaged(stream, p, at(i), "holds a compacted state this version of tmem cannot read")
        version = line.right.version
        opening.base = { state: base.right, version }
        continue
      }
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
    // a compacted journal's history starts after its base line
    return decodeLines(
      stream,
      codec,
      io(stream, p, "read", () => Files.readNoFollow(p)),
      0,
      1,
      {}
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
          const added = decodeLines(
            stream,
            codec,
            bytes.subarray(0, complete),
            known.version,
            known.lines + 1,
            known.end === 0 ? {} : undefined
          )
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
    const opening: Opening<S> = {}
    const rest = decodeLines(
      stream,
      codec,
      read?.rest,
      from?.version ?? 0,
      firstLine,
      start === 0 ? opening : undefined
    )
    const events = rest.flatMap((b) => b.batch.events)
    const origin = from ?? opening.base
    const state = foldStream(codec, origin?.state ?? codec.initialState, events)
    const version = rest.length === 0 ? (origin?.version ?? 0) : rest[rest.length - 1]!.batch.version
    // a compacted journal's base decodes slowly (the whole state in its encoded form): snapshot it for the next reader
    if (
      codec.snapshot !== undefined &&
      read !== undefined &&
      (events.length >= snapshotEvery || opening.base !== undefined)
    ) {
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

  /** The fold kept for the journal at `jp`, with the moment it was kept at. */
  const cachedFold = (jp: string) => folds.get(jp)

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
                ? `memory: ${rel(jp)} ends in a partial line written since the lock was taken ` +
                  "(another writer got past the lock); nothing was written; retry"
                : `memory: ${rel(jp)} already ends at version ${found}, ` +
                  `so a batch following version ${versionBefore} was refused and nothing was written ` +
                  "(another writer got past the lock); retry"
            const conflict =
              found === "partial" ? undefined : new VersionConflict({ stream, expected: versionBefore, actual: found })
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
              text:
                `memory: cannot lock ${feedPath}.lock: ` +
                `another tmem process has held it for over ${Math.min(lockWaitMs, 2_000) / 1000} s ` +
                "(stopped or hung?); nothing was written; end that process and retry",
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
      return (
        `memory: ${rel(p)} ended in a partial batch (a crash during a write); ` +
        `${tail.size - tail.complete} bytes moved to ${rel(p)}.torn`
      )
    })

  /**
   * Rewrites the journal so that its history up to `through` is one base line holding the state at that version
   * (docs/FORMATS.md): the later lines follow byte for byte, versions do not change, and the last batch is always
   * kept. Made durable, then renamed over the journal; the stream's snapshot goes (its offsets named the old
   * file). The caller holds the stream's lock and has reconciled it (no torn tail). Answers how many batches went.
   */
  const compact = <S, E>(stream: string, codec: StreamCodec<S, E>, through: number): number => {
    const p = journalPath(stream)
    const snapshot = codec.snapshot
    if (snapshot === undefined)
      throw new Failure(
        new StoreError({
          stream,
          text: `memory: ${stream} keeps no snapshots, so it cannot be compacted`,
          reason: "invalid"
        })
      )
    const bytes = io(stream, p, "read", () => Files.readNoFollow(p))
    const lines = completeLines(bytes)
    const opening: Opening<S> = {}
    const batches = decodeLines(stream, codec, bytes, 0, 1, opening)
    const offset = opening.base === undefined ? 0 : 1
    // the last batch stays: the projection's check reads the journal's last line
    let kept = batches.findIndex((b) => b.batch.version > through)
    if (kept < 0) kept = batches.length - 1
    if (kept <= 0) return 0
    const forgotten = batches.slice(0, kept)
    const state = foldStream(
      codec,
      opening.base?.state ?? codec.initialState,
      forgotten.flatMap((b) => b.batch.events)
    )
    const last = forgotten[forgotten.length - 1]!.batch
    const head = verifyLine(lines[offset + kept - 1]!)
    const baseLine = encodeLine({
      version: last.version,
      at: last.at,
      events: [],
      base: Schema.encodeSync(snapshot)(state),
      ...(Either.isRight(head) && head.right.projectionHash !== undefined
        ? { projectionHash: head.right.projectionHash }
        : {})
    })
    const rest = lines.slice(offset + kept).map((l) => Buffer.concat([l, NEWLINE]))
    io(stream, p, "compact", () => {
      const temp = Files.writeTemp(p, Buffer.concat([baseLine, ...rest]))
      try {
        fs.fsyncSync(temp.fd)
      } finally {
        fs.closeSync(temp.fd)
      }
      fs.renameSync(temp.path, p)
      Files.fsyncDir(path.dirname(p))
      fs.rmSync(snapshotPath(stream), { force: true })
    })
    folds.delete(p)
    return forgotten.length
  }

  /** A compacted journal's base line as a Base; undefined when the journal keeps its whole history (or is empty). */
  const baseOf = <S, E>(stream: string, codec: StreamCodec<S, E>): Base<S> | undefined => {
    const p = journalPath(stream)
    const first = completeLines(io(stream, p, "read", () => Files.readNoFollow(p)))[0]
    if (first === undefined) return undefined
    const line = verifyLine(first)
    if (Either.isLeft(line)) throw damaged(stream, p, 1, line.left)
    if (line.right.base === undefined) return undefined
    const decoded =
      codec.snapshot === undefined ? undefined : Schema.decodeUnknownEither(codec.snapshot)(line.right.base)
    if (decoded === undefined || Either.isLeft(decoded))
      throw damaged(stream, p, 1, "holds a compacted state this version of tmem cannot read")
    return { state: decoded.right, version: line.right.version, at: line.right.at }
  }

  /**
   * Writes the journal of a stream that starts from `base`: one base line, as compaction leaves it, with the hash
   * of the projection that stands for the state (restored by the next reconcile). Made durable, then renamed into
   * place. The caller holds the stream's lock and found the stream empty.
   */
  const seed = <S, E>(stream: string, codec: StreamCodec<S, E>, base: Base<S>, projectionHash: string | undefined) => {
    const p = journalPath(stream)
    const line = encodeLine({
      version: base.version,
      at: base.at,
      events: [],
      base: Schema.encodeSync(codec.snapshot!)(base.state),
      ...(projectionHash === undefined ? {} : { projectionHash })
    })
    io(stream, p, "write", () => {
      const temp = Files.writeTemp(p, Buffer.concat([line]))
      try {
        fs.fsyncSync(temp.fd)
      } finally {
        fs.closeSync(temp.fd)
      }
      fs.renameSync(temp.path, p)
      Files.fsyncDir(path.dirname(p))
    })
    folds.delete(p)
  }

  return {
    baseOf,
    seed,
    compact,
    encodeKnownLine,
    readTail,
    readAll,
    feedAfter,
    foldAll,
    foldCached,
    cachedFold,
    remember,
    appendBatch,
    cutTornTail,
    feed,
    onFeed,
    feedUnsynced
  }
}

export type Journals = ReturnType<typeof makeJournals>
