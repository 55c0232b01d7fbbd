import { Either, Schema } from "effect"
import { Instant } from "../kernel/Instant.js"
import { rejectionMessage, scanForWrite } from "../scan/index.js"
import { truncateBytes, utf8Bytes } from "../text/utf8.js"
import { type AssociationMap, linksFor } from "./associations.js"
import { Atom, cutAtomText, InvalidAtom, isTrustedClass, normalisedText, retention, validAtomId } from "./atom.js"

/**
 * The Extended Memory store as one stream (`atoms`, spec extended §4–§7): the live atoms and the quarantine. The
 * journal is the only source of trust: the `extended/` files are projections an agent could edit, so nothing read
 * back from them can put an atom in the live store.
 */

/** The atom stream's name. */
export const ATOMS_STREAM = "atoms"

/** An atom kept out of recall until a person promotes it (spec §5.3), with why and since when. */
export const QuarantinedAtom = Schema.Struct({ atom: Atom, reason: Schema.String, quarantined_at: Instant })
export type QuarantinedAtom = typeof QuarantinedAtom.Type

/**
 * A live atom stored. `links` are its associations at write time (§13.1), undirected: the fold links both ways; an
 * atom written before associations existed has none.
 */
export const AtomStored = Schema.TaggedStruct("AtomStored", {
  atom: Atom,
  links: Schema.optional(Schema.Array(Schema.String)),
  at: Instant
})
/** A restatement of a live atom (exact or semantic dedup, §11): the atom stays, its age and confidence renew. */
export const AtomRefreshed = Schema.TaggedStruct("AtomRefreshed", {
  id: Schema.String,
  created_at: Instant,
  confidence: Schema.Number,
  at: Instant
})
export const AtomQuarantined = Schema.TaggedStruct("AtomQuarantined", { entry: QuarantinedAtom, at: Instant })
/** A person took the atom out of quarantine; the events that follow store it (or refresh its live twin). */
export const AtomPromoted = Schema.TaggedStruct("AtomPromoted", { id: Schema.String, at: Instant })
export const AtomForgotten = Schema.TaggedStruct("AtomForgotten", { id: Schema.String, at: Instant })
export const AtomPinned = Schema.TaggedStruct("AtomPinned", { id: Schema.String, at: Instant })
/** Live atoms removed to keep the store under its cap, lowest retention first (§7.3). */
export const AtomsEvicted = Schema.TaggedStruct("AtomsEvicted", {
  ids: Schema.Array(Schema.String),
  reason: Schema.Literal("cap"),
  at: Instant
})
/** Quarantine entries older than the TTL, counted from when they were quarantined (§5.5). */
export const QuarantineExpired = Schema.TaggedStruct("QuarantineExpired", {
  ids: Schema.Array(Schema.String),
  at: Instant
})

/**
 * Near-duplicates merged by the model (§12): the originals leave the store (and the association map); the events
 * that follow store the merged atom through the write path. Emitted only together with that write, so a merge the
 * cap refuses leaves the originals untouched (§12.4's recommendation).
 */
export const AtomsConsolidated = Schema.TaggedStruct("AtomsConsolidated", {
  ids: Schema.Array(Schema.String),
  into: Schema.String,
  at: Instant
})

export const AtomEvent = Schema.Union(
  AtomsConsolidated,
  AtomStored,
  AtomRefreshed,
  AtomQuarantined,
  AtomPromoted,
  AtomForgotten,
  AtomPinned,
  AtomsEvicted,
  QuarantineExpired
)
export type AtomEvent = typeof AtomEvent.Type

export interface AtomStoreState {
  /** In the order they were stored. */
  readonly live: ReadonlyArray<Atom>
  /** In the order they were quarantined. */
  readonly quarantine: ReadonlyArray<QuarantinedAtom>
  /** Links between live atoms (§13), both ways, sorted; atoms without links absent. */
  readonly associations: AssociationMap
}

export const initialAtomStore: AtomStoreState = { live: [], quarantine: [], associations: new Map() }

/** What the store's rules need of the configuration (spec §19). */
export interface AtomPolicy {
  readonly enabled: boolean
  /** The size cap in bytes (`max_size_mb` MiB). */
  readonly maxBytes: number
  /** `atom_max_chars`: the most bytes of an atom's text the live store keeps. */
  readonly atomMaxBytes: number
  readonly halfLifeDays: number
  readonly quarantineTtlDays: number
  /** §13: whether stored atoms are linked, and the least similarity of a semantic link. */
  readonly associations?: { readonly enabled: boolean; readonly minScore: number } | undefined
}

