import { Duration, Effect, Either, Option, Schema } from "effect"
import {
  type Atom,
  type AtomInput,
  cutAtomText,
  isTrustedClass,
  normaliseAtom,
  retention
} from "../domain/atoms/atom.js"
import { hasAnaphora, resolveAnaphora } from "../domain/atoms/proactive.js"
import { consolidationGroups, consolidationRequest, mergedAtom, mergedText } from "../domain/atoms/consolidation.js"
import { during } from "../ports/Progress.js"
import { extractionRequest, parseExtraction } from "../domain/atoms/extraction.js"
import { applyRerank, compositeScore, rerankPrompt } from "../domain/atoms/recallBlock.js"
import { scanForWrite } from "../domain/scan/index.js"
import {
  type AtomCommand,
  type AtomEvent,
  type AtomPolicy,
  type AtomStoreState,
  ATOMS_STREAM,
  decideAtoms,
  ExtendedDisabled,
  type IncomingAtom,
  decideStore,
  type QuarantinedAtom,
  type StorePlan,
  recallableAtoms
} from "../domain/atoms/store.js"
import { atomCodec } from "../domain/atoms/stream.js"
import type { Batch } from "../domain/kernel/Stream.js"
import type { ExtendedConfig } from "../domain/config/MemoryConfig.js"
import { mergeBlocker } from "../domain/facts/decider.js"
import { EventStore } from "../ports/EventStore.js"
import { handleCommand } from "./commandHandler.js"
import { freshId, nowIso } from "./clock.js"
import { secondOpinion } from "./guard.js"
import { Settings } from "./Settings.js"
import { AtomEmbedder, AtomLlm } from "./AtomLlm.js"
import { AtomIndex, atomHash } from "./AtomIndex.js"
import { AtomSearch } from "../ports/EpisodeSearch.js"
import { fnv64Hex } from "../domain/text/fnv.js"
import { rememberStored } from "./AtomActivity.js"

const MIB = 1024 * 1024

/** The store's rules from `memory.extended` (spec extended §19). */
export const atomPolicy = (c: ExtendedConfig): AtomPolicy => ({
  enabled: c.enabled,
  maxBytes: c.maxSizeMb * MIB,
  atomMaxBytes: c.atomMaxChars,
  halfLifeDays: c.decayHalfLifeDays,
  quarantineTtlDays: c.quarantineTtlDays,
  associations: { enabled: c.associationsEnabled, minScore: c.semanticSearchMinScore }
})

/** The atom store as it is now. */
export const loadAtoms = Effect.fn("loadAtoms")(function* () {
  return yield* (yield* EventStore).load(ATOMS_STREAM, atomCodec)
})

/** Load → decide → append for the atom stream, re-decided when another writer got in between. */
const execute = <R>(command: (state: AtomStoreState, at: string) => Effect.Effect<AtomCommand, never, R>) =>
  Effect.flatMap(Settings, (config) => {
    const decide = decideAtoms(atomPolicy(config.extended))
    return handleCommand({
      stream: ATOMS_STREAM,
      codec: atomCodec,
      decide: (state: AtomStoreState, at: string) =>
        Effect.flatMap(command(state, at), (c) =>
          Either.match(decide(c, state), {
            onLeft: Effect.fail,
            onRight: Effect.succeed
          })
        ),
      publish: boundJournal
    })
  })

/** How often (in journal versions) a write looks at the atom journal's length. */
const JOURNAL_CHECK_EVERY = 256
/** The journal may hold this many events per atom in the store (plus JOURNAL_SLACK) before it is compacted. */
export const JOURNAL_EVENTS_PER_ATOM = 4
const JOURNAL_SLACK = 512

/**
 * Keeps the atom journal within a fixed multiple of the store (issue 13): every JOURNAL_CHECK_EVERY versions a write
 * counts the events after the journal's base; past `4 × (live + quarantined) + 512` the history is folded into the
 * base line (the store's `compact`, as `tmem episodes compact` does by hand), so a store that churns at its cap does
 * not grow its journal without end. The state, the files and the feed's later batches are unchanged; the folded
 * history leaves `tmem events`. Never fails a write: a failure is a warning and the next check tries again.
 */
