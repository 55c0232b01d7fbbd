import { Duration, Effect, Either, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  batchCodec,
  type CodecOf,
  foldStream,
  isValidConsumerName,
  isValidStreamName,
  type Projections,
  type StreamCodec
} from "../../domain/kernel/Stream.js"
import {
  type Appended,
  type Base,
  EventStore,
  type Loaded,
  StoreError,
  VersionConflict
} from "../../ports/EventStore.js"
import { pollingSubscribe } from "../feedPolling.js"
import { nowIso } from "../../app/clock.js"
import { oneLine, storeError } from "./errors.js"
import { Failure, makeContext, Moved, type Reconciled, type Stage } from "./context.js"
import { makeFileSetProjection } from "./fileSetProjection.js"
import * as Files from "./files.js"
import { type JournalLine, sha256, utf8 } from "./journal.js"
import { type Journaled, makeJournals } from "./journals.js"
import * as Lock from "./lock.js"
import { makeTextProjection } from "./textProjection.js"

/**
 * The disk store: one journal per stream, projected onto files (./journals.ts, ./textProjection.ts,
 * ./fileSetProjection.ts). It owns what ties them into the EventStore port: the locks a write takes, staging a
 * batch and making it durable, the reconcile under the lock that repairs what a crash or a person left, the
 * lock-free fast load, the sweeping of a crashed writer's temp files, and the feed's and checkpoints' calls.
 */

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

