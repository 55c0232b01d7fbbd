import { Duration, Effect, Option, Schema } from "effect"
import {
  DeliverNudges,
  decideNudges,
  type Nudge,
  type NudgeConfig,
  nudgeCodec,
  nudgeInputs,
  nudgeRequest,
  NUDGES_STREAM,
  parseNudges,
  remainingToday
} from "../domain/atoms/nudges.js"
import { recallableAtoms } from "../domain/atoms/store.js"
import type { ExtendedConfig } from "../domain/config/MemoryConfig.js"
import { scanForWrite } from "../domain/scan/index.js"
import { nudgeLifecycle } from "../domain/events/lifecycle.js"
import { EventStore } from "../ports/EventStore.js"
import { Notifier } from "../ports/Notifier.js"
import { during } from "../ports/Progress.js"
import { loadAtoms } from "./atoms.js"
import { nowIso } from "./clock.js"
import { handleCommand } from "./commandHandler.js"
import { Settings } from "./Settings.js"
import { AtomLlm } from "./AtomLlm.js"
import { loadUserModel } from "./userModel.js"

/** The longest a nudge synthesis waits for the model (spec extended §15.7, §18.3). */
export const NUDGE_TIMEOUT = Duration.minutes(2)
/** Nudges one synthesis asks for (§15.4 `maxN`). */
export const NUDGES_PER_CALL = 2

export const nudgeConfig = (c: ExtendedConfig): NudgeConfig => ({
  maxPerDay: c.nudgeMaxPerDay,
  cooldownHours: c.nudgeCooldownHours,
  staleGoalDays: c.nudgeStaleGoalDays,
  openQuestionMinAgeHours: c.nudgeOpenQuestionMinAgeHours
})

/** Nudges need a model (spec extended §18.3). */
export class NudgesNeedLlm extends Schema.TaggedError<NudgesNeedLlm>()("NudgesNeedLlm", {}) {
  override get message() {
    return "extended memory: nudges require an LLM (configure llm.provider, see docs/CONFIG.md)"
  }
}

/**
 * Nudge synthesis (spec extended §15.4): open loops, stale goals and the current focus, from trusted live atoms and
 * the user model only, to one model call. Nothing to go on: no call. Every failure is "no nudges", never an error;
 * a nudge whose text the scanner refuses is dropped.
 */
const synthesise = (maxN: number) =>
  Effect.gen(function* () {
    const config = (yield* Settings).extended
    const llm = yield* AtomLlm
    if (!llm.info.available) return [] as ReadonlyArray<Nudge>
    const live = recallableAtoms((yield* loadAtoms()).state)
    const focus = (yield* loadUserModel()).current_focus
    const inputs = nudgeInputs(live, focus, yield* nowIso, nudgeConfig(config))
    if (inputs === undefined) return [] as ReadonlyArray<Nudge>
    const request = nudgeRequest(inputs, maxN)
    const reply = yield* llm
      .complete({ system: request.system, messages: [{ role: "user", content: request.user }], maxTokens: 1024 })
      .pipe(Effect.timeoutOption(NUDGE_TIMEOUT), Effect.option, during("asking the model for nudges"))
    if (Option.isNone(reply) || Option.isNone(reply.value)) return [] as ReadonlyArray<Nudge>
    const known = new Set(live.map((a) => a.id))
    return parseNudges(reply.value.value, maxN, known).filter((n) => scanForWrite(n.text) === undefined)
  }).pipe(Effect.catchAll(() => Effect.succeed([] as ReadonlyArray<Nudge>)))

/**
 * A preview of up to two nudges (`tmem atoms nudges`, §15.5): nothing recorded, no cap checked or consumed. Needs a
 * model; fails without one so that the person asking knows why there is nothing.
 */
export const previewNudges = Effect.fn("previewNudges")(function* () {
  if (!(yield* AtomLlm).info.available) return yield* Effect.fail(new NudgesNeedLlm())
  return yield* synthesise(NUDGES_PER_CALL)
})

/**
 * Delivery (§15.5): only when `proactive_nudges_enabled`; nothing left today means no model call at all; kinds
 * fired within `nudge_cooldown_hours` are skipped, one nudge per kind per call. What goes out is recorded (the
 * ledger, `extended/nudges.json`) and reaches the notifier as `nudge` lifecycle events. At most `max`; the nudges
 * delivered.
 */
export const takeNudges = Effect.fn("takeNudges")(function* (max: number = NUDGES_PER_CALL) {
  const config = (yield* Settings).extended
  if (!config.enabled || !config.proactiveNudgesEnabled) return [] as ReadonlyArray<Nudge>
  const policy = nudgeConfig(config)
  const ledger = (yield* (yield* EventStore).load(NUDGES_STREAM, nudgeCodec)).state
  const remaining = remainingToday(ledger, yield* nowIso, policy.maxPerDay)
  if (remaining <= 0) return [] as ReadonlyArray<Nudge>
  const candidates = yield* synthesise(Math.max(1, Math.min(max, remaining)))
  if (candidates.length === 0) return [] as ReadonlyArray<Nudge>
  const decide = decideNudges(policy)
  const r = yield* handleCommand({
    stream: NUDGES_STREAM,
    codec: nudgeCodec,
    // the ledger as it is under the lock: another taker's delivery counts against today's cap
    decide: (state, at) => decide(DeliverNudges.make({ candidates, at }), state),
    // the notifier reads the delivery back from the journal as `nudge` events (a wake-up, as for every write)
    publish: (batches) =>
      Effect.flatMap(Notifier, (n) => n.notify(batches.flatMap((b) => nudgeLifecycle(NUDGES_STREAM, b))))
  })
  return r.events.flatMap((e) => (e._tag === "NudgesDelivered" ? e.nudges : []))
})