/**
 * One atom on its way in, already normalised by the caller (id, type, class, confidence, created_at, context).
 * `refused` is the guard's refusal message when it refused the text; `match` the live atom a semantic probe found
 * at or above the dedup threshold (and which the distinguishing-token gate let through).
 */
export interface IncomingAtom {
  readonly atom: Atom
  readonly refused?: string | undefined
  readonly match?: string | undefined
  /** The live atoms most similar to it, for semantic associations (§13.1), cut to the configured top k. */
  readonly neighbours?: ReadonlyArray<{ readonly id: string; readonly score: number }> | undefined
}

export type AtomCommand =
  | { readonly _tag: "StoreAtoms"; readonly atoms: ReadonlyArray<IncomingAtom>; readonly at: string }
  | { readonly _tag: "PromoteAtom"; readonly id: string; readonly match?: string | undefined; readonly at: string }
  | { readonly _tag: "ForgetAtom"; readonly id: string; readonly at: string }
  | { readonly _tag: "PinAtom"; readonly id: string; readonly at: string }
  | { readonly _tag: "ExpireQuarantine"; readonly at: string }
  | {
      readonly _tag: "ConsolidateAtoms"
      /** Each group: the live atoms merged, and the merged atom (from `mergedAtom`) with its guard refusal. */
      readonly groups: ReadonlyArray<{ readonly ids: ReadonlyArray<string>; readonly merged: IncomingAtom }>
      readonly at: string
    }

export class ExtendedDisabled extends Schema.TaggedError<ExtendedDisabled>()("ExtendedDisabled", {}) {
  override get message() {
    return "extended memory: disabled"
  }
}

export class AtomNotFound extends Schema.TaggedError<AtomNotFound>()("AtomNotFound", { id: Schema.String }) {
  override get message() {
    return `extended memory: atom ${JSON.stringify(this.id)} not found`
  }
}

export class QuarantineNotFound extends Schema.TaggedError<QuarantineNotFound>()("QuarantineNotFound", {
  id: Schema.String
}) {
  override get message() {
    return `extended quarantine: atom ${JSON.stringify(this.id)} not found`
  }
}

/** The cap cannot be met without evicting pinned atoms (§7.3 step 6): nothing was evicted, the atom not stored. */
export class CapUnmet extends Schema.TaggedError<CapUnmet>()("CapUnmet", { need: Schema.Number }) {
  override get message() {
    return (
      `extended memory: cannot free ${this.need} bytes; all atoms are pinned or no evictable atoms exist ` +
      "(forget atoms with tmem atoms forget <id>, or raise memory.extended.max_size_mb)"
    )
  }
}

/**
 * A caller-supplied id that names a live atom, on a write that would quarantine: quarantining it would take the
 * trusted atom's id (and a later promotion its place), so the write is refused instead.
 */
export class AtomIdInUse extends Schema.TaggedError<AtomIdInUse>()("AtomIdInUse", { id: Schema.String }) {
  override get message() {
    return (
      `extended memory: atom id ${JSON.stringify(this.id)} is in use by a live atom; ` +
      "leave the id out for a new one"
    )
  }
}

export type AtomError = ExtendedDisabled | AtomNotFound | QuarantineNotFound | InvalidAtom | CapUnmet | AtomIdInUse

/** The longest quarantine reason kept (§4 step 3). */
export const REASON_MAX_BYTES = 200
/** Bytes the spec counts for an atom's metadata and for its vector besides its text (§7.3). */
const METADATA_BYTES = 256
const VECTOR_BYTES = 256 * 4 + 64
/** Room freed beyond the shortfall, so the next write does not evict again at once (§7.3 step 4). */
const HEADROOM = 4096
const DAY_MS = 86_400_000

/**
 * A value computed once per atom or entry object: every write walks the whole store (the cap, exact dedup), and
 * states share their unchanged atoms, so each is measured once, not on every write.
 */
const perObject = <K extends object, V>(compute: (k: K) => V) => {
  const known = new WeakMap<K, V>()
  return (k: K): V => {
    let v = known.get(k)
    if (v === undefined) known.set(k, (v = compute(k)))
    return v
  }
}

