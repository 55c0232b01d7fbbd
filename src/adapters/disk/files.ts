import * as fs from "node:fs"
import * as path from "node:path"
import { randomFillSync } from "node:crypto"
import { nativeAddon } from "./nativeAddon.js"

/**
 * The few file primitives the disk store needs, on node:fs directly (docs/adr/0001). Small reads, writes and
 * renames are synchronous: on this kind of machine each async call costs a thread-pool round trip (~70 µs) that
 * dwarfs the syscall (~5 µs). Only fsync, the one call that waits for the disk, runs off the event loop, and the
 * journal's and the projection's fsyncs run at the same time.
 */

/** Bytes of a file, or undefined when it does not exist. */
export const readOptional = (file: string): Buffer | undefined => {
  try {
    return fs.readFileSync(file)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw e
  }
}

export const mtimeMs = (file: string): number | undefined => {
  try {
    return fs.statSync(file).mtimeMs
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw e
  }
}

/** The last `length` bytes before `end` of an open file. */
export const readRange = (fd: number, start: number, length: number): Buffer => {
  const buf = Buffer.allocUnsafe(length)
  let got = 0
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, start + got)
    if (n === 0) break
    got += n
  }
  return buf.subarray(0, got)
}

/** Creates `dir` (0700) and any missing parents; returns whether anything was created. */
export const ensureDir = (dir: string): boolean => {
  if (fs.existsSync(dir)) return false
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  return true
}

/** A file written but not yet durable: fsync it, then close it. */
export interface Pending {
  readonly fd: number
  readonly path: string
}

// Temp names take 8 random bytes each from a pool filled 512 names at a time: a randomBytes call per write cost
// more than the write itself (bench/durableAdd.ts).
const namePool = Buffer.alloc(8 * 512)
let nameAt = namePool.length
const randomSuffix = (): string => {
  if (nameAt >= namePool.length) {
    randomFillSync(namePool)
    nameAt = 0
  }
  nameAt += 8
  return namePool.toString("hex", nameAt - 8, nameAt)
}

