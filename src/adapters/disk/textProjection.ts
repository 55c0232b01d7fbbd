import { Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { StreamCodec, TextProjection } from "../../domain/kernel/Stream.js"
import { trimSpace } from "../../domain/text/utf8.js"
import type { Loaded } from "../../ports/EventStore.js"
import { bytesMemo } from "./bytesMemo.js"
import { asideName, type Context, durableTemp, Moved, type Reconciled, type Stage } from "./context.js"
import * as Files from "./files.js"
import { EMPTY_HASH, sha256, strictUtf8, type Tail } from "./journal.js"
import type { Journals } from "./journals.js"

/**
 * One disk store's single-file projections: the one file a person may edit (a fact file), written after its
 * journal line and read back as the state while its hash is the journal's last. It owns what tells a person's save
 * from the store's own writes (the writes remembered by their stamps, the file each reconcile saw), the placing of
 * a new projection that never overwrites a save unseen, and the adoption or refusal of a hand edit once it has
 * settled (docs/ARCHITECTURE.md "Loading"). What it finds is recorded through the store's `stage`.
 */

export const makeTextProjection = (context: Context, journals: Journals, stage: Stage) => {
  const { journalPath, projectionPath, textOf, filesOf, io, rel, settleMs } = context
  const { foldAll } = journals

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
  /** Forgets the write remembered for `stream`: its journal is about to change. */
  const forgetWrite = (stream: string) => written.delete(stream)

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
      ? `memory: ${rel(target)} was saved by another program while tmem wrote it; ` +
          "the save is left in place and will be recorded as an edit on the next load"
      : `memory: ${rel(target)} was saved twice by another program while tmem wrote it; ` +
          `the earlier save is kept as ${rel(r.keptAside)}`
  }

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
  const refusal = (
    text: TextProjection<unknown, unknown>,
    snap: Files.Snapshot,
    importing: boolean
  ): Either.Either<string, string> => {
    if (snap.bytes === undefined) return Either.left(`it is ${snap.identity.size} bytes, far over the cap`)
    const decoded = Either.try(() => strictUtf8.decode(snap.bytes!))
    if (Either.isLeft(decoded)) return Either.left("it is not valid UTF-8")
    const problem = ((importing ? text.importProblem : undefined) ?? text.problem)(decoded.right)
    return problem === undefined ? Either.right(decoded.right) : Either.left(problem)
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
    if (wait > 0) return { unsettled: current, retryInMs: wait }
    const verdict = refusal(text as TextProjection<unknown, unknown>, snap, current.version === 0)
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
      if (trimSpace(verdict.right) === "") return current
      return { staged: stage(stream, codec, current.state, 0, text.imported(verdict.right, at), at) }
    }
    const kept = asideName(target, "rejected", current.version + 1)
    const moved = io(stream, target, "move", () => {
      if (!Files.sameIdentity(Files.identity(target), snap.identity)) return false
      fs.renameSync(target, kept)
      return true
    })
    if (!moved) return { unsettled: current, retryInMs: settleMs }
    seen.set(stream, undefined)
    const size = Number(snap.identity.size)
    const name = path.basename(target)
    warnings.push(
      `memory: ${name} was edited outside tmem but not adopted (${verdict.left}); ` +
        `the memory keeps its last valid state and your file is kept as ${path.basename(kept)} — ` +
        `fix it and save it as ${name} again`
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
        version: tail.last.version
      }
    }
    const full = tail.last === undefined ? { state: codec.initialState, version: 0 } : foldAll(stream, codec)
    if (snap === undefined) {
      // A deleted projection is restored rather than read as "forget everything": emptying the file is how to clear
      // it.
      if (tail.last !== undefined) restoreProjection(stream, target, text.render(full.state), undefined)
      return full
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
      return full
    }
    return adoptOrRefuse(stream, codec, target, snap, full, at, warnings)
  }

  /** The lock-free load of a single-file projection: its hash matches the journal's last batch, so it is the state. */
  const fastLoad = <S, E>(
    stream: string,
    codec: StreamCodec<S, E>,
    target: string,
    text: TextProjection<any, any>,
    tail: Tail
  ): Loaded<S> | undefined => {
    const snap = io(stream, target, "read", () => Files.readSnapshot(target, text.maxBytes))
    if (tail.last === undefined) return snap === undefined ? { state: codec.initialState, version: 0 } : undefined
    const digest = snap?.bytes === undefined ? undefined : digestOf(snap.bytes)
    if (digest === undefined || digest.hash !== tail.last.projectionHash || digest.text === undefined) return undefined
    return {
      state: parsed({ ...digest, text: digest.text }, text as TextProjection<S, unknown>),
      version: tail.last.version
    }
  }

  return { rememberWrite, forgetWrite, knownState, unmoved, placeProjection, reconcileText, fastLoad }
}

export type TextProjections = ReturnType<typeof makeTextProjection>