/** What a live atom costs the cap: its text, its metadata and its vector (the spec's estimate, §7.3). */
export const liveFootprint = perObject((a: Atom): number => utf8Bytes(a.text) + METADATA_BYTES + VECTOR_BYTES)
/** What a quarantine entry costs the cap: its JSON. */
export const quarantineFootprint = perObject((q: QuarantinedAtom): number => utf8Bytes(JSON.stringify(q)) + 4)
/** A live atom's exact-dedup key (§11.1). */
const dedupKey = perObject((a: Atom): string => normalisedText(a.text))

/** Bytes the store counts against its cap. */
export const storeBytes = (s: AtomStoreState): number =>
  s.live.reduce((n, a) => n + liveFootprint(a), 0) + s.quarantine.reduce((n, q) => n + quarantineFootprint(q), 0)

/** The atoms a person or a write may find by id. */
const liveById = (s: AtomStoreState, id: string) => s.live.find((a) => a.id === id)
const quarantinedById = (s: AtomStoreState, id: string) => s.quarantine.find((q) => q.atom.id === id)

/** Quarantine entries past the TTL at `at` (§5.5: the clock is `quarantined_at`, never `created_at`). */
export const expiredQuarantine = (s: AtomStoreState, at: string, ttlDays: number): ReadonlyArray<string> => {
  if (ttlDays <= 0) return []
  const now = Date.parse(at)
  return s.quarantine.filter((q) => now - Date.parse(q.quarantined_at) > ttlDays * DAY_MS).map((q) => q.atom.id)
}

/**
 * The live atoms to evict so `incoming` more bytes fit (§7.3): none when they fit; the lowest retention first
 * (older, then smaller id, on ties, so the choice is the same on every replay); pinned atoms never. Undefined when
 * even every unpinned atom would not free enough.
 */
export const evictionFor = (
  s: AtomStoreState,
  incoming: number,
  policy: AtomPolicy,
  at: string
): { readonly ids: ReadonlyArray<string>; readonly need: number } | undefined => {
  const total = storeBytes(s) + incoming
  if (total <= policy.maxBytes) return { ids: [], need: 0 }
  const need = total - policy.maxBytes + HEADROOM
  const now = Date.parse(at)
  const candidates = s.live
    .filter((a) => a.pin !== true)
    .map((a) => ({ a, r: retention(a, now, policy.halfLifeDays) }))
    .sort((x, y) => x.r - y.r || x.a.created_at.localeCompare(y.a.created_at) || (x.a.id < y.a.id ? -1 : 1))
  const ids: Array<string> = []
  let freed = 0
  for (const { a } of candidates) {
    if (freed >= need) break
    ids.push(a.id)
    freed += liveFootprint(a)
  }
  return freed >= need ? { ids, need } : undefined
}

/** Why the text of an incoming atom is refused before it is stored: the local scan's message, else the guard's. */
const scanRefusal = (incoming: IncomingAtom): string | undefined => {
  const finding = scanForWrite(incoming.atom.text)
  const message = finding !== undefined ? rejectionMessage(finding) : incoming.refused
  if (message === undefined) return undefined
  return truncateBytes(`scan_rejected: ${message.replace(/^memory: /, "extended memory: ")}`, REASON_MAX_BYTES)
}

/** Where one atom of a batch landed. */
export type AtomOutcome =
  | { readonly kind: "stored"; readonly atom: Atom }
  | { readonly kind: "refreshed"; readonly id: string }
  | { readonly kind: "quarantined"; readonly entry: QuarantinedAtom }
  | { readonly kind: "failed"; readonly error: AtomError }

/** A batch's plan: the events, and where each atom landed, in the batch's order. */
export interface StorePlan {
  readonly events: ReadonlyArray<AtomEvent>
  readonly outcomes: ReadonlyArray<AtomOutcome>
}

/**
 * The write path for a batch (§4), atom by atom against the state the earlier ones left: expired quarantine out;
 * then the scan (a refusal quarantines, never loses the atom), the cap (evicting lowest-retention unpinned atoms,
 * or failing closed), the taint check (an untrusted class is quarantined), exact then semantic dedup (a
 * restatement refreshes its live twin), and the store (text cut to `atom_max_chars`). One atom's failure does not
 * stop the others.
 */