/** Writes bytes to a fresh exclusive temp file (0600) beside `target`. */
export const writeTemp = (target: string, bytes: Uint8Array): Pending => {
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.tmp-${randomSuffix()}`)
  const fd = fs.openSync(tmp, "wx", 0o600)
  try {
    writeAll(fd, bytes)
  } catch (e) {
    fs.closeSync(fd)
    fs.rmSync(tmp, { force: true })
    throw e
  }
  return { fd, path: tmp }
}

const { O_APPEND, O_CREAT, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_WRONLY } = fs.constants

/** Appends bytes to `file` (created 0600 if absent); a symbolic link is refused (ELOOP), never followed. */
export const appendTo = (file: string, bytes: Uint8Array): Pending => {
  const fd = fs.openSync(file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, 0o600)
  try {
    writeAll(fd, bytes)
  } catch (e) {
    fs.closeSync(fd)
    throw e
  }
  return { fd, path: file }
}

/** Writes every byte: a single write may be short. */
export const writeAll = (fd: number, bytes: Uint8Array) => {
  let off = 0
  while (off < bytes.length) off += fs.writeSync(fd, bytes, off, bytes.length - off)
}

/**
 * fsync off the event loop, then close at once: closing a file just flushed costs microseconds, a second trip through
 * the thread pool far more.
 */
export const syncAndClose = (p: Pending): Promise<void> =>
  new Promise((resolve, reject) =>
    fs.fsync(p.fd, (err) => {
      try {
        fs.closeSync(p.fd)
      } catch {
        // the bytes are flushed (or the fsync error says why not); a failed close adds nothing
      }
      if (err) reject(err)
      else resolve()
    })
  )

/** Closes without syncing (used when the write is being abandoned). */
export const closeQuietly = (p: Pending) => {
  try {
    fs.closeSync(p.fd)
  } catch {
    // already closed
  }
}

/** Makes a directory's entries (a new file, a rename) durable. */
export const fsyncDir = (dir: string) => {
  const fd = fs.openSync(dir, "r")
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Which file a path names, precisely enough to tell two saves apart: an atomic save is a new inode, an in-place
 * save changes the size or the nanosecond mtime. (ctime is left out: the store's own renames change it.)
 */
export interface Identity {
  readonly dev: bigint
  readonly ino: bigint
  readonly size: bigint
  readonly mtimeNs: bigint
}

const identityOf = (s: fs.BigIntStats): Identity => ({ dev: s.dev, ino: s.ino, size: s.size, mtimeNs: s.mtimeNs })

/**
 * An identity that also moves with anything done to the file: the inode change time, which every write, rename,
 * chmod or timestamp change sets to now and which no call can set back (a restored mtime, even to the nanosecond,
 * still moves it).
 */
export interface Stamp extends Identity {
  readonly ctimeNs: bigint
}

const stampOf = (s: fs.BigIntStats): Stamp => ({ ...identityOf(s), ctimeNs: s.ctimeNs })

export const sameStamp = (a: Stamp | undefined, b: Stamp | undefined): boolean =>
  a !== undefined && b !== undefined && sameIdentity(a, b) && a.ctimeNs === b.ctimeNs

/** The stamp of an open file. */
export const stampOfFd = (fd: number): Stamp => stampOf(fs.fstatSync(fd, { bigint: true }))

/** What `file` names now (the link itself, never its target), or undefined when absent. */
const lstatOptional = (file: string): fs.BigIntStats | undefined => {
  try {
    return fs.lstatSync(file, { bigint: true })
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw e
  }
}

/** The stamp of what `file` names now (the link itself, never its target), or undefined when absent. */
export const stamp = (file: string): Stamp | undefined => {
  const s = lstatOptional(file)
  return s === undefined ? undefined : stampOf(s)
}

/**
 * The stamp of `file` when it is a regular file holding exactly `bytes`, read through one descriptor and unchanged
 * across the read; otherwise (another content, a link, gone, changing) undefined.
 */
export const stampIfHolds = (file: string, bytes: Uint8Array): Stamp | undefined => {
  let fd: number
  try {
    fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  } catch {
    return undefined
  }
  try {
    const before = fs.fstatSync(fd, { bigint: true })
    if (!before.isFile() || before.size !== BigInt(bytes.length)) return undefined
    const read = readRange(fd, 0, bytes.length + 1)
    const after = stampOf(fs.fstatSync(fd, { bigint: true }))
    return sameStamp(stampOf(before), after) && read.equals(bytes) ? after : undefined
  } catch {
    return undefined
  } finally {
    fs.closeSync(fd)
  }
}

export const sameIdentity = (a: Identity | undefined, b: Identity | undefined): boolean =>
  a === undefined || b === undefined
    ? a === b
    : a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs

/** The identity of what `file` names now (the link itself, never its target), or undefined when absent. */
export const identity = (file: string): Identity | undefined => {
  const s = lstatOptional(file)
  return s === undefined ? undefined : identityOf(s)
}

/** A file as read: its identity, its bytes unless it was larger than the limit, and whether it held still. */
export interface Snapshot {
  readonly identity: Identity
  /** Undefined when the file was larger than the limit: it was not read at all. */
  readonly bytes: Buffer | undefined
  /** Size, mtime and inode were the same before and after the read: not caught in the middle of a save. */
  readonly steady: boolean
}

/**
 * Opens a regular file that must not be a symbolic link (ELOOP) and hands `use` its descriptor and fstat; undefined
 * when the file does not exist. Non-blocking, so a FIFO put in the file's place cannot hang the open; it is then
 * refused as not a file.
 */
export const withNoFollow = <A>(file: string, use: (fd: number, stat: fs.BigIntStats) => A): A | undefined => {
  let fd: number
  try {
    fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw e
  }
  try {
    const stat = fs.fstatSync(fd, { bigint: true })
    if (!stat.isFile()) throw Object.assign(new Error("not a regular file"), { code: "EISDIR" })
    return use(fd, stat)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Reads a regular file without following a symbolic link, sized by fstat first so a huge file is never read just to
 * be refused. Undefined when absent.
 */
export const readSnapshot = (file: string, maxBytes = Number.MAX_SAFE_INTEGER): Snapshot | undefined =>
  withNoFollow(file, (fd, stat) => {
    const before = identityOf(stat)
    if (stat.size > BigInt(maxBytes)) return { identity: before, bytes: undefined, steady: true }
    // one byte more than the size, to notice a file that grows while it is read
    const bytes = readRange(fd, 0, Number(stat.size) + 1)
    const after = identityOf(fs.fstatSync(fd, { bigint: true }))
    // a name renamed over meanwhile points at another file: compare what the name holds now, not only the open inode
    const steady =
      sameIdentity(before, after) && sameIdentity(identity(file), after) && BigInt(bytes.length) === after.size
    return { identity: before, bytes, steady }
  })

/** Bytes of a file that must not be a symbolic link, or undefined when it does not exist. */
export const readNoFollow = (file: string): Buffer | undefined => readSnapshot(file)?.bytes

// renameat2(RENAME_EXCHANGE) from the native addon; a platform without the binding still works, with a
// check-then-rename whose window is a few microseconds instead of none.
const swapSync = (): ((from: string, to: string) => void) | undefined => {
  try {
    return nativeAddon().swapSync
  } catch {
    return undefined
  }
}

/** What happened to a guarded replacement: done, or the target was not the expected file and was left alone. */
export type Replaced = { readonly done: true } | { readonly done: false; readonly keptAside?: string }

/** Removes a file that may already be gone; one unlink (rmSync would lstat it first). */
const removeQuietly = (file: string) => {
  try {
    fs.unlinkSync(file)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e
  }
}

// Displaced files waiting to be unlinked, off the caller's path (below).
const unlinking = new Set<Promise<void>>()

/**
 * Unlinks a displaced file in the thread pool: freeing a file that was just fsynced costs ~0.1 ms of journal work
 * that no caller needs to wait for. Should the process die first, the file is a temp file, swept under the lock by
 * the next writer.
 */
const removeLater = (file: string) => {
  const done: Promise<void> = new Promise((resolve) => fs.unlink(file, () => resolve()))
  unlinking.add(done)
  void done.then(() => unlinking.delete(done))
}

/** Resolves once every displaced file handed to the thread pool is gone (a store's shutdown waits for it). */
export const unlinked = (): Promise<void> => Promise.all(unlinking).then(() => undefined)

/**
 * Moves `temp` onto `target` only if `target` is still the file `expected` names (undefined: no file at all). A
 * person's save that landed in between is never overwritten: with an atomic exchange the displaced file is
 * inspected and, if it is not the expected one, swapped back. `aside` (gives a free name) is where an older save is
 * kept when a newer one raced even the swap back.
 */
export const replaceIf = (
  temp: string,
  target: string,
  expected: Identity | undefined,
  aside: () => string
): Replaced => {
  if (expected === undefined) {
    // a hard link never replaces an existing name, so a file created meanwhile is left alone
    try {
      fs.linkSync(temp, target)
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code !== "EEXIST" && identity(target) === undefined) {
        // a file system without hard links: check, then rename
        fs.renameSync(temp, target)
        return { done: true }
      }
      removeQuietly(temp)
      return { done: false }
    }
    removeQuietly(temp)
    return { done: true }
  }
  const exchange = swapSync()
  if (exchange === undefined) {
    if (!sameIdentity(identity(target), expected)) {
      removeQuietly(temp)
      return { done: false }
    }
    fs.renameSync(temp, target)
    return { done: true }
  }
  const ours = identity(temp)
  try {
    exchange(temp, target)
  } catch (e) {
    // the target went away meanwhile (deleted): nothing of a person's to protect, put the projection back
    if ((e as NodeJS.ErrnoException).code === "ENOENT" && fs.existsSync(temp))
      return replaceIf(temp, target, undefined, aside)
    removeQuietly(temp)
    throw e
  }
  if (sameIdentity(identity(temp), expected)) {
    removeLater(temp)
    return { done: true }
  }
  exchange(temp, target)
  const back = identity(temp)
  if (sameIdentity(back, ours)) {
    removeQuietly(temp)
    return { done: false }
  }
  // An in-place save opens the file by its name: if it wrote into the new projection while that was in place, the
  // new file now holds the latest save, so it goes back to the name and the file it displaced is kept aside.
  if (back !== undefined && ours !== undefined && back.dev === ours.dev && back.ino === ours.ino) exchange(temp, target)
  const keptAside = aside()
  fs.renameSync(temp, keptAside)
  return { done: false, keptAside }
}

const TEMP_NAME = /^\.(.+)\.tmp-[0-9a-f]{16}$/

/**
 * The temp files in `dir` (`.<name>.tmp-<16 hex>`) for the names `owns` accepts; with `remove`, removes them.
 * Removing is safe only under the owner's lock: another process's temp file is in flight until it lets go.
 */
export const leftoverTemps = (dir: string, owns: (name: string, temp: string) => boolean, remove: boolean): number => {
  let names: Array<string>
  try {
    names = fs.readdirSync(dir)
  } catch {
    return 0
  }
  let found = 0
  for (const n of names) {
    const m = TEMP_NAME.exec(n)
    if (m === null || !owns(m[1]!, path.join(dir, n))) continue
    if (remove) removeQuietly(path.join(dir, n))
    found++
  }
  return found
}
