import { DateTime, Effect, Either, Option, Schema } from "effect"
import { during } from "../ports/Progress.js"
import { conflictRetry } from "./retry.js"
import { combinedRequest, episodeRequest, factCandidates, factsRequest, parseCombinedReply, parseFactsReply, type RawFact } from "../domain/episodes/prompts.js"
import { GUARD_SOURCE, type SummarySource } from "../domain/episodes/store.js"
import { extractiveSummary, isDecline, looksLikeEpisode } from "../domain/episodes/summary.js"
import { buildExtractionTranscript } from "../domain/episodes/transcript.js"
import type { LlmRequestText } from "../domain/llm/prompts.js"
import { scanForWrite } from "../domain/scan/index.js"
import { bufferLine, type BufferRole } from "../domain/sessions/buffer.js"
import type { ChatMessage, TrustZone } from "../domain/sessions/message.js"
import { deriveSessionProvenance, type EpisodeProvenance, episodeTaintSources, toolEffect, UNKNOWN_PROVENANCE } from "../domain/sessions/provenance.js"
import { episodeUntrusted, type SessionCommand, type SessionState, userTurns } from "../domain/sessions/session.js"
import { decideSession, sessionCodec, sessionStream } from "../domain/sessions/stream.js"
import { trimSpace } from "../domain/text/utf8.js"
import { Embedder } from "../ports/Embedder.js"
import { EventStore, VersionConflict } from "../ports/EventStore.js"
import { Notifier } from "../ports/Notifier.js"
import { CapConsolidation } from "./CapConsolidation.js"
import { Llm } from "../ports/Llm.js"
import { Background } from "./Background.js"
import { nowIso } from "./clock.js"
import { consolidateAtSessionEnd } from "./consolidation.js"
import { storeEpisode } from "./episodes.js"
import { addFact } from "./facts.js"
import { Settings } from "./Settings.js"

/** A session id that cannot name a stream (and so no journal file). */
export class InvalidSessionId extends Schema.TaggedError<InvalidSessionId>()("InvalidSessionId", { sessionId: Schema.String }) {
  override get message() {
    return `memory: invalid session id ${JSON.stringify(this.sessionId)}: use lowercase letters, digits, "-", "_" and "." (e.g. 20260722-0f3c9a1b)`
  }
}

const streamOf = (sessionId: string) =>
  Option.match(Option.fromNullable(sessionStream(sessionId)), {
    onNone: () => Effect.fail(new InvalidSessionId({ sessionId })),
    onSome: Effect.succeed
  })


/** The session's state as recorded so far. */
export const loadSession = Effect.fn("loadSession")(function* (sessionId: string) {
  const stream = yield* streamOf(sessionId)
  return yield* (yield* EventStore).load(stream, sessionCodec)
})

const executeSession = (sessionId: string, command: (at: string) => SessionCommand) =>
  Effect.gen(function* () {
    const stream = yield* streamOf(sessionId)
    const store = yield* EventStore
    const loaded = yield* store.load(stream, sessionCodec)
    const at = yield* nowIso
    const events = yield* decideSession(command(at), loaded.state)
    if (events.length === 0) return loaded.state
    return (yield* store.append(stream, sessionCodec, loaded.version, events, at)).state
  }).pipe(Effect.retry({ schedule: conflictRetry, while: (e): e is VersionConflict => e instanceof VersionConflict }))

/**
 * Records one message of a session. Its taint is judged now, against the trust zone, before any trimming can drop
 * it (spec episodes §5.6). `buffer` names the Tier 2 role when the message gets a buffer line: the user's input
 * (`user`) and the agent's final reply of a turn (`agent`).
 */
