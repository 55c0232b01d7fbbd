import { Duration, Effect, Option, Ref } from "effect"
import { retention } from "../domain/atoms/atom.js"
import {
  followUpSuggestions,
  mergePredicted,
  parsePrediction,
  predictionRequest,
  usableIntents
} from "../domain/atoms/prediction.js"
import { renderReturnBlock, returnRequest } from "../domain/atoms/proactive.js"
import { compositeScore, renderRecallBlock } from "../domain/atoms/recallBlock.js"
import { recallableAtoms } from "../domain/atoms/store.js"
import { userModelJson } from "../domain/atoms/userModel.js"
import { scanForWrite } from "../domain/scan/index.js"
import { AtomActivity } from "./AtomActivity.js"
import { type AtomHit, atomCandidates, loadAtoms, reranked } from "./atoms.js"
import { nowIso } from "./clock.js"
import { Settings } from "./Settings.js"
import { AtomLlm } from "./AtomLlm.js"
import { loadUserModel } from "./userModel.js"

/** The longest a turn's atom recall may take, model calls included (spec extended §9.1). */
export const ATOM_RECALL_TIMEOUT = Duration.seconds(5)

interface Ranked {
  readonly hit: AtomHit
  readonly score: number
}

/** Candidates for one query, scored `0.6 × cosine + 0.4 × retention` and sorted by it (stable), §9.2 1–3, 5. */
const scored = (query: string) =>
  Effect.gen(function* () {
    const config = (yield* Settings).extended
    const now = Date.parse(yield* nowIso)
    const hits = yield* atomCandidates(query, config.semanticSearchTopK * Math.max(1, config.semanticSearchOverfetch))
    return hits
      .map((hit): Ranked => ({
        hit,
        score: compositeScore(hit.score, retention(hit.atom, now, config.decayHalfLifeDays))
      }))
      .sort((a, b) => b.score - a.score)
  })

/**
 * Predictive recall (spec extended §9.4–9.5): one model call guesses what the user will ask next from the message,
 * the last user messages this process saw and the user model; each guess at least 0.3 confident recalls as a query of
 * its own, its scores weighed by its confidence. The confident guesses become the follow-up suggestions (replaced on
 * every recall). Nothing when off, without a model, or when the call fails.
 */
const predicted = (message: string) =>
  Effect.gen(function* () {
    const config = (yield* Settings).extended
    const llm = yield* AtomLlm
    const activity = yield* AtomActivity
    if (!config.followUpAnticipationEnabled || config.predictiveIntents <= 0 || !llm.info.available) return []
    const { messages } = yield* Ref.get(activity)
    const model = yield* loadUserModel()
    const request = predictionRequest(
      message,
      // the current message may already be counted (the turn's extraction runs beside the prompt)
      messages.at(-1) === message ? messages.slice(0, -1) : messages,
      JSON.stringify(userModelJson(model)),
      config.predictiveIntents
    )
    const reply = yield* Effect.option(
      llm.complete({ system: request.system, messages: [{ role: "user", content: request.user }], maxTokens: 512 })
    )
    const intents = Option.isSome(reply) ? parsePrediction(reply.value, config.predictiveIntents) : []
    const suggestions = config.followUpSuggestionsEnabled
      ? followUpSuggestions(intents, config.followUpSuggestionMinConfidence).filter(
          (t) => scanForWrite(t) === undefined
        )
      : []
    yield* Ref.update(activity, (s) => ({ ...s, followUps: suggestions }))
    const out: Array<{ readonly confidence: number; readonly hits: ReadonlyArray<Ranked> }> = []
    for (const intent of usableIntents(intents))
      out.push({ confidence: intent.confidence, hits: yield* scored(intent.text) })
    return out
  })

/**
 * The Extended Memory block for one user message (spec extended §9): live, trusted atoms at least
 * `semantic_search_min_score` similar to the message, by composite score, reordered by the model's rerank when one is
 * configured, joined by what predicted follow-up intents recall; the best `semantic_search_top_k` within
 * `memory_budget_chars`. A block the scanner refuses is dropped (every atom passed the scanner when written, but a
 * rule may have been added since). "" when disabled, empty, failing or past 5 s: recall never fails a turn.
 */
export const atomRecallBlock = Effect.fn("atomRecallBlock")(
  function* (message: string) {
    const config = (yield* Settings).extended
    if (!config.enabled || message.trim() === "") return ""
    const literal = yield* reranked(message, yield* scored(message), (r) => r.hit.atom.text)
    const intents = yield* predicted(message)
    const byId = new Map(literal.map((r) => [r.hit.atom.id, r.hit.atom] as const))
    for (const i of intents) for (const r of i.hits) if (!byId.has(r.hit.atom.id)) byId.set(r.hit.atom.id, r.hit.atom)
    // what the user said first, in the reranked order (DESIGN decision: the model's order stands); then what the
    // predicted intents add, best weighted score first (§9.4 merges by score, which would undo the rerank)
    const literalIds = literal.map((r) => r.hit.atom.id)
    const seen = new Set(literalIds)
    const added = mergePredicted(
      [],
      intents.map((i) => ({
        confidence: i.confidence,
        hits: i.hits.map((r) => ({ id: r.hit.atom.id, score: r.score }))
      })),
      config.semanticSearchTopK
    )
      .map((s) => s.id)
      .filter((id) => !seen.has(id))
    const order = [...literalIds, ...added]
    const atoms = order.slice(0, config.semanticSearchTopK).map((id) => byId.get(id)!)
    const block = renderRecallBlock(atoms, config.memoryBudgetChars)
    return block !== "" && scanForWrite(block) === undefined ? block : ""
  },
  Effect.timeoutOption(ATOM_RECALL_TIMEOUT),
  Effect.map(Option.getOrElse(() => "")),
  Effect.catchAll(() => Effect.succeed(""))
)

/** The follow-up suggestions of the last recall (spec extended §9.5): at most 3, [] when none or disabled. */
export const atomFollowUps = Effect.flatMap(AtomActivity, (ref) => Effect.map(Ref.get(ref), (s) => s.followUps))

/** The longest the return-after-break summary waits for the model (spec extended §15.1). */
export const RETURN_TIMEOUT = Duration.seconds(5)

/**
 * Return after a break (spec extended §15.1): for a resumed session, the five most recent trusted live atoms and the
 * user model to the model for one or two sentences on where the user left off, as a `WHERE YOU LEFT OFF` block;
 * scanned (odek v1.15 did not). "" when off, without a model or atoms, on a blank answer, a failure or after 5 s.
 */
export const returnAfterBreak = Effect.fn("returnAfterBreak")(
  function* () {
    const config = (yield* Settings).extended
    const llm = yield* AtomLlm
    if (!config.enabled || !config.proactiveReturnAfterBreak || !llm.info.available) return ""
    const recent = [...recallableAtoms((yield* loadAtoms()).state)]
      .sort((a, b) => b.created_at.localeCompare(a.created_at))
      .slice(0, 5)
    if (recent.length === 0) return ""
    const request = returnRequest(
      recent.map((a) => ({ type: a.type, text: a.text, created_at: a.created_at })),
      JSON.stringify(userModelJson(yield* loadUserModel()))
    )
    const reply = yield* llm.complete({
      system: request.system,
      messages: [{ role: "user", content: request.user }],
      maxTokens: 256
    })
    const block = renderReturnBlock(reply)
    return block !== "" && scanForWrite(block) === undefined ? block : ""
  },
  Effect.timeoutOption(RETURN_TIMEOUT),
  Effect.map(Option.getOrElse(() => "")),
  Effect.catchAll(() => Effect.succeed(""))
)
