import { Context, type Effect, Layer } from "effect"
import type { Atom } from "../domain/atoms/atom.js"
import { FNV64_OFFSET, type Fnv64, fnv1a64Units, fnv64Hex } from "../domain/text/fnv.js"
import type { EmbedFailed } from "../ports/Embedder.js"
import { type CacheHit, makeVectorCache, type PersistedStatus } from "./vectorCache.js"

/** The persisted atom vectors and their meta, in `extended/` (spec extended §6: odek's names, our encoding). */
export const ATOM_VECTORS_FILE = "vectors.gob"
export const ATOM_META_FILE = "vectors_meta.json"

// Each atom's hash is computed once per atom object (states share their unchanged atoms), and the corpus's is their
// sum mod 2⁶⁴: independent of order without sorting 100,000 ids on every write, as odek's sorted hash would need.
const entryHashes = new WeakMap<Atom, Fnv64>()
/** An atom's 64-bit hash over its id and text, once per atom object (the index fingerprint, the word index's stamp). */
export const atomHash = (a: Atom): Fnv64 => {
  let h = entryHashes.get(a)
  if (h === undefined) {
    // ids and texts (odek hashes ids only): a trusted write may give an id new text, which must be re-embedded
    h = fnv1a64Units(fnv1a64Units(fnv1a64Units(FNV64_OFFSET, a.id), "\u0000"), a.text)
    entryHashes.set(a, h)
  }
  return h
}
// the live list is a new array whenever the stream changes, so the fingerprint is computed once per state
const fingerprints = new WeakMap<ReadonlyArray<Atom>, string>()
const fingerprintOf = (atoms: ReadonlyArray<Atom>) => {
  let f = fingerprints.get(atoms)
  if (f === undefined) {
    let hi = 0
    let lo = 0
    for (const a of atoms) {
      const h = atomHash(a)
      lo += h.lo
      hi += h.hi + Math.floor(lo / 2 ** 32)
      lo %= 2 ** 32
      hi %= 2 ** 32
    }
    f = `${atoms.length}:${fnv64Hex({ hi, lo })}`
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
  static readonly layer = Layer.scoped(
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