export const recordMessage = Effect.fn("recordMessage")(function* (sessionId: string, message: ChatMessage, zone: TrustZone, buffer?: BufferRole) {
  const config = yield* Settings
  return yield* executeSession(sessionId, (at) => {
    const time = DateTime.toParts(DateTime.unsafeMake(at))
    return {
      _tag: "RecordMessage",
      message,
      taintSources: episodeTaintSources([message], zone),
      effects: (message.toolCalls ?? []).map((c) => toolEffect(c, zone)),
      bufferLine: buffer !== undefined && config.bufferEnabled ? bufferLine({ hours: time.hours, minutes: time.minutes }, buffer, message.content) : undefined,
      bufferCapacity: config.bufferLines,
      at
    }
  })
})

/** The session's Tier 2 lines, oldest first, for the prompt block (`freezeMemoryBlock()(lines)`). */
export const sessionBuffer = Effect.fn("sessionBuffer")(function* (sessionId: string) {
  return (yield* loadSession(sessionId)).state.buffer
})

/** The oldest `count` messages leave the history (a context or size budget); their taint stays. */
export const trimHistory = Effect.fn("trimHistory")(function* (sessionId: string, count: number) {
  return yield* executeSession(sessionId, (at) => ({ _tag: "TrimHistory", dropOldest: count, at }))
})

export type ExtractionOutcome =
  | { readonly kind: "skipped"; readonly reason: string }
  | { readonly kind: "declined"; readonly reply: string }
  | {
      readonly kind: "episode"
      readonly source: SummarySource
      readonly stored: boolean
      readonly droppedAsDuplicateOf?: string | undefined
      readonly provenance: EpisodeProvenance
    }

const ask = (r: LlmRequestText, maxTokens: number) =>
  Effect.flatMap(Llm, (llm) =>
    llm.complete({ system: r.system, messages: [{ role: "user", content: r.user }], maxTokens, json: false }).pipe(during(`summarising the session: waiting for the model (${llm.info.model})`))
  )

/**
 * What the model makes of the session (spec §3.2.3): the episode text (or why there is none) and durable facts.
 * Facts are asked for only when the session is trusted. Without a model — or when its call fails — the episode
 * is the deterministic extractive summary, marked as such, so a session is never lost for want of a model.
 */
const summarise = (messages: ReadonlyArray<ChatMessage>, wantEpisode: boolean, wantFacts: boolean) =>
  Effect.gen(function* () {
    const llm = yield* Llm
    const transcript = buildExtractionTranscript(messages)
    let summary: string | undefined
    let source: SummarySource = "llm"
    let facts: ReadonlyArray<RawFact> = []
    if (!llm.info.available) {
      if (wantEpisode) [summary, source] = [extractiveSummary(messages), "extractive"]
      return { summary, source, facts }
    }
    if (wantEpisode && wantFacts) {
      const combined = yield* Effect.option(ask(combinedRequest(transcript), 1024))
      const parsed = Option.isSome(combined) ? parseCombinedReply(combined.value) : undefined
      if (parsed !== undefined) return { summary: parsed.summary, source, facts: parsed.facts }
    }
    if (wantEpisode) {
      const reply = yield* Effect.either(ask(episodeRequest(transcript), 512))
      if (Either.isRight(reply)) summary = reply.right
      else {
        yield* Effect.logWarning(`memory: episode extraction fell back to the extractive summary: ${reply.left.message}`)
        ;[summary, source] = [extractiveSummary(messages), "extractive"]
      }
    }
    if (wantFacts) facts = parseFactsReply(Option.getOrElse(yield* Effect.option(ask(factsRequest(transcript), 512)), () => ""))
    return { summary, source, facts }
  })

/**
 * Session-end extraction (spec episodes §3): gate on turns and settings, summarise, filter declines and replies
 * that read as a conversation turn, scan the summary (a refused one is stored untrusted for audit, never
 * auto-approved), store the episode, add at most five durable facts from a trusted session.
 */
