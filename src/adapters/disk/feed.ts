import * as fs from "node:fs"
import * as path from "node:path"
import { isValidStreamName } from "../../domain/kernel/Stream.js"
import * as Files from "./files.js"
import * as Lock from "./lock.js"

/**
 * The disk store's feed (DESIGN §7 "Port shape"): `journal/feed.log`, one line per appended batch of any stream,
 * `{"position","stream","version","checksum"}`, positions 1, 2, 3… with no gaps. It is an index, not a second copy
 * of the events: a reader takes each batch from its stream's journal, and the line's checksum (the journal line's
 * own) says it is that very batch.
 *
 * A writer holds its stream's lock; it then takes the feed's lock (`feed.log.lock`, the same kind of kernel lock),
 * writes the feed line, appends its journal line and lets the feed lock go, all in one synchronous step, and fsyncs
 * both files with the projection. The feed line goes first, so a batch can never be in a journal without a
 * position (a crash between the two writes leaves a feed line naming a batch that never came: readers pass it
 * over); a journal append that fails takes its feed line back.
 *
 * A store written before the feed existed has none: the first writer builds it from the journals (every batch in
 * the order of its time, then stream, then version) before its own line, and readers see the same order until then.
 */

export interface FeedLine {
  readonly position: number
  readonly stream: string
  readonly version: number
  /** The journal line's checksum; empty for lines written before journals had checksums. */
  readonly checksum: string
}

/** The feed's file name inside `journal/`: not a `.jsonl`, so no stream can be named so. */
export const FEED_FILE = "feed.log"

const encode = (l: FeedLine): string =>
  `${JSON.stringify({ position: l.position, stream: l.stream, version: l.version, checksum: l.checksum })}\n`

/** A feed line, or undefined when the bytes are not one. */
const decode = (text: string): FeedLine | undefined => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof json !== "object" || json === null) return undefined
  const { position, stream, version, checksum } = json as Record<string, unknown>
  return Number.isSafeInteger(position) &&
    typeof stream === "string" &&
    isValidStreamName(stream) &&
    Number.isSafeInteger(version) &&
    typeof checksum === "string"
    ? { position: position as number, stream, version: version as number, checksum }
    : undefined
}

/** The feed is damaged beyond a torn last line: which line, and why. */
export class FeedDamaged extends Error {
  constructor(
    readonly line: number,
    readonly why: string
  ) {
    super(line > 0 ? `line ${line} ${why}` : why)
  }
}

/** The feed lock was not free within the wait allowed. */
export class FeedBusy extends Error {}

const { O_APPEND, O_CREAT, O_NOFOLLOW, O_RDONLY, O_RDWR } = fs.constants

const pause = new Int32Array(new SharedArrayBuffer(4))
/** Blocks this thread for `ms`: the feed lock is held for a few microseconds, so a wait for it is short. */
const sleepSync = (ms: number) => void Atomics.wait(pause, 0, 0, ms)

/** The head of one journal line, as the feed needs it, or undefined when the line does not parse. */
const headOf = (text: string): { version: number; at: string; checksum: string; base: boolean } | undefined => {
  try {
    const json = JSON.parse(text) as Record<string, unknown>
    if (!Number.isSafeInteger(json["version"]) || typeof json["at"] !== "string") return undefined
    return {
      version: json["version"] as number,
      at: json["at"],
      checksum: typeof json["checksum"] === "string" ? json["checksum"] : "",
      base: json["base"] !== undefined
    }
  } catch {
    return undefined
  }
}

/**
 * Every batch already in the journals under `root`, in the order a feed built from them gives: by time, then stream,
 * then version. A journal's damaged or partial line ends what is taken from it (its stream's load reports it).
 */
export const fromJournals = (
  root: string,
  skip: ReadonlySet<string> = new Set()
): Array<Omit<FeedLine, "position">> => {
  let names: Array<string>
  try {
    names = fs.readdirSync(root, { recursive: true, encoding: "utf8" })
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return []
    throw e
  }
  const found: Array<Omit<FeedLine, "position"> & { readonly at: string }> = []
  for (const name of names) {
    if (!name.endsWith(".jsonl")) continue
    const stream = name.slice(0, -".jsonl".length).split(path.sep).join("/")
    if (!isValidStreamName(stream) || skip.has(stream)) continue
    const bytes = Files.readNoFollow(path.join(root, name))
    if (bytes === undefined) continue
    const text = bytes.toString("utf8")
    const lines = text.split("\n")
    lines.pop()
    for (const line of lines) {
      const head = headOf(line)
      if (head === undefined) break
      // a compacted journal's base line stands for batches the feed passes over: it is no batch of its own
      if (head.base) continue
      found.push({ stream, version: head.version, checksum: head.checksum, at: head.at })
    }
  }
  found.sort((a, b) =>
    a.at !== b.at
      ? a.at < b.at
        ? -1
        : 1
      : a.stream !== b.stream
        ? a.stream < b.stream
          ? -1
          : 1
        : a.version - b.version
  )
  return found.map(({ stream, version, checksum }) => ({ stream, version, checksum }))
}

