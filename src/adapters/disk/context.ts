import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { FilesProjection, StreamCodec, TextProjection } from "../../domain/kernel/Stream.js"
import { odekProjections } from "../../domain/odek/projections.js"
import { type Appended, type Loaded, StoreError, type VersionConflict } from "../../ports/EventStore.js"
import type { DiskOptions } from "./DiskEventStore.js"
import { oneLine, storeError } from "./errors.js"
import * as Files from "./files.js"
import { utf8 } from "./journal.js"

/**
 * What the parts of one disk store share (./DiskEventStore.ts builds one context per store and hands it to
 * ./journals.ts, ./textProjection.ts and ./fileSetProjection.ts): its options, where each stream's files lie, and
 * how their synchronous file work fails. Also the shapes a staged write and a reconcile take, which the store and
 * both kinds of projection pass between them.
 */

/** Thrown when the projection is no longer the file the write was decided against (a person saved meanwhile). */
export class Moved extends Error {}

/** Thrown inside the synchronous parts and turned into the typed error at their boundary. */
export class Failure extends Error {
  /** `conflict`: the journal moved on under the lock; an append reports it as the conflict it is. */
  constructor(
    readonly error: StoreError,
    readonly conflict?: VersionConflict
  ) {
    super(error.message)
  }
}

export const makeContext = (options: DiskOptions) => {
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

  return {
    options,
    dir,
    lockWaitMs,
    settleMs,
    settleWaitMs,
    snapshotEvery,
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
  }
}

export type Context = ReturnType<typeof makeContext>

/** A batch written to disk but not yet durable; `finish` makes it so and puts the projection in place. */
export interface Staged<S, E> {
  readonly result: Appended<S, E>
  readonly finish: Effect.Effect<void, StoreError>
}

/** The store's `stage` (./DiskEventStore.ts), through which a reconcile records what it found. */
export type Stage = <S, E>(
  stream: string,
  codec: StreamCodec<S, E>,
  stateBefore: S,
  versionBefore: number,
  events: ReadonlyArray<E>,
  at: string
) => Staged<S, E>

/**
 * What reconcile found when the projection is being saved right now: the journal's state, and when to look again.
 */
export interface Unsettled<S> {
  readonly unsettled: Loaded<S>
  readonly retryInMs: number
}
export type Reconciled<S, E> = Loaded<S> | { readonly staged: Staged<S, E> } | Unsettled<S>

/** A file as it stands: size, mtime and change time. Any write, rename or timestamp change gives another. */
export const momentOf = (info: { readonly size: number; readonly mtimeMs: number; readonly ctimeMs: number }) =>
  `${info.size}:${info.mtimeMs}:${info.ctimeMs}`

/** A free name beside `target` for a file kept aside: `<name>.<kind>-v<version>`, then `.2`, `.3`… */
export const asideName = (target: string, kind: string, version: number) => {
  const base = `${target}.${kind}-v${version}`
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}.${n}`
    if (!fs.existsSync(candidate)) return candidate
  }
}

/** Repairs write the projection durably in one go; they are rare, so no parallel trick is needed. */
export const writeProjectionNow = (target: string, text: string) => fs.renameSync(durableTemp(target, text), target)

/** A temp file beside `target` holding `text`, already durable. */
export const durableTemp = (target: string, text: string) => {
  const temp = Files.writeTemp(target, utf8.encode(text))
  fs.fsyncSync(temp.fd)
  fs.closeSync(temp.fd)
  return temp.path
}
