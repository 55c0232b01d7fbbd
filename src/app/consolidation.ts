import { Clock, Duration, Effect, Either, ExecutionStrategy, Fiber, Layer, Option, Ref, Schema, Scope } from "effect"
import { during } from "../ports/Progress.js"
import { usedBytes } from "../domain/facts/codec.js"
import { consolidationPrompt, normaliseConsolidation, parseConsolidation } from "../domain/facts/consolidation.js"
import { blockedEntries } from "../domain/facts/blocked.js"
import { ConsolidationConflict, ConsolidationRejected, type FactError, MemoryDisabled } from "../domain/facts/errors.js"
import { type ConsolidationTrigger, type FactEvent, TARGETS, type Target } from "../domain/facts/schema.js"
import { Llm } from "../ports/Llm.js"
import { EventStore } from "../ports/EventStore.js"
import { Embedder } from "../ports/Embedder.js"
import { Notifier } from "../ports/Notifier.js"
import { decided, execute, loadFacts } from "./facts.js"
import { leastClean, opinionsOnce } from "./guard.js"
import type { Guard } from "../ports/Guard.js"
import type { GuardRecord } from "../domain/scan/guardVerdict.js"
import { CapConsolidation } from "./CapConsolidation.js"
import { Settings } from "./Settings.js"

/** Consolidation needs a model and `llm_consolidate`; the spec's message for both. */
export class ConsolidationUnavailable extends Schema.TaggedError<ConsolidationUnavailable>()(
  "ConsolidationUnavailable",
  {}
) {
  override get message() {
    return "memory: consolidation requires LLM client"
  }
}

/** The model call of a pass failed (unreachable, timed out, bad response); the file is unchanged. */
export class ConsolidationLlmFailed extends Schema.TaggedError<ConsolidationLlmFailed>()("ConsolidationLlmFailed", {
  detail: Schema.String
}) {
  override get message() {
    return `memory: consolidate LLM: ${this.detail}`
  }
}

export type ConsolidationOutcome =
  | { readonly kind: "nothing"; readonly target: Target; readonly count: number }
  | { readonly kind: "unchanged"; readonly target: Target; readonly count: number }
  | {
      readonly kind: "consolidated"
      readonly target: Target
      readonly count: number
      readonly newCount: number
      readonly entries: ReadonlyArray<string>
      readonly version: number
    }

type Decision = Either.Either<ReadonlyArray<FactEvent>, FactError>

// Output is never longer than the input; a token is about 3–4 bytes of English, more for other scripts.
const answerBudget = (entries: ReadonlyArray<string>) => Math.min(8192, Math.ceil(usedBytes(entries) / 2) + 256)

/**
 * One consolidation pass (spec facts §6.1, DESIGN §5.4). The model is asked with no lock held; its answer applies
 * only to the exact version it saw, after the decider's scan, coverage and cap checks. Any failure leaves the file
 * as it was.
 */