/** The complete lines of `bytes` (a last line still being written is left for the next read), and where they end. */
const completeLines = (bytes: Buffer): { lines: Array<string>; end: number } => {
  const last = bytes.lastIndexOf(10)
  return last < 0 ? { lines: [], end: 0 } : { lines: bytes.toString("utf8", 0, last).split("\n"), end: last + 1 }
}

export const make = (root: string, lockWaitMs: number) => {
  const file = path.join(root, FEED_FILE)
  const lockFile = `${file}.lock`

  // What this store last wrote: while the feed still shows that stamp, its last position is known without reading.
  let written: { readonly stamp: Files.Stamp; readonly last: number } | undefined

  // A holder keeps the feed lock for two small writes, so a wait is short; it blocks this thread, so it is bounded
  // tighter than a stream lock's (a holder stopped in those microseconds fails the append, which wrote nothing).
  const waitMs = Math.min(lockWaitMs, 2_000)

  /** The feed lock, waiting for another process that holds it up to `waitMs`. */
  const takeLock = (): number => {
    const start = Date.now()
    for (let n = 0; ; n++) {
      const fd = Lock.tryTake(lockFile)
      if (fd !== undefined) return fd
      if (Date.now() - start > waitMs) throw new FeedBusy(`${lockFile} held for over ${waitMs} ms`)
      sleepSync(Math.min(4, 0.1 * 2 ** n))
    }
  }

  /**
   * The last position of the feed open as `fd`, and its size. A torn last line (a crash mid-write) is cut off when
   * `cut` (a writer holding the lock), else passed over.
   */
  const lastPosition = (fd: number, cut: boolean): { readonly last: number; readonly size: number } => {
    const stamp = Files.stampOfFd(fd)
    const size = Number(stamp.size)
    if (written !== undefined && Files.sameStamp(written.stamp, stamp)) return { last: written.last, size }
    if (size === 0) return { last: 0, size }
    const chunk = Math.min(size, 4096)
    const tail = Files.readRange(fd, size - chunk, chunk)
    const end = tail.lastIndexOf(10)
    if (end < 0) {
      if (chunk < size) throw new FeedDamaged(0, "has a last line longer than 4 KB")
      if (!cut) return { last: 0, size }
      fs.ftruncateSync(fd, 0)
      return { last: 0, size: 0 }
    }
    const complete = size - chunk + end + 1
    if (cut && complete < size) fs.ftruncateSync(fd, complete)
    const start = tail.lastIndexOf(10, end - 1) + 1
    if (start === 0 && chunk < size) throw new FeedDamaged(0, "has a last line longer than 4 KB")
    const line = decode(tail.toString("utf8", start, end))
    if (line === undefined) throw new FeedDamaged(0, "ends in a line that is not a feed entry")
    return { last: line.position, size: cut ? complete : size }
  }

  /** The feed's last position, read from its end (a reader's `head`). */
  const last = (): number => {
    let fd: number
    try {
      fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e
      return fromJournals(root).length
    }
    try {
      return lastPosition(fd, false).last
    } finally {
      fs.closeSync(fd)
    }
  }

  /**
   * Runs `append` (a journal append of `stream` up to `version`, whose line has `checksum`) with the feed locked and
   * the batch's feed line written before it. Returns what `append` returned, the batch's position and the feed's
   * write, to be made durable with the journal's. If `append` throws, the feed line is taken back.
   */
  const around = <A>(
    stream: string,
    version: number,
    checksum: string,
    append: () => A
  ): { readonly result: A; readonly position: number; readonly pending: Files.Pending } => {
    const lock = takeLock()
    try {
      const fd = fs.openSync(file, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW, 0o600)
      try {
        let { last, size: before } = lastPosition(fd, true)
        if (last === 0) {
          // the first line of this feed: batches written before there was one come first
          const earlier = fromJournals(root)
          if (earlier.length > 0) {
            const lines = Buffer.from(earlier.map((l, i) => encode({ ...l, position: i + 1 })).join(""))
            Files.writeAll(fd, lines)
            last = earlier.length
            before += lines.length
          }
        }
        const position = last + 1
        Files.writeAll(fd, Buffer.from(encode({ position, stream, version, checksum })))
        let result: A
        try {
          result = append()
        } catch (e) {
          fs.ftruncateSync(fd, before)
          written = undefined
          throw e
        }
        written = { stamp: Files.stampOfFd(fd), last: position }
        return { result, position, pending: { fd, path: file } }
      } catch (e) {
        fs.closeSync(fd)
        throw e
      }
    } finally {
      Lock.release(lock)
    }
  }

  /**
   * Whether no writer holds the feed lock right now (a feed line whose batch is missing is then a crash's
   * leftover).
   */
  const idle = (): boolean => {
    let fd: number | undefined
    try {
      fd = Lock.tryTake(lockFile)
    } catch {
      return false
    }
    if (fd === undefined) return false
    Lock.release(fd)
    return true
  }

  // The feed as read so far: its lines (position i + 1 at index i) and the offset just past them.
  // The part of the feed read so far: `lines` (position base + i + 1 at index i) from byte `start` to `end`.
  let cache: { ino: bigint; base: number; start: number; end: number; lines: Array<FeedLine> } | undefined

  /**
   * The byte offset of the first line with a position above `after`, found by bisecting the file (its lines are in
   * position order): a reader that resumes near the end reads only the end, however long the feed.
   */
  const seek = (fd: number, size: number, after: number): number => {
    let lo = 0
    let hi = size
    while (hi - lo > 16 * 1024) {
      const mid = lo + Math.floor((hi - lo) / 2)
      const chunk = Files.readRange(fd, mid, Math.min(8 * 1024, size - mid))
      const nl = chunk.indexOf(10)
      const end = nl < 0 ? -1 : chunk.indexOf(10, nl + 1)
      if (end < 0 || mid + nl + 1 >= hi) {
        hi = mid
        continue
      }
      const line = decode(chunk.toString("utf8", nl + 1, end))
      if (line === undefined)
        throw new FeedDamaged(0, `holds a line that is not a feed entry near byte ${mid + nl + 1}`)
      if (line.position <= after) lo = mid + end + 1
      else hi = mid + nl + 1
    }
    return lo
  }

  /**
   * The feed's lines after position `after`, each with its position. Without a feed file, the order the first writer
   * will give the batches already in the journals (nothing is written: a reader may have no right to). `fresh` reads
   * the file anew.
   */
  const linesAfter = (after: number, fresh = false): ReadonlyArray<FeedLine> => {
    if (fresh) cache = undefined
    let fd: number
    try {
      fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e
      cache = undefined
      return fromJournals(root)
        .map((l, i) => ({ ...l, position: i + 1 }))
        .slice(Math.max(0, after))
    }
    try {
      const info = fs.fstatSync(fd, { bigint: true })
      const size = Number(info.size)
      // a feed replaced (rebuilt) or cut back below what was read, or a reader going back before what it read,
      // starts again at the first line it needs
      if (cache === undefined || cache.ino !== info.ino || size < cache.end || after < cache.base) {
        const start = seek(fd, size, after)
        cache = { ino: info.ino, base: -1, start, end: start, lines: [] }
      }
      if (size > cache.end) {
        const { lines, end } = completeLines(Files.readRange(fd, cache.end, size - cache.end))
        for (const text of lines) {
          const line = decode(text)
          if (cache.base < 0 && line !== undefined) cache.base = line.position - 1
          const n = cache.base + cache.lines.length + 1
          const why =
            line === undefined
              ? "is not a feed entry"
              : line.position !== n
                ? `has position ${line.position} where ${n} belongs`
                : undefined
          if (why !== undefined) {
            cache = undefined
            throw new FeedDamaged(Math.max(n, 1), why)
          }
          cache.lines.push(line!)
        }
        cache.end += end
      }
      if (cache.base < 0) return []
      return cache.lines.slice(Math.max(0, after - cache.base))
    } finally {
      fs.closeSync(fd)
    }
  }

  return { file, around, idle, linesAfter, last }
}

export type Feed = ReturnType<typeof make>
