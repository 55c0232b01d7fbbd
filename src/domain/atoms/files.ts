import { Either, Schema } from "effect"
import type { FilesProjection } from "../kernel/Stream.js"
import { associationsJson } from "./associations.js"
import { Atom, type AtomContext, isTrustedClass, validAtomId } from "./atom.js"
import { type AtomEvent, AtomQuarantined, AtomStored, type AtomStoreState, type QuarantinedAtom } from "./store.js"

/** Where odek keeps Extended Memory, relative to the memory directory (spec extended §6). */
export const EXTENDED_DIR = "extended"
export const ATOMS_FILE = `${EXTENDED_DIR}/atoms.json`
export const QUARANTINE_FILE = `${EXTENDED_DIR}/quarantine.json`
export const CHUNKS_DIR = `${EXTENDED_DIR}/chunks`
export const ASSOCIATIONS_FILE = `${EXTENDED_DIR}/associations.json`
/** `chunks/<id>.md`: one live atom's text, nothing else (§6). */
export const chunkFile = (id: string) => `${CHUNKS_DIR}/${id}.md`

/** The context object as odek writes it: always present, its members omitted when empty (§6.1). */
const contextJson = (c: AtomContext): Record<string, unknown> => ({
  ...(c.session_id !== undefined && c.session_id !== "" ? { session_id: c.session_id } : {}),
  ...(c.turn !== undefined && c.turn !== 0 ? { turn: c.turn } : {}),
  ...(c.project !== undefined && c.project !== "" ? { project: c.project } : {}),
  ...(c.related_atom_ids !== undefined && c.related_atom_ids.length > 0
    ? { related_atom_ids: [...c.related_atom_ids] }
    : {})
})

/** An atom's metadata in odek's order; `pin` and `confidence` only when set. */
const metadataJson = (a: Atom): Record<string, unknown> => ({
  id: a.id,
  source_class: a.source_class,
  type: a.type,
  created_at: a.created_at,
  context: contextJson(a.context),
  ...(a.pin === true ? { pin: true } : {}),
  ...(a.confidence !== undefined ? { confidence: a.confidence } : {})
})

const quarantineJson = (q: QuarantinedAtom): Record<string, unknown> => {
  const { id, ...rest } = metadataJson(q.atom)
  return {
    id,
    text: q.atom.text,
    ...rest,
    quarantined_at: q.quarantined_at,
    ...(q.reason !== "" ? { reason: q.reason } : {})
  }
}

/** `atoms.json` (§6.1): the live atoms' metadata without their text, newest `created_at` first, 2-space indented. */
export const renderAtomsJson = (s: AtomStoreState): string =>
  JSON.stringify([...s.live].sort((a, b) => b.created_at.localeCompare(a.created_at)).map(metadataJson), null, 2)

/** `quarantine.json` (§5.3): each entry flattened, newest `quarantined_at` first (§5.4). */
export const renderQuarantineJson = (s: AtomStoreState): string =>
  JSON.stringify(
    [...s.quarantine].sort((a, b) => b.quarantined_at.localeCompare(a.quarantined_at)).map(quarantineJson),
    null,
    2
  )

/**
 * odek's `extended/` files as projections of the atom stream: written, never read back (an agent can write there,
 * and nothing it writes may put an atom in the live store). `atoms.json` is the manifest, written last.
 */
export const atomFiles: FilesProjection<AtomStoreState, AtomEvent> = {
  manifest: ATOMS_FILE,
  directories: [EXTENDED_DIR, CHUNKS_DIR],
  render: (state) => {
    const files = new Map<string, string>()
    for (const a of state.live) files.set(chunkFile(a.id), a.text)
    files.set(QUARANTINE_FILE, renderQuarantineJson(state))
    // only while there are links: an empty map is no file, whichever way the state was reached
    if (state.associations.size > 0) files.set(ASSOCIATIONS_FILE, associationsJson(state.associations))
    files.set(ATOMS_FILE, renderAtomsJson(state))
    return files
  },
  imported: (read, at) => importOdekStore(read, at)
}

const decodeAtom = Schema.decodeUnknownEither(Atom)

/** A JSON array from a file, or [] when it is absent or not one (an odek store is adopted as far as it reads). */
const arrayIn = (text: string | undefined): ReadonlyArray<unknown> => {
  if (text === undefined) return []
  try {
    const json: unknown = JSON.parse(text)
    return Array.isArray(json) ? json : []
  } catch {
    return []
  }
}

/**
 * An odek `extended/` store found without a journal, adopted as the stream's first events: each live atom whose
 * metadata decodes and whose chunk file exists (odek skips the others too, §6.1), and each quarantine entry. A live
 * atom of an untrusted class is quarantined as `tainted` (fail closed, §3.5); nothing is scanned here: recall
 * screens what it shows.
 */
const importOdekStore = (read: (file: string) => string | undefined, at: string): ReadonlyArray<AtomEvent> => {
  const events: Array<AtomEvent> = []
  for (const raw of arrayIn(read(ATOMS_FILE))) {
    if (typeof raw !== "object" || raw === null) continue
    const id = (raw as { readonly id?: unknown }).id
    const text = typeof id === "string" && validAtomId(id) ? read(chunkFile(id)) : undefined
    if (text === undefined) continue
    const atom = decodeAtom({ context: {}, ...raw, text })
    if (Either.isLeft(atom)) continue
    events.push(
      isTrustedClass(atom.right.source_class)
        ? AtomStored.make({ atom: atom.right, at })
        : AtomQuarantined.make({ entry: { atom: atom.right, reason: "tainted", quarantined_at: at }, at })
    )
  }
  for (const raw of arrayIn(read(QUARANTINE_FILE))) {
    if (typeof raw !== "object" || raw === null) continue
    const { quarantined_at, reason, ...fields } = raw as Record<string, unknown>
    const atom = decodeAtom({ context: {}, ...fields })
    if (Either.isLeft(atom)) continue
    const since = typeof quarantined_at === "string" && !Number.isNaN(Date.parse(quarantined_at)) ? quarantined_at : at
    events.push(
      AtomQuarantined.make({
        entry: { atom: atom.right, reason: typeof reason === "string" ? reason : "", quarantined_at: since },
        at
      })
    )
  }
  return events
}
