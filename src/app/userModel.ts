import { Duration, Effect, Option, Ref } from "effect"
import { recallableAtoms } from "../domain/atoms/store.js"
import {
  decideUserModel,
  expiredPending,
  inferenceRequest,
  parseInferenceReply,
  renderUserModelBlock,
  styleGuidance,
  type UserModel,
  type UserModelCommand,
  userModelCodec,
  type UserModelPolicy,
  USER_MODEL_STREAM
} from "../domain/atoms/userModel.js"
import type { ExtendedConfig } from "../domain/config/MemoryConfig.js"
import { EventStore } from "../ports/EventStore.js"
import { type ActivityState, AtomActivity } from "./AtomActivity.js"
import { loadAtoms } from "./atoms.js"
import { freshId, nowIso } from "./clock.js"
import { handleCommand } from "./commandHandler.js"
import { Settings } from "./Settings.js"
import { AtomLlm } from "./AtomLlm.js"

/** The longest an inference waits for the model (spec extended §14.3). */
export const INFERENCE_TIMEOUT = Duration.seconds(30)
/** Fresh ids offered to one diff: more pending entries than the cap would be evicted anyway. */
const FRESH_IDS = 32

export const userModelPolicy = (c: ExtendedConfig): UserModelPolicy => ({
  maxPending: c.userStateMaxPending,
  pendingMaxAgeDays: c.userStatePendingMaxAgeDays
})

/** The user model as the journal has it. */
export const loadUserModel = Effect.fn("loadUserModel")(function* () {
  return (yield* (yield* EventStore).load(USER_MODEL_STREAM, userModelCodec)).state
})

const executeUserModel = (command: (at: string) => UserModelCommand) =>
  Effect.flatMap(Settings, (config) => {
    const decide = decideUserModel(userModelPolicy(config.extended))
    return handleCommand({
      stream: USER_MODEL_STREAM,
      codec: userModelCodec,
      decide: (state: UserModel, at: string) => decide(command(at), state)
    })
  })

/**
 * The model as a reader should see it at `now`: pending entries past their age (or without a timestamp) left out,
 * without writing (the prompt is assembled on every session start; `prune` and listing write the expiry).
 */
const current = (model: UserModel, now: string, config: ExtendedConfig): UserModel => {
  const gone = new Set(expiredPending(model, now, config.userStatePendingMaxAgeDays, new Set()))
  return gone.size === 0 ? model : { ...model, pending_review: model.pending_review.filter((p) => !gone.has(p.id)) }
}

/** Drops pending reviews past their age now (§14.6); how many went. */
export const expirePendingReviews = Effect.fn("expirePendingReviews")(function* () {
  const r = yield* executeUserModel((at) => ({ _tag: "ExpirePending", at }))
  return r.events.reduce((n, e) => n + (e._tag === "PendingExpired" ? e.ids.length : 0), 0)
})

/** The pending reviews, after expiring what is past its age (§14.6 Rec). Empty while disabled. */
export const listPendingReviews = Effect.fn("listPendingReviews")(function* () {
  if (!(yield* Settings).extended.enabled) return []
  yield* expirePendingReviews()
  return (yield* loadUserModel()).pending_review
})

/** A person's confirmation (CLI only, §14.6): the value applied to the model, the entry gone. */
export const confirmPendingReview = Effect.fn("confirmPendingReview")(function* (id: string) {
  yield* expirePendingReviews()
  yield* executeUserModel((at) => ({ _tag: "ConfirmPending", id, at }))
})

/** Drops a pending review without applying it (CLI or the tool, §14.6). */
export const rejectPendingReview = Effect.fn("rejectPendingReview")(function* (id: string) {
  // an entry past its age is gone for every reader, this one included
  yield* expirePendingReviews()
  yield* executeUserModel((at) => ({ _tag: "RejectPending", id, at }))
})

/**
 * What the user model adds to the memory block (spec extended §14.8–14.9): the style guidance (when mirroring is on
 * and a style is set), then the user-model block; each scanned as a whole and left out when refused. "" when
 * Extended Memory is off or the model is empty.
 */
export const userModelPrompt = Effect.fn("userModelPrompt")(
  function* () {
    const config = (yield* Settings).extended
    if (!config.enabled) return ""
    const model = current(yield* loadUserModel(), yield* nowIso, config)
    return (config.styleMirroringEnabled ? styleGuidance(model) : "") + renderUserModelBlock(model)
  },
  Effect.catchAll(() => Effect.succeed(""))
)

/**
 * One inference (spec extended §14.3–14.5): the model and the trusted atoms this process stored, to the model, for a
 * diff that the decider scans and applies (pending entries wait for a person). No model, nothing recent, a failed or
 * unparseable answer: nothing changes. Whether anything changed.
 */
export const inferUserModel = Effect.fn("inferUserModel")(function* () {
  const config = (yield* Settings).extended
  const llm = yield* AtomLlm
  const activity = yield* AtomActivity
  const { recent } = yield* Ref.get(activity)
  if (!config.enabled || !config.inferUserState || !llm.info.available || recent.length === 0) return false
  // an atom forgotten or evicted since is not evidence any more
  const live = new Set(recallableAtoms((yield* loadAtoms()).state).map((a) => a.id))
  const evidence = recent
    .filter((a) => live.has(a.id))
    .map((a) => ({ type: a.type, text: a.text, created_at: a.created_at }))
  if (evidence.length === 0) return false
  const request = inferenceRequest(yield* loadUserModel(), evidence)
  const reply = yield* llm
    .complete({ system: request.system, messages: [{ role: "user", content: request.user }], maxTokens: 1024 })
    .pipe(Effect.timeoutOption(INFERENCE_TIMEOUT), Effect.option)
  if (Option.isNone(reply) || Option.isNone(reply.value)) return false
  const parsed = parseInferenceReply(reply.value.value)
  if (parsed.kind === "invalid") {
    yield* Effect.logWarning(`memory: ${parsed.message}`)
    return false
  }
  if (parsed.kind === "none") return false
  const ids = yield* Effect.all(Array.from({ length: FRESH_IDS }, () => freshId))
  const r = yield* executeUserModel((at) => ({ _tag: "ApplyDiff", diff: parsed.diff, ids, at }))
  return r.events.length > 0
})

/**
 * After a user message's extraction (spec extended §14.3): inference is due every `user_state_turn_interval`
 * messages, or at once when an atom names a project other than the model's focus. At most one runs at a time; a
 * trigger meanwhile is dropped, not queued.
 */
export const inferIfDue = Effect.fn("inferIfDue")(function* (turn: number) {
  const config = (yield* Settings).extended
  if (!config.enabled || !config.inferUserState) return false
  const activity = yield* AtomActivity
  const focus = (yield* loadUserModel()).current_focus.project ?? ""
  const start = yield* Ref.modify(activity, (s): [boolean, ActivityState] => {
    const drifted = s.projects.some((p) => p !== focus)
    const due = (config.userStateTurnInterval > 0 && turn % config.userStateTurnInterval === 0) || drifted
    return due && !s.inferring ? [true, { ...s, inferring: true, projects: [] }] : [false, s]
  })
  if (!start) return false
  return yield* inferUserModel().pipe(
    Effect.catchAll((e) => Effect.as(Effect.logWarning(`memory: user-model inference failed: ${e.message}`), false)),
    Effect.ensuring(Ref.update(activity, (s) => ({ ...s, inferring: false })))
  )
})
