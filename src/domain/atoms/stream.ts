import { Schema } from "effect"
import type { StreamCodec } from "../kernel/Stream.js"
import { Atom } from "./atom.js"
import { AtomEvent, type AtomStoreState, evolveAtoms, foldAtoms, initialAtomStore, QuarantinedAtom } from "./store.js"

/** How stores keep the atom stream: its one-pass fold, its events and, since it grows with every write, snapshots. */
export const atomCodec: StreamCodec<AtomStoreState, AtomEvent> = {
  initialState: initialAtomStore,
  evolve: evolveAtoms,
  fold: foldAtoms,
  events: AtomEvent,
  snapshot: Schema.Struct({
    live: Schema.Array(Atom),
    quarantine: Schema.Array(QuarantinedAtom),
    // absent from snapshots written before associations existed
    associations: Schema.optionalWith(Schema.ReadonlyMap({ key: Schema.String, value: Schema.Array(Schema.String) }), {
      default: () => new Map()
    })
  })
}
