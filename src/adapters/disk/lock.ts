import { Clock, Duration, Effect } from "effect"
import * as fs from "node:fs"
import { nativeAddon } from "./nativeAddon.js"

/**
 * A journal's cross-process lock (DESIGN §7 "Lock"): an exclusive kernel advisory lock on `<journal>.lock`, through
 * fs-native-extensions — on Linux an open-file-description lock (fcntl F_OFD_SETLK), flock on macOS, LockFileEx on
 * Windows. The kernel drops it when the descriptor is closed, so also when its holder exits or is killed, and
 * nothing else ever does: no timer hands a stalled (stopped, paused, swapped-out) holder's lock to another writer.
 * Being bound to the open file rather than to the process, it also excludes a second open in the same process and
 * survives the closing of any other descriptor of the file (classic POSIX record locks would fail both). Node opens
 * files close-on-exec, so a child process never inherits the lock.
 *
 * The lock file is created (0600) and never deleted: deleting it while a writer holds it would let the next writer
 * lock a new file of the same name. Should a person delete it anyway, a writer whose locked file is no longer the
 * one the name points to lets go and tries again, so writers never split across two files for long, and the
 * journal's own version check (appendBatch, ./journals.ts) refuses a batch that does not follow its last line.
 */

/** Loads the addon (./nativeAddon.ts: once, on the first lock, never for commands that only read). */
export const ready: Effect.Effect<void, unknown> = Effect.try({ try: () => void nativeAddon(), catch: (e) => e })

/** Write access is needed: an exclusive lock on a descriptor opened read-only fails with EBADF. */
const FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | (fs.constants.O_NOFOLLOW ?? 0)

/** tmem before the kernel lock kept a directory here (proper-lockfile), refreshed every second and stale after 4 s. */
const LEGACY_STALE_MS = 4_000

/** The lock was not free within the wait allowed. */
export class LockBusy {
  readonly _tag = "LockBusy"
  constructor(readonly waitedMs: number) {}
}

const closeQuietly = (fd: number) => {
  try {
    fs.closeSync(fd)
  } catch {
    // nothing to release
  }
}

const lockedNow = (fd: number): boolean => {
  try {
    return nativeAddon().tryLock(fd)
  } catch (e) {
    // POSIX lets a conflict be EACCES as well as EAGAIN (the addon maps only EAGAIN to false)
    if ((e as NodeJS.ErrnoException).code === "EACCES") return false
    throw e
  }
}

/**
 * An empty lock directory left by an older tmem: removed once its owner has stopped refreshing it (by that version's
 * own rule, so a still-running old writer keeps it); until then the lock is busy.
 */
const clearLegacyDirectory = (file: string, isDirectory: unknown): void => {
  const info = fs.statSync(file)
  if (Date.now() - info.mtimeMs < LEGACY_STALE_MS) return
  try {
    fs.rmdirSync(file)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    // another writer removed it first (ENOENT) or already replaced it with the lock file (ENOTDIR); a directory
    // with something in it is not a lock of ours: say that a directory is in the way
    if (code !== "ENOENT" && code !== "ENOTDIR") throw code === "ENOTEMPTY" || code === "EEXIST" ? isDirectory : e
  }
}

/** One attempt: the descriptor holding the lock, or undefined when another holder has it. */
export const tryTake = (file: string): number | undefined => {
  let fd: number
  try {
    fd = fs.openSync(file, FLAGS, 0o600)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EISDIR") throw e
    clearLegacyDirectory(file, e)
    return undefined
  }
  try {
    if (lockedNow(fd)) {
      // a lock on a file that was deleted (and perhaps recreated) since it was opened excludes no one
      const held = fs.fstatSync(fd)
      const named = fs.statSync(file, { throwIfNoEntry: false })
      if (named !== undefined && named.ino === held.ino && named.dev === held.dev) return fd
    }
  } catch (e) {
    closeQuietly(fd)
    throw e
  }
  closeQuietly(fd)
  return undefined
}

/**
 * The lock at once, or undefined when it is not free or cannot be taken without more ado (the addon not loaded yet,
 * any error): the caller then goes through `acquire`, which waits and reports.
 */
export const takeNow = (file: string): number | undefined => {
  try {
    nativeAddon()
    return tryTake(file)
  } catch {
    return undefined
  }
}

/** Closing the only descriptor of the open file releases the lock. */
export const release = (fd: number) => closeQuietly(fd)

/** Short, jittered pauses: a critical section lasts a few milliseconds (one fsync), so poll about that often. */
const pauseMs = (attempt: number) => Math.min(8, 0.25 * 1.5 ** attempt) * (0.5 + Math.random())

/**
 * Takes the lock, polling with jittered back-off for up to `waitMs`. Not the addon's blocking wait: that would park
 * a libuv thread-pool thread (4 by default) in fcntl(F_OFD_SETLKW) for as long as another process holds the lock,
 * and could not be given up after `waitMs`. A few such waits (one per stream) would fill the pool and starve this
 * process's fsyncs, which run there: holding another stream's lock meanwhile, it could never finish that write and
 * release it, and two processes doing this to each other would deadlock. Polling keeps every wait on a timer; only
 * the pauses are interruptible, so a descriptor that holds the lock always reaches the caller (who releases it) and
 * is never dropped by an interruption.
 */
export const acquire = (file: string, waitMs: number): Effect.Effect<number, LockBusy | unknown> =>
  Effect.flatMap(Effect.zipRight(ready, Clock.currentTimeMillis), (start) => {
    const attempt = (n: number): Effect.Effect<number, LockBusy | unknown> =>
      Effect.flatMap(Effect.try({ try: () => tryTake(file), catch: (e) => e }), (fd) =>
        fd !== undefined
          ? Effect.succeed(fd)
          : Effect.flatMap(Clock.currentTimeMillis, (now) => {
              const left = waitMs - (now - start)
              if (left <= 0) return Effect.fail(new LockBusy(now - start))
              return Effect.zipRight(
                Effect.interruptible(Effect.sleep(Duration.millis(Math.min(left, pauseMs(n))))),
                attempt(n + 1)
              )
            })
      )
    return attempt(0)
  })
