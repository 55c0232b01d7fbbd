/**
 * Associations between live atoms (spec extended §13): which atoms a newly stored one is linked to, the undirected
 * map of links, and `associations.json`. The map is the source of truth; `related_atom_ids` is only a copy taken at
 * write time (§13.4).
 */
import { type Atom, isTrustedClass, validAtomId } from "./atom.js"

/** Every linked atom's neighbours, sorted and unique. Links are undirected: each one is stored both ways. */
export type AssociationMap = ReadonlyMap<string, ReadonlyArray<string>>

/** How far apart, in turns of one session, two atoms may be and still be linked as said together (§13.1). */
export const TEMPORAL_TURN_WINDOW = 2

/** The types that describe the work of a project; any two in the same project are linked (§13.1). */
export const TASK_TYPES: ReadonlyArray<string> = ["goal", "decision", "convention", "intent"]

const sortedUnique = (ids: Iterable<string>): Array<string> => [...new Set(ids)].sort()

const nonEmpty = (s: string | undefined): s is string => s !== undefined && s !== ""

/**
 * The atoms `atom` is linked to when it is stored (§13.1), sorted and unique:
 * - temporal: the same non-empty session and at most two turns apart (a missing turn is turn 0, as odek omits it);
 * - task: when `atom` has a project and a task type, every atom of that project with a task type;
 * - semantic: each of `semanticNeighbours` (the index's nearest atoms, cut to the configured top k by the caller)
 *   scoring at least `minScore`.
 * Only trusted atoms of `live` are ever linked, never `atom` itself; an untrusted `atom` is linked to nothing, since
 * it never belongs in the live store (§3.5: taint is checked again wherever atoms are read).
 */
export const linksFor = (
  atom: Atom,
  live: ReadonlyArray<Atom>,
  semanticNeighbours: ReadonlyArray<{ readonly id: string; readonly score: number }>,
  minScore: number
): Array<string> => {
  if (!isTrustedClass(atom.source_class)) return []
  const others = live.filter((a) => a.id !== atom.id && isTrustedClass(a.source_class))
  const links = new Set<string>()
  const session = atom.context.session_id
  if (nonEmpty(session)) {
    const turn = atom.context.turn ?? 0
    for (const other of others)
      if (other.context.session_id === session && Math.abs((other.context.turn ?? 0) - turn) <= TEMPORAL_TURN_WINDOW)
        links.add(other.id)
  }
  const project = atom.context.project
  if (nonEmpty(project) && TASK_TYPES.includes(atom.type))
    for (const other of others)
      if (other.context.project === project && TASK_TYPES.includes(other.type)) links.add(other.id)
  const linkable = new Set(others.map((a) => a.id))
  for (const n of semanticNeighbours) if (n.score >= minScore && linkable.has(n.id)) links.add(n.id)
  return sortedUnique(links)
}

/** `map` with `id` linked to each of `links`, both ways; a link to itself is ignored. */
export const withLinks = (map: AssociationMap, id: string, links: ReadonlyArray<string>): AssociationMap => {
  const others = links.filter((l) => l !== id)
  if (others.length === 0) return map
  const next = new Map(map)
  next.set(id, sortedUnique([...(map.get(id) ?? []), ...others]))
  for (const other of others) next.set(other, sortedUnique([...(map.get(other) ?? []), id]))
  return next
}

/** `map` without the atoms `ids` and without every link to them (§13.3); an atom left with no link drops out. */
export const withoutAtoms = (map: AssociationMap, ids: Iterable<string>): AssociationMap => {
  const gone = new Set(ids)
  const next = new Map<string, ReadonlyArray<string>>()
  for (const [id, links] of map) {
    if (gone.has(id)) continue
    const kept = links.filter((l) => !gone.has(l))
    if (kept.length > 0) next.set(id, kept)
  }
  return next
}

/** The links worth keeping: valid ids only (§13.2), no self-links, sorted and unique; atoms without links omitted. */
const cleaned = (entries: Iterable<readonly [string, ReadonlyArray<string>]>): Map<string, ReadonlyArray<string>> => {
  const out = new Map<string, ReadonlyArray<string>>()
  for (const [id, links] of entries) {
    if (!validAtomId(id)) continue
    const kept = sortedUnique(links.filter((l) => l !== id && validAtomId(l)))
    if (kept.length > 0) out.set(id, kept)
  }
  return out
}

/**
 * `associations.json` (§13.2): `{ "<id>": ["<id>", …] }`, keys and links sorted, 2-space indented like the other
 * files of the store. Invalid ids are dropped on save as on load. Written by hand rather than from an object, whose
 * integer-like keys (an id such as `"42"`) JavaScript would move to the front.
 */
export const associationsJson = (map: AssociationMap): string => {
  const entries = [...cleaned(map)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  if (entries.length === 0) return "{}"
  const body = entries.map(
    ([id, links]) => `  ${JSON.stringify(id)}: [\n${links.map((l) => `    ${JSON.stringify(l)}`).join(",\n")}\n  ]`
  )
  return `{\n${body.join(",\n")}\n}`
}

/**
 * The map in an `associations.json` (§13.2). Invalid JSON, or anything but an object of string arrays, reads as no
 * links (odek's load error leaves the map empty); ids failing `validAtomId`, non-string links and self-links are
 * dropped, and an atom left without links is omitted.
 */
export const parseAssociations = (text: string): AssociationMap => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return new Map()
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return new Map()
  const entries: Array<readonly [string, ReadonlyArray<string>]> = []
  for (const [id, links] of Object.entries(json as Record<string, unknown>))
    if (Array.isArray(links)) entries.push([id, links.filter((l): l is string => typeof l === "string")])
  return cleaned(entries)
}