const boundJournal = (batches: ReadonlyArray<Batch<AtomEvent>>) =>
  Effect.gen(function* () {
    const last = batches[batches.length - 1]
    if (last === undefined) return
    const before = last.version - last.events.length
    if (Math.floor(before / JOURNAL_CHECK_EVERY) === Math.floor(last.version / JOURNAL_CHECK_EVERY)) return
    const store = yield* EventStore
    const history = yield* store.read(ATOMS_STREAM, atomCodec)
    const events = history.reduce((n, b) => n + b.events.length, 0)
    const { state } = yield* store.load(ATOMS_STREAM, atomCodec)
    const limit = JOURNAL_EVENTS_PER_ATOM * (state.live.length + state.quarantine.length) + JOURNAL_SLACK
    if (events <= limit || history.length < 2) return
    yield* store.compact(ATOMS_STREAM, atomCodec, history[history.length - 1]!.version)
  }).pipe(Effect.catchAll((e) => Effect.logWarning(`memory: the atom journal was not compacted: ${e.message}`)))

const requireEnabled = Effect.flatMap(Settings, (c) =>
  c.extended.enabled ? Effect.void : Effect.fail(new ExtendedDisabled())
)

/**
 * What the embedder says of an incoming text against the live atoms, in one pass (spec §11.2, §13.1): its twin, the
 * most similar live atom at or above `semantic_dedup_threshold` that agrees on every distinguishing token (numbers,
 * versions, paths, names: DESIGN §7 "Merges"), so two different facts worded alike are both kept; and its nearest
 * `association_semantic_top_k` neighbours for semantic links. Any embedding failure is "no twin, no neighbours".
 */
const semanticProbe = (live: ReadonlyArray<Atom>, text: string) =>
  Effect.gen(function* () {
    const config = (yield* Settings).extended
    const dedup = config.semanticDedupThreshold > 0
    const linkK = config.associationsEnabled ? config.associationSemanticTopK : 0
    if (live.length === 0 || (!dedup && linkK <= 0)) return { match: undefined, neighbours: [] }
    const near = yield* nearest(live, text, Math.max(linkK, PROBE_K))
    let best: { readonly id: string; readonly score: number } | undefined
    const byId = liveById(live)
    for (const n of near) {
      const a = byId.get(n.id)
      if (a === undefined) continue
      if (
        dedup &&
        n.score >= config.semanticDedupThreshold &&
        (best === undefined || n.score > best.score) &&
        mergeBlocker(a.text, text) === undefined
      )
        best = n
    }
    const linked = near.filter((n) => n.score >= config.semanticSearchMinScore).slice(0, linkK)
    return { match: best?.id, neighbours: linkK > 0 ? linked : [] }
  })

/** Candidates a write's probe looks at: a twin that blocks on a token may hide a good one just below it. */
const PROBE_K = 10

/**
 * The live atoms nearest to `text`, best first, with their similarity. An embedder that compares texts directly (the
 * local ones: exact, and cheap against one text) scores every live atom; any other goes through the atom index, which
 * embeds only what it has not embedded, not the whole store on every write. Any failure is "none near".
 */
const nearest = (live: ReadonlyArray<Atom>, text: string, k: number) =>
  Effect.gen(function* () {
    const embedder = yield* AtomEmbedder
    if (embedder.similarities === undefined) return yield* (yield* AtomIndex).search(live, text, k)
    const scores = yield* embedder.similarities(
      live.map((a) => a.text),
      text
    )
    return live
      .map((a, i) => ({ id: a.id, score: scores[i] ?? 0 }))
      .sort((x, y) => y.score - x.score)
      .slice(0, k)
  }).pipe(Effect.orElseSucceed((): ReadonlyArray<{ readonly id: string; readonly score: number }> => []))

/** Where each atom of a write landed. */
export type AtomLanding =
  | { readonly kind: "stored"; readonly atom: Atom }
  | { readonly kind: "refreshed"; readonly id: string }
  | { readonly kind: "quarantined"; readonly entry: QuarantinedAtom }
  | { readonly kind: "failed"; readonly message: string }

