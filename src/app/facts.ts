import { Duration, Effect, Either, Option } from "effect"
import { during } from "../ports/Progress.js"
import { handleCommand } from "./commandHandler.js"
import { factPolicy } from "../domain/config/MemoryConfig.js"
import { factLifecycle } from "../domain/events/lifecycle.js"
import { type BlockedEntry, blockedEntries, screenedEntries } from "../domain/facts/blocked.js"
import { entryStats, type EntryStat, usedBytes } from "../domain/facts/codec.js"
import {
  classifySimilarity,
  decideFact,
  DEFAULT_FACT_POLICY,
  type FactPolicy,
  mergeBlocker,
  mergeCandidate
} from "../domain/facts/decider.js"
import { judgementPrompt, parseJudgement } from "../domain/llm/prompts.js"
import { Llm } from "../ports/Llm.js"
import { CapConsolidation } from "./CapConsolidation.js"
import { type FactError, InvalidTarget } from "../domain/facts/errors.js"
import type { FactCommand, FactEvent, FactFileState, KeptApart, MergeProbe, Target } from "../domain/facts/schema.js"
import { factCodec, factStream } from "../domain/facts/stream.js"
import type { Batch } from "../domain/kernel/Stream.js"
import { trimSpace } from "../domain/text/utf8.js"
import { Embedder, similaritiesOf } from "../ports/Embedder.js"
import { EventStore } from "../ports/EventStore.js"
import { Notifier } from "../ports/Notifier.js"
import type { GuardSource } from "../domain/scan/guardVerdict.js"
import { opinionsOnce } from "./guard.js"
import type { Guard } from "../ports/Guard.js"
import { Settings } from "./Settings.js"
import { handler } from "./handler.js"

/** Parses a caller-supplied target; `episodes` and anything else are refused with the spec's message. */
export const parseTarget = (target: string): Either.Either<Target, InvalidTarget> =>
  target === "user" || target === "env" ? Either.right(target) : Either.left(new InvalidTarget({ target }))

const notifyBatches = (stream: string, batches: ReadonlyArray<Batch<FactEvent>>) =>
  Effect.flatMap(Notifier, (n) => n.notify(batches.flatMap((b) => factLifecycle(stream, b))))

/**
 * A fact file's current entries and version. What the store appended while loading (a hand edit adopted or refused)
 * is announced: the notifier is woken to read the feed.
 */
export const loadFacts = handler(function* (target: Target) {
  const store = yield* EventStore
  const loaded = yield* store.load(factStream(target), factCodec(target))
  yield* notifyBatches(factStream(target), [])
  return loaded
})

/**
 * Where the new fact stands against the file: the closest entry it may merge with (else the closest one) and its
 * similarity. Any embedding failure means "no probe", so the fact is added without a merge check: never a wrong merge.
 */
export const probeMerge = (
  entries: ReadonlyArray<string>,
  content: string,
  policy: FactPolicy = DEFAULT_FACT_POLICY
): Effect.Effect<MergeProbe | undefined, never, Embedder> =>
  Effect.flatMap(Embedder, (embedder) => {
    // fitted on the file alone: an extension's new words then add nothing to the distance, so a restatement stays
    // close; what those words change is the distinguishing-token gate's to judge (mergeCandidate), not the embedder's
    return similaritiesOf(embedder, entries, content).pipe(
      during(`embedding (${embedder.space.model})`),
      Effect.match({ onFailure: () => undefined, onSuccess: (s) => mergeCandidate(entries, content, s, policy) })
    )
  })

/** The longest an add waits for a merge judgement before adding without one. */
export const JUDGEMENT_TIMEOUT = Duration.seconds(10)

/**
 * The LLM's word on a pair in the judgement band (DESIGN §5.2). No model, a failed call or an unparseable answer
 * is no judgement, and the band then adds: a wrong merge would lose the new fact's wording, a wrong add costs bytes.
 */
