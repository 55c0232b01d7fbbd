import { Context, type Effect, Layer } from "effect"
import type { Atom } from "../domain/atoms/atom.js"
import { corpusFingerprint } from "../domain/episodes/fingerprint.js"
import type { EmbedFailed } from "../ports/Embedder.js"
import { type CacheHit, makeVectorCache, type PersistedStatus } from "./vectorCache.js"

/** The persisted atom vectors and their meta, in `extended/` (spec extended §6: odek's names, our encoding). */
export const ATOM_VECTORS_FILE = "vectors.gob"
export const ATOM_META_FILE = "vectors_meta.json"

// the live list is a new array whenever the stream changes, so the fingerprint is computed once per state
const fingerprints = new WeakMap<ReadonlyArray<Atom>, string>()
const fingerprintOf = (atoms: ReadonlyArray<Atom>) => {
  let f = fingerprints.get(atoms)
  if (f === undefined) {
    // ids and texts (odek hashes ids only): a trusted write may give an id new text, which must be re-embedded
    f = corpusFingerprint(atoms.map((a) => ({ sessionId: a.id, summary: a.text })))
    fingerprints.set(atoms, f)
  }
  return f
}

/**
 * The vector index of the live atoms (spec extended §8): only recallable atoms are embedded, so quarantine never
 * enters the recallable space; rebuilt when the live corpus changes, persisted beside the atom files, and left
 * alone for 30 s after a failed rebuild (recall then finds nothing rather than failing a turn).
 */
export class AtomIndex extends Context.Tag("tmem/AtomIndex")<
  AtomIndex,
  {
    /** The `k` live atoms nearest to `query`, best first; [] when the index is unavailable. */
    readonly search: (atoms: ReadonlyArray<Atom>, query: string, k: number) => Effect.Effect<ReadonlyArray<CacheHit>>
    /** Rebuilds from every live atom, persists and waits (`tmem atoms compact`); how many vectors it holds. */
    readonly compact: (atoms: ReadonlyArray<Atom>) => Effect.Effect<number, EmbedFailed>
    /** The persisted index against these atoms, building nothing (spec extended §16.2). */
    readonly status: (atoms: ReadonlyArray<Atom>) => Effect.Effect<PersistedStatus>
  }
>() {
  static readonly layer = Layer.effect(
    AtomIndex,
    makeVectorCache<Atom>({
      name: "atom index",
      vectorsFile: ATOM_VECTORS_FILE,
      metaFile: ATOM_META_FILE,
      corpusOf: (atoms) => atoms.map((a) => ({ id: a.id, text: a.text })),
      fingerprintOf
    })
  )
}