/**
 * The one write path for atoms (spec extended §4): normalised, scanned (the guard's second opinion asked before the
 * write, outside the lock, on what the local scan passed), capped, taint-checked and deduplicated by the decider.
 * A batch keeps what it can (each atom's landing says where it went); a lone atom's failure is an error.
 */
export const addAtoms = Effect.fn("addAtoms")(function* (inputs: ReadonlyArray<AtomInput>) {
  yield* requireEnabled
  const now = yield* nowIso
  const normalised: Array<Atom> = []
  const landings: Array<AtomLanding | undefined> = []
  for (const input of inputs) {
    const atom = normaliseAtom(input, now, yield* freshId)
    if (Either.isLeft(atom)) {
      if (inputs.length === 1) return yield* Effect.fail(atom.left)
      landings.push({ kind: "failed", message: atom.left.message })
    } else {
      normalised.push(atom.right)
      landings.push(undefined)
    }
  }
  const config = (yield* Settings).extended
  // the guard's opinion once per text, outside the lock; a tainted atom is quarantined whatever it says
  const refusals: Array<string | undefined> = []
  for (const atom of normalised)
    refusals.push(
      isTrustedClass(atom.source_class) ? (yield* secondOpinion(atom.text, "atom")).refused?.message : undefined
    )
  const policy = atomPolicy(config)
  // the plan the decider followed on the state it decided on (a conflict re-plans on the new state)
  let plan: StorePlan = { events: [], outcomes: [] }
  yield* handleCommand({
    stream: ATOMS_STREAM,
    codec: atomCodec,
    decide: (state: AtomStoreState, at: string) =>
      Effect.gen(function* () {
        const live = recallableAtoms(state)
        const incoming: Array<IncomingAtom> = []
        for (const [i, atom] of normalised.entries()) {
          const probe =
            refusals[i] === undefined && isTrustedClass(atom.source_class)
              ? yield* semanticProbe(live, atom.text)
              : undefined
          incoming.push({ atom, refused: refusals[i], match: probe?.match, neighbours: probe?.neighbours })
        }
        const decided = decideStore(state, incoming, policy, at)
        plan = decided.plan
        return yield* decided.decision
      }),
    publish: boundJournal
  })
  // the trusted atoms this process stored are what the user model is inferred from (spec extended §14.2)
  yield* rememberStored(plan.outcomes.flatMap((o) => (o.kind === "stored" ? [o.atom] : [])))
  let next = 0
  return landings.map((l): AtomLanding => {
    if (l !== undefined) return l
    const outcome = plan.outcomes[next++]!
    return outcome.kind === "failed" ? { kind: "failed", message: outcome.error.message } : outcome
  })
})

/** Removes an atom from the live store and the quarantine (§5.7). */
export const forgetAtom = Effect.fn("forgetAtom")(function* (id: string) {
  yield* execute((_, at) => Effect.succeed({ _tag: "ForgetAtom", id, at } as const))
})

/** Pins a live atom: never evicted (§7). */
export const pinAtom = Effect.fn("pinAtom")(function* (id: string) {
  yield* execute((_, at) => Effect.succeed({ _tag: "PinAtom", id, at } as const))
})

/**
 * A person's promotion of a quarantined atom (CLI only, never a tool action: §3.6): stored as user_approved, its
 * id and age kept, through the cap and dedup but without a rescan (§5.6).
 */
export const promoteAtom = Effect.fn("promoteAtom")(function* (id: string) {
  yield* execute((_, at) => Effect.succeed({ _tag: "PromoteAtom", id, at } as const))
})

/** Drops quarantine entries past their TTL (§5.5); how many went. */
export const expireQuarantine = Effect.fn("expireQuarantine")(function* () {
  const r = yield* execute((_, at) => Effect.succeed({ _tag: "ExpireQuarantine", at } as const))
  return r.events.reduce((n, e) => n + (e._tag === "QuarantineExpired" ? e.ids.length : 0), 0)
})

/** The quarantine, newest first (§5.4), after expiring what is past its TTL. Empty while disabled. */
export const listQuarantine = Effect.fn("listQuarantine")(function* () {
  if (!(yield* Settings).extended.enabled) return []
  yield* expireQuarantine()
  const { state } = yield* loadAtoms()
  return [...state.quarantine].sort((a, b) => b.quarantined_at.localeCompare(a.quarantined_at))
})