export const judgeMerge = Effect.fn("judgeMerge")(function* (existing: string, incoming: string) {
  const llm = yield* Llm
  if (!llm.info.available) return undefined
  const prompt = judgementPrompt(existing, incoming)
  const answer = yield* llm
    .complete({ system: prompt.system, messages: [{ role: "user", content: prompt.user }], maxTokens: 4 })
    .pipe(
      during(`asking the model (${llm.info.model}) whether to merge`),
      // an add must not wait on a slow model (its own timeout and retries could add up to minutes)
      Effect.timeoutOption(JUDGEMENT_TIMEOUT),
      Effect.option
    )
  return Option.isSome(answer) && Option.isSome(answer.value) ? parseJudgement(answer.value.value) : undefined
})

/** The fact decider under the configured policy, as a decision is handed it. */
export type Decide = (command: FactCommand, state: FactFileState) => Either.Either<ReadonlyArray<FactEvent>, FactError>

/** A command for one state and instant; the plain case of `decision` below. */
export const decided = (command: (at: string) => FactCommand) => (state: FactFileState, at: string, decide: Decide) =>
  Effect.succeed(decide(command(at), state))

/**
 * One fact command through the command handler (./commandHandler.ts): load, decide, append, notify, re-decided when
 * another writer got in between. Whatever the decision needs first (the merge probe, which may need the network)
 * runs before the append and outside any lock, on the state it decides on.
 */
export const execute = (
  target: Target,
  decision: (
    state: FactFileState,
    at: string,
    decide: Decide
  ) => Effect.Effect<Either.Either<ReadonlyArray<FactEvent>, FactError>, never, Embedder | Llm | Guard | Settings>,
  expectedVersion?: number
) => {
  const stream = factStream(target)
  return Effect.flatMap(Settings, (config) => {
    const decide = decideFact(factPolicy(config))
    return handleCommand({
      stream,
      codec: factCodec(target),
      decide: (state: FactFileState, at: string) => Effect.flatten(decision(state, at, decide)),
      publish: (batches: ReadonlyArray<Batch<FactEvent>>) => notifyBatches(stream, batches),
      ...(expectedVersion === undefined ? {} : { expectedVersion })
    })
  }).pipe(Effect.map((r) => ({ events: r.events, entries: r.state.entries })))
}

export type AddOutcome =
  | { readonly kind: "added"; readonly content: string; readonly keptApart?: KeptApart }
  | { readonly kind: "merged"; readonly content: string; readonly index: number; readonly similarity: number }
  | { readonly kind: "duplicate"; readonly content: string }