export const consolidateFacts = Effect.fn("consolidateFacts")(function* (
  target: Target,
  trigger: ConsolidationTrigger
) {
  const config = yield* Settings
  if (!config.enabled) return yield* Effect.fail(new MemoryDisabled())
  const llm = yield* Llm
  if (!llm.info.available || !config.llmConsolidate) return yield* Effect.fail(new ConsolidationUnavailable())
  const snapshot = yield* loadFacts(target)
  const before = snapshot.state.entries
  if (before.length <= 1) return { kind: "nothing", target, count: before.length } satisfies ConsolidationOutcome
  // An entry the scanner now refuses is never sent to a model (it may be the very injection the scan stops).
  const blocked = blockedEntries(before)
  if (blocked.length > 0)
    return yield* Effect.fail(
      new ConsolidationRejected({
        reason: "blocked",
        text:
          `memory: ${target} entry ${blocked[0]!.index + 1} is blocked by the scanner (${blocked[0]!.label}); ` +
          `remove it before consolidating (tmem facts show ${target})`
      })
    )
  const prompt = consolidationPrompt(target, before)
  const answer = yield* llm
    .complete({
      system: prompt.system,
      messages: [{ role: "user", content: prompt.user }],
      maxTokens: answerBudget(before),
      json: true
    })
    .pipe(
      during(`consolidating ${target}: waiting for the model (${llm.info.model})`),
      Effect.mapError((e) => new ConsolidationLlmFailed({ detail: e.message }))
    )
  const entries = normaliseConsolidation(yield* parseConsolidation(answer), before.length)
  // `[]` or `[""]` is the model declining: a successful no-op, as in the spec.
  if (entries.length === 0) return { kind: "unchanged", target, count: before.length } satisfies ConsolidationOutcome
  const applying = (guard: GuardRecord | undefined) =>
    decided((at) => ({
      _tag: "ApplyConsolidation",
      target,
      snapshot: before,
      entries,
      trigger,
      model: llm.info.model,
      at,
      ...(guard === undefined ? {} : { guard })
    }))
  // The guard sees what the model wrote that was not in the file, once the local checks pass; any refusal keeps the
  // whole file as it was, as the local re-scan does.
  const opinion = opinionsOnce()
  const result = yield* execute(
    target,
    (state, at, decide) => {
      const plain = applying(undefined)(state, at, decide)
      return Effect.flatMap(plain, (decision: Decision) => {
        if (Either.isLeft(decision) || decision.right.length === 0) return Effect.succeed(decision)
        const written = entries.filter((e) => !before.includes(e))
        return Effect.flatMap(
          Effect.forEach(written, (e) => opinion(e, "consolidation")),
          (opinions): Effect.Effect<Decision, never, Embedder | Llm | Guard | Settings> => {
            const refused = opinions.find((o) => o.refused !== undefined)?.refused
            if (refused !== undefined)
              return Effect.succeed(
                Either.left(
                  new ConsolidationRejected({
                    reason: "unsafe",
                    text: `${refused.text.replace(/^memory: /, "memory: consolidation output refused by the guard: ")}`
                  })
                )
              )
            const record = leastClean(opinions.map((o) => o.record))
            return record === undefined ? Effect.succeed(decision) : applying(record)(state, at, decide)
          }
        )
      })
    },
    snapshot.version
  ).pipe(Effect.catchTag("VersionConflict", () => Effect.fail(new ConsolidationConflict({ target }))))
  if (result.events.length === 0)
    return { kind: "unchanged", target, count: before.length } satisfies ConsolidationOutcome
  return {
    kind: "consolidated",
    target,
    count: before.length,
    newCount: result.entries.length,
    entries: result.entries,
    version: snapshot.version + result.events.length
  } satisfies ConsolidationOutcome
})

export type PassError = Effect.Effect.Error<ReturnType<typeof consolidateFacts>>

/** What a one-line report says about a pass. */
export const describeOutcome = (o: ConsolidationOutcome): string =>
  o.kind === "nothing"
    ? "nothing to consolidate (1 or fewer entries)"
    : o.kind === "unchanged"
      ? `${o.target}: consolidation changed nothing (${o.count} entries)`
      : `consolidated ${o.target} (${o.count} → ${o.newCount} entries); ` +
        `revert with: tmem facts revert ${o.target}@${o.version}`

/**
 * Session-end consolidation (spec facts §6.2): `user`, then `env`, when the session was long enough and the settings
 * allow it. Errors are ignored: a session never fails because its tidy-up did.
 */
export const consolidateAtSessionEnd = Effect.fn("consolidateAtSessionEnd")(function* (turns: number) {
  const config = yield* Settings
  const llm = yield* Llm
  if (!config.enabled || !config.consolidateOnEnd || !config.llmConsolidate || !llm.info.available) return []
  if (turns < config.minTurnsForExtraction) return []
  const outcomes: Array<Either.Either<ConsolidationOutcome, PassError>> = []
  for (const target of TARGETS) outcomes.push(yield* Effect.either(consolidateFacts(target, "session_end")))
  return outcomes
})

/** Seconds between successful cap-triggered passes on one target (spec facts §6.3). */
export const CAP_COOLDOWN = Duration.seconds(600)
/** How long closing the memory waits for a running background pass before abandoning it (nothing half-written). */
export const DRAIN_TIMEOUT = Duration.seconds(15)

/** Whether a file's fill has reached the cap-trigger threshold. */
export const overThreshold = (entries: ReadonlyArray<string>, cap: number, pct: number) =>
  pct > 0 && entries.length >= 2 && usedBytes(entries) * 100 >= cap * pct

interface CapState {
  readonly running: boolean
  readonly pending: ReadonlyArray<Target>
  readonly cooldownUntil: Readonly<Partial<Record<Target, number>>>
}

