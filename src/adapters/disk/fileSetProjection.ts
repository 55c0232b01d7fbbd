import { Effect, Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { StreamCodec } from "../../domain/kernel/Stream.js"
import { type Loaded, StoreError } from "../../ports/EventStore.js"
import { asideName, type Context, Failure, momentOf, type Stage, type Staged, writeProjectionNow } from "./context.js"
import { storeError } from "./errors.js"
import * as Files from "./files.js"
import { type JournalLine, lossyUtf8, sha256, type Tail, utf8 } from "./journal.js"
import type { Journaled, Journals } from "./journals.js"

/**
 * One disk store's multi-file projections (the episode files and their manifest): files written and never read
 * back, so the journal decides and a manifest whose hash is not the journal's last is rewritten from it. It owns
 * rendering a state's files once, staging a batch's changed files beside its journal line, the repairs, and the
 * manifests verified against their journals, which let a load skip even the journal's tail while nothing moved.
 */

/** Temp files a multi-file write keeps open at once, far below the usual 1,024 open-files limit. */
const OPEN_AT_ONCE = 128
const chunksOf = <A>(xs: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> =>
  Array.from({ length: Math.ceil(xs.length / size) }, (_, i) => xs.slice(i * size, (i + 1) * size))

const statOptional = (p: string) => {
  try {
    return fs.statSync(p)
  } catch {
    return undefined
  }
}

export const makeFileSetProjection = (context: Context, journals: Journals, stage: Stage) => {
  const { options, dir, journalPath, filesOf, io, rel, shown, attempt } = context
  const { appendBatch, encodeKnownLine, feedUnsynced, foldCached, cachedFold, remember } = journals

  // files adopted from the directory (an import, a recovery) are read as they are: a link is not followed
  const read = (name: string) => {
    try {
      const bytes = Files.readNoFollow(path.join(dir, name))
      return bytes === undefined ? undefined : lossyUtf8.decode(bytes)
    } catch {
      return undefined
    }
  }

  /** Manifests whose hash was checked against the journal, with the sizes and mtimes they had then. */
  const verified = new Map<string, { readonly journal: string; readonly manifest: string }>()

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
      // a name is a plain file name, or one under the projection's own subdirectories (`extended/chunks/<id>.md`)
      const segments = name.split("/")
      const plain = (seg: string) =>
        seg !== "" && seg !== "." && seg !== ".." && !seg.includes("\\") && !seg.includes("\0")
      const parent = segments.slice(0, -1).join("/")
      if (!segments.every(plain) || (parent !== "" && !(filesOf(stream)!.directories ?? []).includes(parent)))
        throw new Failure(
          new StoreError({
            stream,
            text: `memory: refusing to write ${JSON.stringify(name)} outside ${dir}`,
            reason: "invalid"
          })
        )
      return [name, path.join(dir, ...segments), content] as const
    })

  // Subdirectories this store has made sure of (once per process): created 0700 and made durable, never followed
  // when they are links (a link could send the projection's files anywhere).
  const readyDirectories = new Set<string>()
  const ensureDirectories = (stream: string) => {
    for (const rel of filesOf(stream)!.directories ?? []) {
      const full = path.join(dir, ...rel.split("/"))
      if (readyDirectories.has(full)) continue
      let stat: fs.Stats | undefined
      try {
        stat = fs.lstatSync(full)
      } catch {
        stat = undefined
      }
      if (stat !== undefined && !stat.isDirectory())
        throw new Failure(
          new StoreError({
            stream,
            text:
              `memory: ${shown(full)} is ` +
              `${stat.isSymbolicLink() ? "a symbolic link, which tmem does not follow" : "not a directory"}; ` +
              "move it aside and retry",
            reason: "invalid"
          })
        )
      if (stat === undefined) {
        io(stream, full, "create", () => fs.mkdirSync(full, { mode: 0o700 }))
        io(stream, path.dirname(full), "sync", () => Files.fsyncDir(path.dirname(full)))
      }
      readyDirectories.add(full)
    }
  }

  /** Rewrites every file of a multi-file projection now (repairs; rare). The manifest goes last. */
  const reprojectFiles = <S>(stream: string, state: S) => {
    const files = filesOf(stream)!
    ensureDirectories(stream)
    const all = projectedFiles(stream, files.render(state))
    const ordered = [...all.filter(([n]) => n !== files.manifest), ...all.filter(([n]) => n === files.manifest)]
    for (const [, target, content] of ordered) io(stream, target, "write", () => writeProjectionNow(target, content))
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
    ensureDirectories(stream)
    const before = renderedFiles(files, stateBefore)
    const after = renderedFiles(files, state)
    const manifest = after.get(files.manifest) ?? ""
    const line: JournalLine = { version, at, events: encoded, projectionHash: sha256(utf8.encode(manifest)) }
    const changed = projectedFiles(stream, after).filter(
      ([name, , content]) => before.get(name) !== content || name === files.manifest
    )
    const ordered = [...changed.filter(([n]) => n !== files.manifest), ...changed.filter(([n]) => n === files.manifest)]
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
  ): Loaded<S> | { readonly staged: Staged<S, E> } => {
    const files = filesOf(stream)!
    const manifestPath = path.join(dir, files.manifest)
    if (tail.last === undefined) {
      const events = files.imported(read, at)
      if (events.length === 0) return { state: codec.initialState, version: 0 }
      return { staged: stage(stream, codec, codec.initialState, 0, events, at) }
    }
    const full = foldCached(stream, codec, tail)
    const bytes = io(stream, manifestPath, "read", () => Files.readOptional(manifestPath))
    const hash = bytes === undefined ? undefined : sha256(bytes)
    if (hash === tail.last.projectionHash) return full
    const mtime = io(stream, manifestPath, "read", () => Files.mtimeMs(manifestPath)) ?? 0
    const crash = bytes === undefined || (hash === tail.prev?.projectionHash && mtime <= tail.mtimeMs)
    // A journal cut back to its last whole line lost a batch that the files may still show, as a fact file
    // would: what they hold beyond the journal's state is adopted again, but never with more trust.
    const recovered = torn && !crash ? (files.recovered?.(read, full.state, at) ?? []) : []
    if (!crash) {
      const kept = asideName(manifestPath, "edited", full.version)
      io(stream, kept, "write", () => fs.writeFileSync(kept, bytes!, { mode: 0o600 }))
      warnings.push(
        `memory: ${rel(manifestPath)} was changed outside tmem; ` +
          "the journal decides which episodes exist and which are trusted, " +
          `so it was rewritten (the edited file is kept as ${rel(kept)})`
      )
    } else if (bytes !== undefined)
      warnings.push(`memory: ${rel(manifestPath)} was behind its journal (a crash); re-projected`)
    reprojectFiles(stream, full.state)
    if (recovered.length === 0) return full
    warnings.push(
      `memory: ${rel(journalPath(stream))} had lost its last batch; ` +
        `what ${rel(manifestPath)} still showed of it was recorded again, ` +
        "untrusted until a person promotes it (tmem episodes list, then promote)"
    )
    return { staged: stage(stream, codec, full.state, full.version, recovered, at) }
  }

  /** The lock-free load's first look at a multi-file projection, before the journal's tail is read. */
  const unchangedSinceVerified = <S>(stream: string): Loaded<S> | undefined => {
    // nothing moved since the last verified load: not even the journal's tail needs reading (its last line can
    // be an import of thousands of episodes)
    const jp = journalPath(stream)
    const manifestPath = path.join(dir, filesOf(stream)!.manifest)
    const [j, m, known, hit] = [
      statOptional(jp),
      statOptional(manifestPath),
      verified.get(manifestPath),
      cachedFold(jp)
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
      return { state: hit.state as S, version: hit.version }
    return undefined
  }

  /** The lock-free load of a multi-file projection: the manifest's hash matches the journal's last batch. */
  const fastLoad = <S, E>(stream: string, codec: StreamCodec<S, E>, tail: Tail): Loaded<S> | undefined => {
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
      return foldCached(stream, codec, tail)
    const bytes = io(stream, manifestPath, "read", () => Files.readOptional(manifestPath))
    // Without a journal, files that name nothing to import (a corrupt index) read as empty here, lock-free: taking the
    // lock to find that out left a lock file and journal/ behind in a directory that was only read (issue 15).
    if (tail.last === undefined)
      return bytes === undefined || filesOf(stream)!.imported(read, "").length === 0
        ? { state: codec.initialState, version: 0 }
        : undefined
    if (bytes === undefined || sha256(bytes) !== tail.last.projectionHash) return undefined
    if (seen !== undefined)
      verified.set(manifestPath, {
        journal: momentOf(tail),
        manifest: momentOf(seen)
      })
    return foldCached(stream, codec, tail)
  }

  return { stageFiles, reconcileFiles, unchangedSinceVerified, fastLoad }
}

export type FileSetProjections = ReturnType<typeof makeFileSetProjection>