/** One atom a search found, with the similarity it was found at. */
export interface AtomHit {
  readonly atom: Atom
  readonly score: number
}

/**
 * The live, trusted atoms most similar to `query` (spec §9.2 without the model): the atom index's nearest
 * `limit × semantic_search_overfetch`, at least `semantic_search_min_score`, re-checked against the store as it is
 * now (the index may be a stale one still serving), best first, at most `limit`. Empty while disabled.
 */
export const searchAtoms = Effect.fn("searchAtoms")(function* (query: string, limit?: number) {
  const config = (yield* Settings).extended
  const k = limit ?? config.semanticSearchTopK
  return (yield* atomCandidates(query, k * Math.max(1, config.semanticSearchOverfetch))).slice(0, k)
})

/** `searchAtoms` as the tool's `search_atoms` runs it (spec §9.7): ranked by composite score, then the reranker. */
export const searchAtomsRanked = Effect.fn("searchAtomsRanked")(function* (query: string) {
  const config = (yield* Settings).extended
  const k = config.semanticSearchTopK
  const hits = yield* atomCandidates(query, k * Math.max(1, config.semanticSearchOverfetch))
  const now = Date.parse(yield* nowIso)
  const ranked = [...hits].sort(
    (a, b) =>
      compositeScore(b.score, retention(b.atom, now, config.decayHalfLifeDays)) -
      compositeScore(a.score, retention(a.atom, now, config.decayHalfLifeDays))
  )
  return (yield* reranked(query, ranked, (h) => h.atom.text)).slice(0, k)
})

/**
 * The model's order of `items` for `query` (spec §9.3), when `semantic_search_rerank` is on, a model is configured
 * and there are at least two; otherwise, or when the call fails, their order as given. Never an error.
 */
export const reranked = <A>(query: string, items: ReadonlyArray<A>, textOf: (a: A) => string) =>
  Effect.gen(function* () {
    const config = (yield* Settings).extended
    const llm = yield* AtomLlm
    if (!config.semanticSearchRerank || !llm.info.available || items.length < 2) return items
    const request = rerankPrompt(
      query,
      items.map((a) => textOf(a))
    )
    const reply = yield* Effect.option(
      llm.complete({ system: request.system, messages: [{ role: "user", content: request.user }], maxTokens: 128 })
    )
    return applyRerank(items, Option.getOrUndefined(reply))
  })

/** The `fetch` nearest live, trusted atoms at least `semantic_search_min_score` similar, best first (§9.2 1–2). */
export const atomCandidates = (query: string, fetch: number) =>
  Effect.gen(function* () {
    const config = (yield* Settings).extended
    if (!config.enabled || query.trim() === "") return [] as ReadonlyArray<AtomHit>
    const atoms = recallableAtoms((yield* loadAtoms()).state)
    if (atoms.length === 0) return [] as ReadonlyArray<AtomHit>
    const vector = yield* (yield* AtomIndex).search(atoms, query, fetch)
    const lexical = yield* lexicalHits(atoms, query, fetch)
    // an atom's similarity is the better of its cosine and the share of the query's weight its words match: what the
    // embedder misses (or cannot say while it is down) the words still find, against the same threshold
    const best = new Map<string, number>()
    for (const h of vector) best.set(h.id, h.score)
    for (const m of lexical) best.set(m.id, Math.max(best.get(m.id) ?? 0, m.coverage))
    const byId = liveById(atoms)
    const found: Array<AtomHit> = []
    for (const [id, score] of best) {
      const atom = byId.get(id)
      if (atom !== undefined && score >= config.semanticSearchMinScore) found.push({ atom, score })
    }
    // equal scores keep the vector order, then the lexical one
    return found.sort((a, b) => b.score - a.score)
  })

/** What the lexical index compares to decide whether to re-index an atom: its hash, computed once per atom. */
const stampOf = (a: Atom) => fnv64Hex(atomHash(a))
/** Live lists the lexical index is known to be in step with (a state's list is one array, so once per state). */
const lexicalInStep = new WeakMap<ReadonlyArray<Atom>, WeakSet<object>>()