export const planStore = (
  state: AtomStoreState,
  atoms: ReadonlyArray<IncomingAtom>,
  policy: AtomPolicy,
  at: string,
  options: { readonly scan?: boolean } = {}
): StorePlan => {
  const events: Array<AtomEvent> = []
  const outcomes: Array<AtomOutcome> = []
  let s = state
  const emit = (e: AtomEvent) => {
    events.push(e)
    s = foldAtoms(s, [e])
  }
  const expired = expiredQuarantine(s, at, policy.quarantineTtlDays)
  if (expired.length > 0) emit(QuarantineExpired.make({ ids: expired, at }))
  const landing = (incoming: IncomingAtom): AtomOutcome => {
    const atom = incoming.atom
    if (!validAtomId(atom.id)) return { kind: "failed", error: new InvalidAtom({ reason: "invalid id", id: atom.id }) }
    if (atom.text.trim() === "")
      return { kind: "failed", error: new InvalidAtom({ reason: "empty text", id: atom.id }) }
    const refusal = options.scan === false ? undefined : scanRefusal(incoming)
    const same = liveById(s, atom.id)
    // a write under a live atom's id replaces that atom, and keeps its pin (pinned atoms never silently go)
    const stored: Atom = {
      ...atom,
      text: cutAtomText(atom.text, policy.atomMaxBytes),
      ...(same?.pin === true ? { pin: true } : {})
    }
    const quarantined = (reason: string): QuarantinedAtom => ({ atom, reason, quarantined_at: at })
    // what this atom will cost if it lands where it is headed (quarantine keeps the full text)
    const destination =
      refusal !== undefined ? "scan" : !isTrustedClass(atom.source_class) ? "tainted" : ("live" as const)
    if (destination !== "live" && same !== undefined) return { kind: "failed", error: new AtomIdInUse({ id: atom.id }) }
    // the whole footprint it will have, vector estimate included, so a write never leaves the store over its cap
    const cost = destination === "live" ? liveFootprint(stored) : quarantineFootprint(quarantined(refusal ?? "tainted"))
    const eviction = evictionFor(s, cost, policy, at)
    if (eviction === undefined)
      return { kind: "failed", error: new CapUnmet({ need: storeBytes(s) + cost - policy.maxBytes }) }
    if (eviction.ids.length > 0) emit(AtomsEvicted.make({ ids: eviction.ids, reason: "cap", at }))
    if (destination !== "live") {
      const entry = quarantined(refusal ?? "tainted")
      emit(AtomQuarantined.make({ entry, at }))
      return { kind: "quarantined", entry }
    }
    const key = normalisedText(stored.text)
    const twin =
      s.live.find((a) => dedupKey(a) === key) ??
      (incoming.match !== undefined ? liveById(s, incoming.match) : undefined)
    if (twin !== undefined && isTrustedClass(twin.source_class)) {
      emit(
        AtomRefreshed.make({
          id: twin.id,
          created_at: atom.created_at,
          confidence: Math.max(twin.confidence ?? 1, atom.confidence ?? 1),
          at
        })
      )
      return { kind: "refreshed", id: twin.id }
    }
    const links =
      policy.associations?.enabled === true
        ? linksFor(stored, s.live, incoming.neighbours ?? [], policy.associations.minScore)
        : []
    // the atom carries a copy of its links taken now (§13.4); the map stays the source of truth
    const { related_atom_ids: _, ...context } = stored.context
    const linked: Atom = { ...stored, context: links.length > 0 ? { ...context, related_atom_ids: links } : context }
    emit(AtomStored.make(links.length > 0 ? { atom: linked, links, at } : { atom: linked, at }))
    return { kind: "stored", atom: linked }
  }
  for (const incoming of atoms) outcomes.push(landing(incoming))
  return { events, outcomes }
}

/** The first failure of a plan, if any. */
const firstFailure = (plan: StorePlan): AtomError | undefined => {
  for (const o of plan.outcomes) if (o.kind === "failed") return o.error
  return undefined
}

/**
 * A batch's decision and the plan behind it, for a caller that reports where each atom landed: a lone atom's failure
 * is the caller's error; a batch keeps what it could store (§4 step 4).
 */