/** AddFact with merge-on-write. */
export const addFact = handler(function* (target: Target, content: string, source: GuardSource = "fact") {
  const config = yield* Settings
  const policy = factPolicy(config)
  const trimmed = trimSpace(content)
  const opinion = opinionsOnce()
  // A retry after a conflict may meet the same pair again; the model is asked once per pair.
  const judgements = new Map<string, "merge" | "add" | undefined>()
  const judge = (existing: string, incoming: string) =>
    Effect.suspend(() => {
      const key = JSON.stringify([existing, incoming])
      return judgements.has(key)
        ? Effect.succeed(judgements.get(key))
        : Effect.tap(judgeMerge(existing, incoming), (j) => Effect.sync(() => void judgements.set(key, j)))
    })
  const result = yield* execute(target, (state, at, decide) => {
    const plain = { _tag: "AddFact", target, content, at } as const
    // Ask the embedder only about a fact that would be stored: refused text (a credential, an injection) is
    // never sent to an embedding endpoint, and duplicates cost nothing. A cap refusal may still become a merge.
    const withoutProbe = decide(plain, state)
    const worthProbing = Either.isRight(withoutProbe)
      ? withoutProbe.right.length > 0
      : withoutProbe.left._tag === "CapExceeded"
    if (!worthProbing) return Effect.succeed(withoutProbe)
    // The guard's second opinion only on what the local scan passed and would be stored (spec facts §7.1 step 5).
    return Effect.flatMap(opinion(trimmed, source), ({ record, refused }) => {
      if (refused !== undefined) return Effect.succeed(Either.left(refused))
      const guarded = record === undefined ? plain : { ...plain, guard: record }
      const unprobed = record === undefined ? withoutProbe : decide(guarded, state)
      if (!config.mergeOnWrite || state.entries.length === 0) return Effect.succeed(unprobed)
      return Effect.flatMap(probeMerge(state.entries, trimmed, policy), (probe) => {
        // the decision ignores a probe in the add band, so the one already made stands
        if (probe === undefined || classifySimilarity(probe.similarity, policy) === "add")
          return Effect.succeed(unprobed)
        const existing = state.entries[probe.index]!
        // The model is not asked about a pair the gate keeps apart: its answer could not change the outcome.
        const ask =
          classifySimilarity(probe.similarity, policy) === "judge" && mergeBlocker(existing, trimmed) === undefined
        return Effect.map(ask ? judge(existing, trimmed) : Effect.succeed(undefined), (judgement) =>
          decide({ ...guarded, probe: judgement === undefined ? probe : { ...probe, judgement } }, state)
        )
      })
    })
  })
  const e = result.events[0]
  if (e !== undefined) yield* Effect.flatMap(CapConsolidation, (c) => c.crossed(target, result.entries))
  const outcome: AddOutcome =
    e === undefined
      ? { kind: "duplicate", content: trimmed }
      : e._tag === "FactMerged"
        ? { kind: "merged", content: e.content, index: e.index, similarity: e.similarity }
        : e._tag === "FactAdded" && e.keptApart !== undefined
          ? { kind: "added", content: trimmed, keptApart: e.keptApart }
          : { kind: "added", content: trimmed }
  return { outcome, entries: result.entries }
})

/** ReplaceFact; `expectedEntry` is the entry an approver saw (the change applies only if it is unchanged). */
export const replaceFact = handler(function* (
  target: Target,
  oldText: string,
  content: string,
  expectedEntry?: string
) {
  const opinion = opinionsOnce()
  const result = yield* execute(target, (state, at, decide) => {
    const command = { _tag: "ReplaceFact", target, oldText, content, at, expectedEntry } as const
    const plain = decide(command, state)
    // asked only about a replacement the local rules let through
    if (Either.isLeft(plain)) return Effect.succeed(plain)
    return Effect.map(opinion(trimSpace(content), "fact"), ({ record, refused }) =>
      refused !== undefined
        ? Either.left(refused)
        : record === undefined
          ? plain
          : decide({ ...command, guard: record }, state)
    )
  })
  return { entries: result.entries, content: trimSpace(content) }
})

export const removeFact = handler(function* (target: Target, oldText: string, expectedEntry?: string) {
  const result = yield* execute(
    target,
    decided((at) => ({ _tag: "RemoveFact", target, oldText, at, expectedEntry }))
  )
  return { entries: result.entries }
})

/**
 * Replaces the whole file with a person's edited text, after the same validation every write gets. With
 * `expectedVersion` (the version the editor opened), a file that changed meanwhile is a VersionConflict.
 */
export const rewriteFacts = handler(function* (target: Target, text: string, expectedVersion?: number) {
  const result = yield* execute(
    target,
    decided((at) => ({ _tag: "RewriteFacts", target, text, at })),
    expectedVersion
  )
  return { entries: result.entries, changed: result.events.length > 0 }
})

export interface FactStats {
  readonly target: Target
  readonly used: number
  readonly cap: number
  readonly entries: ReadonlyArray<EntryStat>
}

const capFrom = (c: Settings["Type"], target: Target) => (target === "user" ? c.factsLimitUser : c.factsLimitEnv)
export const capOf = (target: Target) => Effect.map(Settings, (c) => capFrom(c, target))

export const factStats = Effect.fn("factStats")(function* (target: Target) {
  const loaded = yield* loadFacts(target)
  const cap = yield* capOf(target)
  return {
    target,
    used: usedBytes(loaded.state.entries),
    cap,
    entries: entryStats(loaded.state.entries)
  } satisfies FactStats
})