export const make = (options: DiskOptions) =>
  Effect.sync(() => {
    const context = makeContext(options)
    const {
      dir,
      lockWaitMs,
      settleMs,
      settleWaitMs,
      journalPath,
      textOf,
      filesOf,
      projectionPath,
      textFiles,
      rel,
      shown,
      io,
      failureOf,
      attempt
    } = context
    const journals = makeJournals(context)
    const {
      encodeKnownLine,
      readTail,
      readAll,
      feedAfter,
      foldAll,
      foldCached,
      remember,
      appendBatch,
      cutTornTail,
      feed,
      onFeed,
      feedUnsynced
    } = journals
    // A reconcile records what it found (an import, an adopted or refused hand edit, a recovered batch) as a write
    // does: the projections stage it through `stage`, defined below.
    const stageFound: Stage = (stream, codec, stateBefore, versionBefore, events, at) =>
      stage(stream, codec, stateBefore, versionBefore, events, at)
    const {
      rememberWrite,
      forgetWrite,
      knownState,
      unmoved,
      placeProjection,
      reconcileText,
      fastLoad: fastLoadText
    } = makeTextProjection(context, journals, stageFound)
    const {
      stageFiles,
      reconcileFiles,
      unchangedSinceVerified,
      fastLoad: fastLoadFiles
    } = makeFileSetProjection(context, journals, stageFound)

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

    /**
     * Writes a batch's journal line and its new projection (to a temp file). Both are fsynced in parallel, one disk
     * flush instead of two; the projection is renamed into place only once both are durable, so a crash leaves either
     * the old projection (repaired on load: it is one batch behind) or the new one, never a torn file.
     */
    const stage: Stage = (stream, codec, stateBefore, versionBefore, events, at) => {
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
      forgetWrite(stream)
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
                  text:
                    `memory: cannot lock ${shown(lockPath)}: ` +
                    `another tmem process has held it for over ${Math.round(e.waitedMs / 100) / 10} s ` +
                    "(stopped or hung?); end that process (its lock goes with it) and retry",
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
      // every temp file in the projection's own subdirectories is its writers'
      for (const sub of filesOf(stream)!.directories ?? [])
        found += Files.leftoverTemps(path.join(dir, ...sub.split("/")), () => true, remove)
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
          if (target === undefined || textOf(stream) === undefined) return foldCached(stream, codec, tail)
          try {
            return reconcileText(stream, codec, target, tail, at, warnings)
          } catch (e) {
            // the file moved between reading it and recording what was read: look again shortly
            if (e instanceof Moved) return { unsettled: foldAll(stream, codec), retryInMs: settleMs }
            throw e
          }
        })
        for (const w of warnings) yield* Effect.logWarning(w)
        if ("staged" in outcome) {
          yield* outcome.staged.finish
          const r = outcome.staged.result
          return { state: r.state, version: r.batch.version } satisfies Loaded<S>
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
    ): Effect.Effect<Loaded<S>, StoreError> =>
      // the stamps are read through `attempt`: a file that cannot be stat'ed is a StoreError, not a defect
      Effect.flatMap(
        attempt(() => (swept.has(stream) ? knownState<S>(stream) : undefined)),
        (known): Effect.Effect<Loaded<S>, StoreError> =>
          known !== undefined ? Effect.succeed(known) : reconcileLoop(stream, codec, at, forWrite)
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
                text:
                  `memory: ${rel(name)} is being saved by another program ` +
                  `and did not settle within ${settleWaitMs} ms; nothing was written — retry once the save is done`,
                reason: "unavailable"
              })
            )
          }
          yield* Effect.sleep(Duration.millis(Math.min(outcome.retryInMs, Math.max(1, deadline - Date.now()))))
        }
      })

    /** Lock-free fast path: the projection's hash matches the journal's last batch, so the projection is the state. */
    const tryFastLoad = <S, E>(stream: string, codec: StreamCodec<S, E>): Loaded<S> | undefined => {
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
        const unchanged = unchangedSinceVerified<S>(stream)
        if (unchanged !== undefined) return unchanged
      }
      const known = knownState<S>(stream)
      if (known !== undefined) return known
      const target = projectionPath(stream)
      const tail = readTail(stream, journalPath(stream))
      if (tail.complete < tail.size) return undefined
      if (filesOf(stream) !== undefined) return fastLoadFiles(stream, codec, tail)
      const text = textOf(stream)
      if (target === undefined || text === undefined)
        return tail.exists ? foldCached(stream, codec, tail) : { state: codec.initialState, version: 0 }
      return fastLoadText(stream, codec, target, text, tail)
    }

    const checkSeed = <S, E>(stream: string, codec: StreamCodec<S, E>, base: Base<S>) =>
      codec.snapshot === undefined
        ? Effect.fail(
            new StoreError({
              stream,
              text: `memory: ${stream} keeps no snapshots, so it cannot start from a compacted state`,
              reason: "invalid"
            })
          )
        : !Number.isSafeInteger(base.version) || base.version < 1
          ? Effect.fail(
              new StoreError({
                stream,
                text: `memory: a stream starts from version 1 or later, not ${base.version}`,
                reason: "invalid"
              })
            )
          : Effect.void

    /** The hash a seeded journal's base line carries: of the projection (or its manifest) that stands for `state`. */
    const seededHash = (stream: string, state: unknown): string | undefined => {
      const files = filesOf(stream)
      if (files !== undefined) return sha256(utf8.encode(files.render(state).get(files.manifest) ?? ""))
      const text = textOf(stream)
      return text !== undefined && projectionPath(stream) !== undefined
        ? sha256(utf8.encode(text.render(state)))
        : undefined
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
              return loaded
            }
          )
        ),
      compact: <S, E>(stream: string, codec: StreamCodec<S, E>, through: number) =>
        Effect.zipRight(
          checkStream(stream),
          Effect.flatMap(nowIso, (at) =>
            withLock(
              stream,
              // reconciled first: a torn tail is cut and a person's edit recorded before the history is rewritten
              Effect.zipRight(
                reconcile(stream, codec, at, true),
                attempt(() => journals.compact(stream, codec, through))
              )
            )
          )
        ),
      base: <S, E>(stream: string, codec: StreamCodec<S, E>) =>
        Effect.zipRight(
          checkStream(stream),
          attempt(() => journals.baseOf(stream, codec))
        ),
      seed: <S, E>(stream: string, codec: StreamCodec<S, E>, base: Base<S>) =>
        Effect.zipRight(
          Effect.zipRight(checkStream(stream), checkSeed(stream, codec, base)),
          Effect.flatMap(nowIso, (at) =>
            withLock(
              stream,
              Effect.gen(function* () {
                // reconciled first: a directory holding this stream's files without a journal holds something
                const found = yield* reconcile(stream, codec, at, true)
                if (found.version !== 0)
                  return yield* Effect.fail(new VersionConflict({ stream, expected: 0, actual: found.version }))
                yield* attempt(() => {
                  forgetWrite(stream)
                  journals.seed(stream, codec, base, seededHash(stream, base.state))
                })
                // the projection is missing, which the next reconcile repairs: it writes the files of the base's state
                yield* reconcile(stream, codec, at, true)
              })
            )
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
                  text:
                    `memory: ${shown(p)} does not hold a feed position; ` +
                    "delete it and the consumer starts from the feed's end",
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