export const decideStore = (
  state: AtomStoreState,
  atoms: ReadonlyArray<IncomingAtom>,
  policy: AtomPolicy,
  at: string
): { readonly decision: Either.Either<ReadonlyArray<AtomEvent>, AtomError>; readonly plan: StorePlan } => {
  const plan = planStore(state, atoms, policy, at)
  const failure = atoms.length === 1 ? firstFailure(plan) : undefined
  return { decision: failure !== undefined ? Either.left(failure) : Either.right(plan.events), plan }
}

/** Decisions for the atom store. Time arrives inside the command. */
export const decideAtoms =
  (policy: AtomPolicy) =>
  (command: AtomCommand, state: AtomStoreState): Either.Either<ReadonlyArray<AtomEvent>, AtomError> => {
    if (!policy.enabled) return Either.left(new ExtendedDisabled())
    switch (command._tag) {
      case "StoreAtoms":
        return decideStore(state, command.atoms, policy, command.at).decision
      case "PromoteAtom": {
        const entry = quarantinedById(state, command.id)
        if (entry === undefined) return Either.left(new QuarantineNotFound({ id: command.id }))
        // a person's review is the approval: no rescan (it would refuse a guard false positive again, §5.6)
        const promoted: Atom = { ...entry.atom, source_class: "user_approved" }
        const without = foldAtoms(state, [AtomPromoted.make({ id: command.id, at: command.at })])
        const plan = planStore(without, [{ atom: promoted, match: command.match }], policy, command.at, {
          scan: false
        })
        const failure = firstFailure(plan)
        if (failure !== undefined) return Either.left(failure)
        return Either.right([AtomPromoted.make({ id: command.id, at: command.at }), ...plan.events])
      }
      case "ForgetAtom":
        if (liveById(state, command.id) === undefined && quarantinedById(state, command.id) === undefined)
          return Either.left(new AtomNotFound({ id: command.id }))
        return Either.right([AtomForgotten.make({ id: command.id, at: command.at })])
      case "PinAtom": {
        const atom = liveById(state, command.id)
        if (atom === undefined) return Either.left(new AtomNotFound({ id: command.id }))
        return Either.right(atom.pin === true ? [] : [AtomPinned.make({ id: command.id, at: command.at })])
      }
      case "ExpireQuarantine": {
        const ids = expiredQuarantine(state, command.at, policy.quarantineTtlDays)
        return Either.right(ids.length === 0 ? [] : [QuarantineExpired.make({ ids, at: command.at })])
      }
      case "ConsolidateAtoms":
        return Either.right(planConsolidation(state, command.groups, policy, command.at).events)
    }
  }

/**
 * Consolidation's writes (§12.3), group by group against the state the earlier ones left: a group whose members are
 * not all still live (another writer got there first) is skipped; otherwise the originals go and the merged atom
 * takes the write path. When that write fails (the cap, a refusal that would quarantine it) the group is skipped
 * whole, so the originals stay (§12.4's recommendation, against odek's loss). How many groups were merged.
 */
export const planConsolidation = (
  state: AtomStoreState,
  groups: ReadonlyArray<{ readonly ids: ReadonlyArray<string>; readonly merged: IncomingAtom }>,
  policy: AtomPolicy,
  at: string
): { readonly events: ReadonlyArray<AtomEvent>; readonly merged: number } => {
  const events: Array<AtomEvent> = []
  let s = state
  let merged = 0
  for (const group of groups) {
    if (group.ids.length < 2 || !group.ids.every((id) => liveById(s, id) !== undefined)) continue
    if (liveById(s, group.merged.atom.id) !== undefined) continue
    const removed = AtomsConsolidated.make({ ids: group.ids, into: group.merged.atom.id, at })
    const without = foldAtoms(s, [removed])
    // a pin is a person's word that the fact stays: the merged atom keeps it whatever the caller built
    const pinned = group.ids.some((id) => liveById(s, id)?.pin === true)
    // the members' links to atoms outside the group pass to the merged atom (§12.3), as links found at write time
    const outside = (group.merged.atom.context.related_atom_ids ?? []).map((id) => ({ id, score: 1 }))
    const incoming: IncomingAtom = {
      ...group.merged,
      atom: pinned ? { ...group.merged.atom, pin: true } : group.merged.atom,
      neighbours: [...outside, ...(group.merged.neighbours ?? [])]
    }
    const plan = planStore(without, [incoming], policy, at)
    if (plan.outcomes.some((o) => o.kind !== "stored")) continue
    events.push(removed, ...plan.events)
    s = foldAtoms(without, plan.events)
    merged++
  }
  return { events, merged }
}