export const extractSession = Effect.fn("extractSession")(function* (
  sessionId: string,
  session: SessionState,
  zone: TrustZone,
  known?: EpisodeProvenance
) {
  const config = yield* Settings
  const turns = userTurns(session)
  if (!config.enabled) return { kind: "skipped", reason: "memory disabled" } satisfies ExtractionOutcome
  if (!config.llmExtract) return { kind: "skipped", reason: "llm_extract is off" } satisfies ExtractionOutcome
  // the store refuses fewer than 3 turns whatever the setting (spec §3.2.2), so gate once on the larger
  const minTurns = Math.max(config.minTurnsForExtraction, 3)
  if (turns < minTurns || session.messages.length === 0)
    return { kind: "skipped", reason: `${turns} user turns, fewer than ${minTurns}` } satisfies ExtractionOutcome
  const provenance = known ?? deriveSessionProvenance({ messages: session.messages, episodeUntrusted: episodeUntrusted(session) }, zone)
  const wantFacts = config.extractFacts && provenance.untrusted !== true
  const { summary, source, facts } = yield* summarise(session.messages, config.extractOnEnd, wantFacts)
  for (const f of factCandidates(facts)) yield* Effect.ignore(addFact(f.target, f.content))
  if (summary === undefined) return { kind: "skipped", reason: "extract_on_end is off" } satisfies ExtractionOutcome
  const text = trimSpace(summary)
  if (text === "" || isDecline(text) || !looksLikeEpisode(text)) return { kind: "declined", reply: text } satisfies ExtractionOutcome
  const guarded: EpisodeProvenance =
    scanForWrite(text) === undefined ? provenance : { ...provenance, untrusted: true, sources: [...(provenance.sources ?? []), GUARD_SOURCE] }
  const r = yield* storeEpisode({ sessionId, summary: text, turns, provenance: guarded, source })
  return { kind: "episode", source, stored: r.stored, droppedAsDuplicateOf: r.dropped, provenance: guarded } satisfies ExtractionOutcome
})

/**
 * Session end for an agent that kept no structured session, only its transcript lines (`user: …`,
 * `assistant: …`): the episode is written like any other but untrusted, source `unknown_provenance` — with nothing
 * to judge the history by, it waits for a person (spec episodes §5.8).
 */
export const endUnrecordedSession = Effect.fn("endUnrecordedSession")(function* (sessionId: string, lines: ReadonlyArray<string>) {
  const messages: ReadonlyArray<ChatMessage> = lines.map((l) => {
    const m = /^(user|assistant):\s?([\s\S]*)$/.exec(l)
    return m === null ? { role: "assistant", content: l } : { role: m[1] as "user" | "assistant", content: m[2]! }
  })
  const session: SessionState = { messages, buffer: [], taintSources: [], ended: true }
  // no zone can vouch for an unrecorded history: every path is judged outside
  const nowhere: TrustZone = { cwd: "/", roots: [], realpath: () => undefined }
  return yield* extractSession(sessionId, session, nowhere, UNKNOWN_PROVENANCE)
})

/** Ends a session and does its session-end work now: extraction, then consolidation of both fact files. */
export const endSession = Effect.fn("endSession")(function* (sessionId: string, zone: TrustZone) {
  const session = yield* executeSession(sessionId, (at) => ({ _tag: "EndSession", at }))
  const outcome = yield* extractSession(sessionId, session, zone)
  yield* consolidateAtSessionEnd(userTurns(session))
  return outcome
})

/**
 * Ends a session and leaves its session-end work to the background (spec §3.1.4): the agent loop never waits for
 * the model; closing the memory waits for it, at most 15 s.
 */
export const onSessionEnd = Effect.fn("onSessionEnd")(function* (sessionId: string, zone: TrustZone) {
  const session = yield* executeSession(sessionId, (at) => ({ _tag: "EndSession", at }))
  const context = yield* Effect.context<Settings | Llm | EventStore | Embedder | Notifier | CapConsolidation>()
  const work = Effect.gen(function* () {
    yield* extractSession(sessionId, session, zone)
    yield* consolidateAtSessionEnd(userTurns(session))
  }).pipe(
    Effect.catchAll((e) => Effect.logWarning(`memory: session-end work for ${sessionId} failed: ${e.message}`)),
    Effect.provide(context)
  )
  yield* (yield* Background).run(work)
})