/** The lexical half (AtomSearch): brought in step with the live atoms, then asked; [] on any failure. */
const lexicalHits = (atoms: ReadonlyArray<Atom>, query: string, fetch: number) =>
  Effect.gen(function* () {
    const search = yield* AtomSearch
    if (lexicalInStep.get(atoms)?.has(search) !== true) {
      const indexed = yield* search.indexed
      const byId = liveById(atoms)
      const remove = [...indexed.keys()].filter((id) => !byId.has(id))
      const put = atoms
        .filter((a) => indexed.get(a.id) !== stampOf(a))
        .map((a) => ({ id: a.id, stamp: stampOf(a), text: a.text }))
      yield* search.update(put, remove)
      const synced = lexicalInStep.get(atoms) ?? new WeakSet<object>()
      synced.add(search)
      lexicalInStep.set(atoms, synced)
    }
    return yield* search.search(query, fetch)
  })

const byIdMemo = new WeakMap<ReadonlyArray<Atom>, ReadonlyMap<string, Atom>>()
const liveById = (atoms: ReadonlyArray<Atom>) => {
  let m = byIdMemo.get(atoms)
  if (m === undefined) {
    m = new Map(atoms.map((a) => [a.id, a]))
    byIdMemo.set(atoms, m)
  }
  return m
}

/** The longest a per-turn extraction waits for the model (spec extended §10.1). */
export const EXTRACTION_TIMEOUT = Duration.seconds(30)

/**
 * Per-turn extraction (spec extended §10): the user's message, without any wrapped untrusted content, asked of the
 * model for durable atoms, which then take the one write path as `user_said` (stored `user_approved`). Never for a
 * sub-agent's "user" message: that is the parent model's text (§10.2), and its callers pass `subagent`. No model,
 * a failed or unparseable answer, or extended memory off: nothing, never an error.
 */
export const extractAtoms = Effect.fn("extractAtoms")(function* (
  message: string,
  options: { readonly sessionId?: string; readonly subagent?: boolean } = {}
) {
  const config = (yield* Settings).extended
  const nothing: ReadonlyArray<AtomLanding> = []
  if (!config.enabled || !config.autoExtractPerTurn || options.subagent === true) return nothing
  const llm = yield* AtomLlm
  if (!llm.info.available) return nothing
  const request = extractionRequest(yield* resolvedForExtraction(message))
  if (request === undefined) return nothing
  const reply = yield* llm
    .complete({ system: request.system, messages: [{ role: "user", content: request.user }], maxTokens: 1024 })
    .pipe(Effect.timeoutOption(EXTRACTION_TIMEOUT), Effect.option)
  if (Option.isNone(reply) || Option.isNone(reply.value)) return nothing
  const parsed = parseExtraction(reply.value.value, yield* nowIso, () => "")
  if (parsed.kind !== "atoms") return nothing
  const context = options.sessionId === undefined ? {} : { session_id: options.sessionId }
  // the write path gives each a fresh id
  return yield* addAtoms(
    parsed.atoms.map((a) => ({
      text: a.text,
      type: a.type,
      source_class: a.source_class,
      created_at: a.created_at,
      context: { ...a.context, ...context },
      ...(a.confidence !== undefined ? { confidence: a.confidence } : {})
    }))
  )
})

/**
 * Anaphora resolution (spec extended §15.2): a message that leans on "it", "that", "this", "them" or "those" gets its
 * first pronoun replaced by the best atom recall finds for it, so the extraction model sees what the user meant. Used
 * only as extraction input, never sent to the main model. No hit, a refused result, a failure or 5 s: the message.
 */
const resolvedForExtraction = (message: string) =>
  Effect.gen(function* () {
    const config = (yield* Settings).extended
    if (!config.anaphoraResolutionEnabled || !hasAnaphora(message)) return message
    const [top] = yield* searchAtomsRanked(message)
    if (top === undefined) return message
    const resolved = resolveAnaphora(message, top.atom.text)
    return scanForWrite(resolved) === undefined ? resolved : message
  }).pipe(
    Effect.timeoutOption(ANAPHORA_TIMEOUT),
    Effect.map(Option.getOrElse(() => message)),
    Effect.catchAll(() => Effect.succeed(message))
  )