/** Both files' entries, as they are on disk (`promptFacts` is what the model is shown). */
export const readFacts = Effect.fn("readFacts")(function* () {
  const [user, env] = yield* Effect.all([loadFacts("user"), loadFacts("env")])
  return { user: user.state.entries, env: env.state.entries }
})

/** A fact file as the model may see it: the entries on disk, those the current scanner refuses, and the shown text. */
export interface ScreenedFacts {
  readonly entries: ReadonlyArray<string>
  /** Entries the current scanner refuses: they stay on disk and are never shown to the model. */
  readonly blocked: ReadonlyArray<BlockedEntry>
  /** The entries with each blocked one replaced by `[BLOCKED: <label>]`. */
  readonly shown: ReadonlyArray<string>
}

// Entry-and-label pairs each store has recorded as blocked, by stream: a session's every prompt asks again.
const reportedBy = new WeakMap<object, Set<string>>()
const pairKey = (stream: string, b: { readonly entry: string; readonly label: string }) =>
  JSON.stringify([stream, b.entry, b.label])

/**
 * Records, once, the entries the current scanner refuses (DESIGN §7 "Scanner": scan on load), so the audit trail
 * and the lifecycle feed name them for a person to remove. A store that cannot take the record (read-only) still
 * has them blocked: the warning says so and the prompt is unaffected.
 */
const recordBlocked = (target: Target, blocked: ReadonlyArray<BlockedEntry>) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const stream = factStream(target)
    let seen = reportedBy.get(store)
    if (seen === undefined) reportedBy.set(store, (seen = new Set()))
    const known = seen
    if (blocked.every((b) => known.has(pairKey(stream, b)))) return
    const batches = yield* store.read(stream, factCodec(target))
    const reported = batches.flatMap((b) => b.events).flatMap((e) => (e._tag === "FactsBlocked" ? e.blocked : []))
    for (const b of reported) known.add(pairKey(stream, b))
    if (blocked.every((b) => known.has(pairKey(stream, b)))) return
    yield* execute(
      target,
      decided((at) => ({ _tag: "ReportBlocked", target, reported, at }))
    )
    for (const b of blocked) known.add(pairKey(stream, b))
  }).pipe(
    Effect.catchAll((e) =>
      Effect.logWarning(`memory: ${target} entries blocked from the prompt were not recorded: ${e.message}`)
    )
  )

/**
 * One fact file screened by the current scanner (scan on load): what a hand edit, an import or an older version's
 * write let in and the scanner now refuses is kept on disk, recorded once as FactsBlocked, and shown to the model
 * only as a BLOCKED line.
 */
export const screenFacts = Effect.fn("screenFacts")(function* (target: Target) {
  const loaded = yield* loadFacts(target)
  const entries = loaded.state.entries
  const blocked = blockedEntries(entries)
  if (blocked.length > 0 && (yield* Settings).enabled) yield* recordBlocked(target, blocked)
  return { entries, blocked, shown: blocked.length === 0 ? entries : screenedEntries(entries) } satisfies ScreenedFacts
})

/** Both files as the prompt block and `read` show them: blocked entries replaced by their BLOCKED line. */
export const promptFacts = Effect.fn("promptFacts")(function* () {
  const [user, env] = yield* Effect.all([screenFacts("user"), screenFacts("env")])
  return { user: user.shown, env: env.shown }
})

/**
 * The last hand edit of `target` that was not adopted and not yet followed by one that was (or by `facts edit`):
 * what a person still has to fix. Reads the whole journal, so callers ask only when a kept file suggests one.
 */
export const outstandingEditRejection = Effect.fn("outstandingEditRejection")(function* (target: Target) {
  const store = yield* EventStore
  const batches = yield* store.read(factStream(target), factCodec(target))
  let last: Extract<FactEvent, { readonly _tag: "FactsEditRejected" }> | undefined
  for (const e of batches.flatMap((b) => b.events)) {
    if (e._tag === "FactsEditRejected") last = e
    else if (e._tag === "FactsEditedExternally" || e._tag === "FactsRewritten") last = undefined
  }
  return last
})