/**
 * The cap-triggered background pass: at most one pass at a time for both targets, crossings queued per target while
 * one runs, a per-target cooldown stamped only after a successful pass. Best effort: failures are logged, never
 * surfaced to the write that crossed the threshold.
 */
export const makeCapConsolidationLayer = (
  options: { readonly cooldown?: Duration.DurationInput; readonly drainTimeout?: Duration.DurationInput } = {}
) =>
  Layer.scoped(
    CapConsolidation,
    Effect.gen(function* () {
      const cooldownMs = Duration.toMillis(options.cooldown ?? CAP_COOLDOWN)
      // Workers live in a scope of their own, closed after the drain below (finalizers run in reverse order).
      const workers = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
      const services = yield* Effect.context<Settings | Llm | EventStore | Embedder | Notifier | Guard>()
      const state = yield* Ref.make<CapState>({ running: false, pending: [], cooldownUntil: {} })
      const current = yield* Ref.make<Fiber.RuntimeFiber<void> | undefined>(undefined)
      const config = yield* Settings
      const llm = yield* Llm
      const enabled = config.enabled && config.llmConsolidate && config.consolidateAtCapPct > 0 && llm.info.available
      const capOf = (t: Target) => (t === "user" ? config.factsLimitUser : config.factsLimitEnv)

      const coolingDown = (t: Target) =>
        Effect.map(
          Effect.zip(Clock.currentTimeMillis, Ref.get(state)),
          ([now, s]) => now < (s.cooldownUntil[t] ?? -Infinity)
        )

      const service = (t: Target) =>
        Effect.gen(function* () {
          if (yield* coolingDown(t)) return
          // Re-snapshot: the crossing may be stale by the time its turn comes.
          const loaded = yield* loadFacts(t)
          if (!overThreshold(loaded.state.entries, capOf(t), config.consolidateAtCapPct)) return
          const outcome = yield* consolidateFacts(t, "cap")
          const now = yield* Clock.currentTimeMillis
          if (outcome.kind !== "nothing")
            yield* Ref.update(state, (s) => ({ ...s, cooldownUntil: { ...s.cooldownUntil, [t]: now + cooldownMs } }))
          yield* Effect.logInfo(describeOutcome(outcome))
        }).pipe(
          Effect.catchAll((e) => Effect.logWarning(`memory: background consolidation of ${t} skipped: ${e.message}`)),
          Effect.provide(services)
        )

      // Serves the target it was started for, then whatever queued meanwhile; `running` ends with an empty queue.
      const work = (first: Target): Effect.Effect<void> =>
        Effect.gen(function* () {
          let next: Option.Option<Target> = Option.some(first)
          while (Option.isSome(next)) {
            yield* service(next.value)
            next = yield* Ref.modify(state, (s): [Option.Option<Target>, CapState] => {
              const [head, ...rest] = s.pending
              return head === undefined
                ? [Option.none(), { ...s, running: false }]
                : [Option.some(head), { ...s, pending: rest }]
            })
          }
        })

      const crossed = (t: Target, entries: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          if (!enabled || !overThreshold(entries, capOf(t), config.consolidateAtCapPct)) return
          if (yield* coolingDown(t)) return
          const start = yield* Ref.modify(state, (s): [boolean, CapState] =>
            s.running
              ? [false, s.pending.includes(t) ? s : { ...s, pending: [...s.pending, t] }]
              : [true, { ...s, running: true }]
          )
          // the pass itself stays interruptible (a fork inherits this region's status), so closing can cut a hung model
          // short
          if (start)
            yield* Effect.flatMap(Effect.forkIn(Effect.interruptible(work(t)), workers), (f) => Ref.set(current, f))
        }).pipe(Effect.uninterruptible)

      const drain = (timeout: Duration.DurationInput) =>
        Effect.gen(function* () {
          while ((yield* Ref.get(state)).running) {
            const fiber = yield* Ref.get(current)
            if (fiber !== undefined) yield* Fiber.await(fiber)
            yield* Effect.yieldNow()
          }
          // interruptible inside the closing finalizer too, or the timeout could not end a wait on a hung model
        }).pipe(Effect.interruptible, Effect.timeoutOption(timeout), Effect.asVoid)

      yield* Effect.addFinalizer(() => drain(options.drainTimeout ?? DRAIN_TIMEOUT))
      return CapConsolidation.of({ crossed, drain })
    })
  )

export const capConsolidationLayer = makeCapConsolidationLayer()
