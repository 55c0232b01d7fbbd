import * as fs from "node:fs"
import * as path from "node:path"
import { randomBytes } from "node:crypto"

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

/** Writes bytes to a fresh exclusive temp file (0600) beside `target`. */
export const writeTemp = (target: string, bytes: Uint8Array): Pending => {
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.tmp-${randomBytes(8).toString("hex")}`)
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

/** Appends bytes to `file` (created 0600 if absent). */
export const appendTo = (file: string, bytes: Uint8Array): Pending => {
  const fd = fs.openSync(file, "a", 0o600)
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

/** fsync off the event loop, then close at once: closing a file just flushed costs microseconds, a second trip through the thread pool far more. */
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
