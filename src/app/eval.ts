import { Clock, Context, Effect, Schema } from "effect"
import type { Conversation, Dataset } from "../domain/eval/dataset.js"
import { percentile, type QuestionResult, scoreQuestion, summariseRecall } from "../domain/eval/metrics.js"
import type { EvaluationFigures } from "../domain/eval/report.js"
import type { EpisodeSearch } from "../ports/EpisodeSearch.js"
import { evalSessionId, sessionMessages, sessionNumberOf } from "../domain/eval/protocol.js"
import type { TrustZone } from "../domain/sessions/message.js"
import type { Embedder } from "../ports/Embedder.js"
import type { EventStore } from "../ports/EventStore.js"
import type { Llm } from "../ports/Llm.js"
import type { Notifier } from "../ports/Notifier.js"
import { during } from "../ports/Progress.js"
import type { Background } from "./Background.js"
import type { CapConsolidation } from "./CapConsolidation.js"
import type { EpisodeIndex } from "./EpisodeIndex.js"
import type { Guard } from "../ports/Guard.js"
import { type Recalled, recallDetailed } from "./recall.js"
import { endSession, recordMessages } from "./sessions.js"
import type { Settings } from "./Settings.js"

/** What the session and recall functions need of a memory. */
export type MemoryServices =
  | Settings
  | Llm
  | EventStore
  | Embedder
  | Notifier
  | CapConsolidation
  | EpisodeIndex
  | EpisodeSearch
  | Background
  | Guard

/** A scratch memory could not be set up (no temporary directory, a store that will not open). */
export class ScratchUnavailable extends Schema.TaggedError<ScratchUnavailable>()("ScratchUnavailable", {
  text: Schema.String
}) {
  override get message() {
    return this.text
  }
}

/**
 * New, empty memories for measuring: each run of `use` gets one of its own (the user's configuration, its own
 * directory, trusted as the session's workspace), removed when `use` ends, fails or is interrupted.
 */
export class ScratchMemories extends Context.Tag("tmem/ScratchMemories")<
  ScratchMemories,
  {
    readonly fresh: <A, E>(
      use: (zone: TrustZone) => Effect.Effect<A, E, MemoryServices>
    ) => Effect.Effect<A, E | ScratchUnavailable>
  }
>() {}

export interface EvalOptions {
  /** Only the first N conversations. */
  readonly limitConversations?: number | undefined
  /** The recall measured; default: per-turn recall (`recallDetailed`). */
  readonly recall?: ((query: string) => Effect.Effect<Recalled, never, MemoryServices>) | undefined
}

/** Per-session ingest figures: how long recording and ending a session took, and whether it became an episode. */
interface Ingested {
  readonly ms: number
  /** Why no recallable episode came of it; undefined when one did. */
  readonly missing: string | undefined
}

/** What `evaluateRecall` measured: the report's figures, with the slowest ingest and the total ingest time. */
export interface RecallEvaluation extends EvaluationFigures {
  readonly ingest: EvaluationFigures["ingest"] & {
    readonly msPerSession: EvaluationFigures["ingest"]["msPerSession"] & { readonly max: number }
    readonly totalMs: number
  }
}

const elapsedMs = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const start = yield* Clock.currentTimeNanos
    const value = yield* effect
    // whole microseconds: finer digits are noise on any machine
    return { value, ms: Number(((yield* Clock.currentTimeNanos) - start) / 1000n) / 1000 }
  })

/** Records one dataset session as `tmem session ingest` would and ends it, so it becomes an episode. */
const ingestSession = (c: Conversation, s: Conversation["sessions"][number], zone: TrustZone) =>
  Effect.gen(function* () {
    const id = evalSessionId(s.n)
    yield* recordMessages(id, sessionMessages(c, s), zone)
    const outcome = yield* endSession(id, zone)
    return outcome.kind === "skipped"
      ? outcome.reason
      : outcome.kind === "declined"
        ? "summary declined"
        : outcome.droppedAsDuplicateOf !== undefined
          ? "dropped as a near-copy"
          : outcome.provenance.untrusted === true
            ? "pending review"
            : undefined
  })

/** One conversation in a memory of its own: every session ingested, then every question recalled and scored. */
const evalConversation = (
  c: Conversation,
  label: string,
  zone: TrustZone,
  recall: (query: string) => Effect.Effect<Recalled, never, MemoryServices>
) =>
  Effect.gen(function* () {
    const ingested: Array<Ingested> = []
    for (const [i, s] of c.sessions.entries()) {
      const r = yield* elapsedMs(ingestSession(c, s, zone)).pipe(
        during(`${label}: ingesting session ${i + 1}/${c.sessions.length}`)
      )
      ingested.push({ ms: r.ms, missing: r.value })
    }
    const results = yield* Effect.forEach(c.questions, (q) =>
      Effect.map(elapsedMs(recall(q.q)), ({ value, ms }) =>
        scoreQuestion(
          q,
          c,
          value.episodes.map((e) => sessionNumberOf(e.sessionId)),
          value.block,
          ms
        )
      )
    ).pipe(during(`${label}: recalling ${c.questions.length} questions`))
    return { ingested, results }
  })

/**
 * The recall protocol on a dataset (docs/CLI.md `eval recall`): per conversation a new memory, each session
 * recorded and ended as a trusted session (the model summarises when one is configured, else the extractive
 * summary), then per question the per-turn recall, scored against the question's evidence sessions and answer.
 */
export const evaluateRecall = Effect.fn("evaluateRecall")(function* (dataset: Dataset, options: EvalOptions = {}) {
  const scratch = yield* ScratchMemories
  const conversations =
    options.limitConversations === undefined
      ? dataset.conversations
      : dataset.conversations.slice(0, options.limitConversations)
  const recall = options.recall ?? ((query: string) => recallDetailed(query))
  const ingested: Array<Ingested> = []
  const results: Array<QuestionResult> = []
  for (const [i, c] of conversations.entries()) {
    const r = yield* scratch.fresh((zone) =>
      evalConversation(c, `conversation ${i + 1}/${conversations.length} (${c.id})`, zone, recall)
    )
    ingested.push(...r.ingested)
    results.push(...r.results)
  }
  const times = ingested.map((s) => s.ms)
  const withoutEpisode: Record<string, number> = {}
  for (const s of ingested)
    if (s.missing !== undefined) withoutEpisode[s.missing] = (withoutEpisode[s.missing] ?? 0) + 1
  return {
    conversations: conversations.length,
    sessions: ingested.length,
    questions: results.length,
    ingest: {
      episodes: ingested.filter((s) => s.missing === undefined).length,
      withoutEpisode,
      msPerSession: { p50: percentile(times, 50), p90: percentile(times, 90), max: Math.max(0, ...times) },
      totalMs: Math.round(times.reduce((a, b) => a + b, 0) * 1000) / 1000
    },
    recall: summariseRecall(results)
  } satisfies RecallEvaluation
})