const absurd = (x: never): never => x

/**
 * The state after `events`, in one pass: maps local to the call, insertion order kept (delete-then-set appends,
 * set on a present key keeps the place), as the array operations would.
 */
export const foldAtoms = (state: AtomStoreState, events: Iterable<AtomEvent>): AtomStoreState => {
  const live = new Map(state.live.map((a) => [a.id, a] as const))
  const quarantine = new Map(state.quarantine.map((q) => [q.atom.id, q] as const))
  const links = new AssociationEdits(state.associations)
  for (const e of events)
    switch (e._tag) {
      case "AtomStored":
        // an id names one atom: stored live, it is no longer waiting in quarantine
        quarantine.delete(e.atom.id)
        live.delete(e.atom.id)
        live.set(e.atom.id, e.atom)
        links.remove(e.atom.id)
        if (e.links !== undefined)
          links.link(
            e.atom.id,
            e.links.filter((id) => live.has(id))
          )
        break
      case "AtomsConsolidated":
        for (const id of e.ids) {
          live.delete(id)
          links.remove(id)
        }
        break
      case "AtomRefreshed": {
        const a = live.get(e.id)
        if (a !== undefined) live.set(e.id, { ...a, created_at: e.created_at, confidence: e.confidence })
        break
      }
      case "AtomQuarantined":
        quarantine.delete(e.entry.atom.id)
        quarantine.set(e.entry.atom.id, e.entry)
        break
      case "AtomPromoted":
        quarantine.delete(e.id)
        break
      case "AtomForgotten":
        live.delete(e.id)
        quarantine.delete(e.id)
        links.remove(e.id)
        break
      case "AtomPinned": {
        const a = live.get(e.id)
        if (a !== undefined) live.set(e.id, { ...a, pin: true })
        break
      }
      case "AtomsEvicted":
        for (const id of e.ids) {
          live.delete(id)
          links.remove(id)
        }
        break
      case "QuarantineExpired":
        for (const id of e.ids) quarantine.delete(id)
        break
      default:
        return absurd(e)
    }
  return { live: [...live.values()], quarantine: [...quarantine.values()], associations: links.result() }
}

/**
 * The association map edited during one fold: copied on the first change only, and each change touches the atom's
 * own neighbours, never the whole map (a store of 100,000 atoms folds an event in time independent of its links).
 */
class AssociationEdits {
  private map: Map<string, ReadonlyArray<string>> | undefined
  constructor(private readonly original: AssociationMap) {}
  private writable() {
    return (this.map ??= new Map(this.original))
  }
  private current(): AssociationMap {
    return this.map ?? this.original
  }
  link(id: string, others: ReadonlyArray<string>) {
    const targets = others.filter((o) => o !== id)
    if (targets.length === 0) return
    const m = this.writable()
    m.set(id, [...new Set([...(m.get(id) ?? []), ...targets])].sort())
    for (const o of targets) m.set(o, [...new Set([...(m.get(o) ?? []), id])].sort())
  }
  remove(id: string) {
    const neighbours = this.current().get(id)
    if (neighbours === undefined) return
    const m = this.writable()
    m.delete(id)
    for (const n of neighbours) {
      const kept = (m.get(n) ?? []).filter((x) => x !== id)
      if (kept.length > 0) m.set(n, kept)
      else m.delete(n)
    }
  }
  result(): AssociationMap {
    return this.current()
  }
}

export const evolveAtoms = (state: AtomStoreState, event: AtomEvent): AtomStoreState => foldAtoms(state, [event])

/** Live atoms a recall may show: trusted classes only, checked again at read time (§3.5). */
export const recallableAtoms = (s: AtomStoreState): ReadonlyArray<Atom> => {
  // one array per live list, so what is keyed on it (the index fingerprint) is computed once per state
  let r = recallable.get(s.live)
  if (r === undefined) {
    r = s.live.every((a) => isTrustedClass(a.source_class))
      ? s.live
      : s.live.filter((a) => isTrustedClass(a.source_class))
    recallable.set(s.live, r)
  }
  return r
}
const recallable = new WeakMap<ReadonlyArray<Atom>, ReadonlyArray<Atom>>()