const ANAPHORA_TIMEOUT = Duration.seconds(5)

/** The persisted atom index against the live atoms now (spec extended §16.2): vector count, current or stale. */
export const atomIndexStatus = Effect.fn("atomIndexStatus")(function* () {
  const atoms = recallableAtoms((yield* loadAtoms()).state)
  return yield* (yield* AtomIndex).status(atoms)
})

/**
 * Rebuilds the atom index from every live atom, persists it and waits (spec extended §8.5, `tmem atoms compact`):
 * what forgotten and evicted atoms left behind is gone. How many vectors it holds; fails when the embedder does.
 */
export const compactAtoms = Effect.fn("compactAtoms")(function* () {
  const atoms = recallableAtoms((yield* loadAtoms()).state)
  return yield* (yield* AtomIndex).compact(atoms)
})

/** Consolidation needs a model (spec extended §12.1). */
export class ConsolidationNeedsLlm extends Schema.TaggedError<ConsolidationNeedsLlm>()("ConsolidationNeedsLlm", {}) {
  override get message() {
    return "extended memory: consolidation requires an LLM (configure llm.provider, see docs/CONFIG.md)"
  }
}

/** What a consolidation pass did. */
export interface AtomConsolidation {
  /** Groups of near-duplicates found (≥ 2 atoms at least `consolidate_similarity_threshold` similar to a seed). */
  readonly groups: number
  /** Groups replaced by one merged atom; the rest were skipped (no answer, the scan, the cap, a change meanwhile). */
  readonly merged: number
}

/**
 * Merges near-duplicate live atoms with the model (spec extended §12): every live atom embedded directly (not through
 * a possibly stale index), grouped greedily newest first around a seed, one model call per group outside any lock;
 * the merged text is scanned (and asked of the guard) before anything changes. The originals go and the merged atom
 * is stored in one decision, so a merge the store refuses leaves the originals (§12.4). Quarantine is never touched.
 */
export const consolidateAtoms = Effect.fn("consolidateAtoms")(function* () {
  yield* requireEnabled
  const llm = yield* AtomLlm
  if (!llm.info.available) return yield* Effect.fail(new ConsolidationNeedsLlm())
  const config = (yield* Settings).extended
  const { state } = yield* loadAtoms()
  const live = [...recallableAtoms(state)].sort((a, b) => b.created_at.localeCompare(a.created_at))
  if (live.length < 2) return { groups: 0, merged: 0 } satisfies AtomConsolidation
  const texts = live.map((a) => a.text)
  const vectors = yield* (yield* AtomEmbedder).embed(texts, texts)
  const groups = consolidationGroups(live, vectors, config.consolidateSimilarityThreshold)
  const now = yield* nowIso
  const planned: Array<{ readonly ids: ReadonlyArray<string>; readonly merged: IncomingAtom }> = []
  for (const group of groups) {
    const members = group.map((i) => live[i]!)
    const request = consolidationRequest(members.map((m) => m.text))
    const reply = yield* Effect.option(
      llm
        .complete({ system: request.system, messages: [{ role: "user", content: request.user }], maxTokens: 512 })
        .pipe(during(`merging ${members.length} near-duplicate atoms`))
    )
    const text = Option.isSome(reply) ? mergedText(reply.value) : undefined
    if (text === undefined || scanForWrite(text) !== undefined) continue
    const refused = (yield* secondOpinion(text, "atom")).refused
    if (refused !== undefined) continue
    const inGroup = new Set(members.map((m) => m.id))
    const outside = members.flatMap((m) => (state.associations.get(m.id) ?? []).filter((l) => !inGroup.has(l)))
    planned.push({
      ids: members.map((m) => m.id),
      merged: { atom: mergedAtom(members, cutAtomText(text, config.atomMaxChars), yield* freshId, now, outside) }
    })
  }
  if (planned.length === 0) return { groups: groups.length, merged: 0 } satisfies AtomConsolidation
  const result = yield* execute((_, at) => Effect.succeed({ _tag: "ConsolidateAtoms", groups: planned, at } as const))
  const merged = result.events.filter((e) => e._tag === "AtomsConsolidated").length
  return { groups: groups.length, merged } satisfies AtomConsolidation
})
