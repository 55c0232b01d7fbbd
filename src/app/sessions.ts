import { DateTime, Effect, Either, Option, Schema } from "effect"
import { during } from "../ports/Progress.js"
import { handleCommand } from "./commandHandler.js"
import {
  combinedRequest,
  episodeRequest,
  factCandidates,
  factsRequest,
  parseCombinedReply,
  parseFactsReply,
  type RawFact
} from "../domain/episodes/prompts.js"
import { validSessionId } from "../domain/episodes/sessionId.js"
import { GUARD_SOURCE, type SummarySource } from "../domain/episodes/store.js"
import type { MemoryConfig } from "../domain/config/MemoryConfig.js"
import { extractiveSummary } from "../domain/episodes/extractive.js"
import { isDecline, looksLikeEpisode } from "../domain/episodes/summary.js"
import { buildExtractionTranscript } from "../domain/episodes/transcript.js"
import type { LlmRequestText } from "../domain/llm/prompts.js"
import { scanForWrite } from "../domain/scan/index.js"
import { bufferLine, type BufferRole } from "../domain/sessions/buffer.js"
import type { ChatMessage, TrustZone } from "../domain/sessions/message.js"
import {
  deriveSessionProvenance,
  type EpisodeProvenance,
  episodeTaintSources,
  toolEffect,
  UNKNOWN_PROVENANCE
} from "../domain/sessions/provenance.js"
import {
  episodeUntrusted,
  type SessionCommand,
  SessionAlreadyEnded,
  type SessionEvent,
  type SessionState,
  userTurns
} from "../domain/sessions/session.js"
import { decideSession, sessionCodec, sessionStream } from "../domain/sessions/stream.js"
import { trimSpace } from "../domain/text/utf8.js"
import { EventStore } from "../ports/EventStore.js"
import { Llm } from "../ports/Llm.js"
import { Background } from "./Background.js"
import { consolidateAtSessionEnd } from "./consolidation.js"
import { markExtractionPending, pendingExtractions, settleExtraction, storeEpisode } from "./episodes.js"
import { addFact } from "./facts.js"
import { extractAtoms } from "./atoms.js"
import { countUserTurn } from "./AtomActivity.js"
import { inferIfDue } from "./userModel.js"
import { takeNudges } from "./nudges.js"
import { type Opinion, secondOpinion } from "./guard.js"
import { blockedLine } from "../domain/facts/blocked.js"
import { Guard } from "../ports/Guard.js"
import { Settings } from "./Settings.js"

/** A session id that cannot name a stream (and so no journal file). */
export class InvalidSessionId extends Schema.TaggedError<InvalidSessionId>()("InvalidSessionId", {
  sessionId: Schema.String
}) {
  override get message() {
    return (
      `memory: invalid session id ${JSON.stringify(this.sessionId)}: use lowercase letters, digits, "-", "_" and "." ` +
      `(e.g. 20260722-0f3c9a1b)`
    )
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
  Effect.flatMap(streamOf(sessionId), (stream) =>
    Effect.map(
      handleCommand({
        stream,
        codec: sessionCodec,
        decide: (state: SessionState, at: string) => decideSession(command(at), state)
      }),
      (r) => r.state
    )
  )

/**
 * Records one message of a session. Its taint is judged now, against the trust zone, before any trimming can drop
 * it (spec episodes §5.6). `buffer` names the Tier 2 role when the message gets a buffer line: the user's input
 * (`user`) and the agent's final reply of a turn (`agent`).
 */
export const recordMessage = Effect.fn("recordMessage")(function* (
  sessionId: string,
  message: ChatMessage,
  zone: TrustZone,
  buffer?: BufferRole,
  options: { readonly subagent?: boolean } = {}
) {
  const config = yield* Settings
  const opinion = yield* bufferOpinion(config, message, buffer)
  const recorded = yield* executeSession(sessionId, (at) => recordCommand(config, zone, message, buffer, at, opinion))
  // the user's own input feeds Extended Memory's per-turn extraction, in the background (spec extended §10.1)
  if (buffer === "user" && message.role === "user" && config.extended.enabled && options.subagent !== true)
    yield* inBackground(
      `extracting atoms from ${sessionId}`,
      // the user model is inferred after the turn's extraction, from what it stored (spec extended §14.3)
      Effect.flatMap(countUserTurn(message.content), (turn) =>
        Effect.zipRight(extractAtoms(message.content, { sessionId }), inferIfDue(turn))
      )
    )
  // a completed turn (the agent's final reply) may bring one nudge, when the person opted in (spec extended §15.7)
  if (buffer === "agent" && config.extended.enabled && config.extended.proactiveNudgesEnabled && !options.subagent)
    yield* inBackground(`taking a nudge after a turn of ${sessionId}`, takeNudges(1))
  return recorded
})

/**
 * The guard's second opinion on a message that gets a Tier 2 line (the buffer is in the next prompt), asked before
 * the write and only about text the local scan passed; none when there is no line or no guard.
 */
const bufferOpinion = (config: MemoryConfig, message: ChatMessage, buffer: BufferRole | undefined) =>
  Effect.flatMap(Guard, (guard) =>
    // every recorded message passes here: with no guard to ask, the local scan is not run for nothing
    buffer === undefined || !config.bufferEnabled || !guard.info.active || scanForWrite(message.content) !== undefined
      ? Effect.succeed<Opinion>({})
      : secondOpinion(message.content, "buffer")
  )

/** The command recording one message: its taint judged now, against the zone, with its Tier 2 line if it gets one. */
const recordCommand = (
  config: MemoryConfig,
  zone: TrustZone,
  message: ChatMessage,
  buffer: BufferRole | undefined,
  at: string,
  opinion: Opinion = {}
): SessionCommand => {
  const time = DateTime.toParts(DateTime.unsafeMake(at))
  // a line the guard refused is kept as its BLOCKED line: the message is recorded, its text never reaches a prompt
  const shown = opinion.refused !== undefined ? blockedLine(opinion.refused.label) : message.content
  return {
    _tag: "RecordMessage",
    message,
    taintSources: episodeTaintSources([message], zone),
    effects: (message.toolCalls ?? []).map((c) => toolEffect(c, zone)),
    bufferLine:
      buffer !== undefined && config.bufferEnabled
        ? bufferLine({ hours: time.hours, minutes: time.minutes }, buffer, shown)
        : undefined,
    bufferCapacity: config.bufferLines,
    ...(opinion.record === undefined ? {} : { bufferGuard: opinion.record }),
    at
  }
}

/**
 * Records several messages of a session as one durable batch (an ingest of a recorded transcript): each is judged
 * exactly as `recordMessage` judges it, in order, against the session as the earlier ones left it; one write instead
 * of one per message. All or none are recorded.
 */
export const recordMessages = Effect.fn("recordMessages")(function* (
  sessionId: string,
  items: ReadonlyArray<{ readonly message: ChatMessage; readonly buffer?: BufferRole | undefined }>,
  zone: TrustZone
) {
  const config = yield* Settings
  const stream = yield* streamOf(sessionId)
  if (items.length === 0) return (yield* loadSession(sessionId)).state
  // asked once, before the write: a conflict re-decides without asking again
  const opinions = yield* Effect.forEach(items, ({ message, buffer }) => bufferOpinion(config, message, buffer))
  const decideAll = (loaded: SessionState, at: string) =>
    Effect.gen(function* () {
      let state = loaded
      const events: Array<SessionEvent> = []
      for (const [i, { message, buffer }] of items.entries()) {
        const decided = yield* decideSession(recordCommand(config, zone, message, buffer, at, opinions[i]), state)
        state = decided.reduce(sessionCodec.evolve, state)
        events.push(...decided)
      }
      return events
    })
  return (yield* handleCommand({ stream, codec: sessionCodec, decide: decideAll })).state
})

/**
 * How far a recorded session got: the messages recorded so far (in order, trimming aside), whether its history
 * was trimmed, whether it ended, and whether its session-end work is still owed. An ingest cut short resumes here.
 */
export const sessionProgress = Effect.fn("sessionProgress")(function* (sessionId: string) {
  const stream = yield* streamOf(sessionId)
  const batches = yield* (yield* EventStore).read(stream, sessionCodec)
  const events = batches.flatMap((b) => b.events)
  return {
    recorded: events.flatMap((e) => (e._tag === "MessageRecorded" ? [e.message] : [])),
    trimmed: events.some((e) => e._tag === "HistoryTrimmed"),
    ended: events.some((e) => e._tag === "SessionEnded"),
    owed: (yield* pendingExtractions()).includes(sessionId)
  }
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
    llm
      .complete({ system: r.system, messages: [{ role: "user", content: r.user }], maxTokens, json: false })
      .pipe(during(`summarising the session: waiting for the model (${llm.info.model})`))
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
        yield* Effect.logWarning(
          `memory: episode extraction fell back to the extractive summary: ${reply.left.message}`
        )
        ;[summary, source] = [extractiveSummary(messages), "extractive"]
      }
    }
    if (wantFacts)
      facts = parseFactsReply(Option.getOrElse(yield* Effect.option(ask(factsRequest(transcript), 512)), () => ""))
    return { summary, source, facts }
  })

/** Why session-end extraction does not run for this session (spec §3.2.1), or undefined when it runs. */
const skipReason = (config: MemoryConfig, session: SessionState): string | undefined => {
  if (!config.enabled) return "memory disabled"
  if (!config.llmExtract) return "llm_extract is off"
  // the store refuses fewer than 3 turns whatever the setting (spec §3.2.2), so gate once on the larger
  const minTurns = Math.max(config.minTurnsForExtraction, 3)
  const turns = userTurns(session)
  if (turns < minTurns || session.messages.length === 0) return `${turns} user turns, fewer than ${minTurns}`
  return undefined
}

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
  // refused before anything else, the model above all: the transcript must not leave for a session that cannot be
  // stored
  if (!validSessionId(sessionId)) return yield* Effect.fail(new InvalidSessionId({ sessionId }))
  const config = yield* Settings
  const turns = userTurns(session)
  const skip = skipReason(config, session)
  if (skip !== undefined) return { kind: "skipped", reason: skip } satisfies ExtractionOutcome
  const provenance =
    known ?? deriveSessionProvenance({ messages: session.messages, episodeUntrusted: episodeUntrusted(session) }, zone)
  const wantFacts = config.extractFacts && provenance.untrusted !== true
  const { summary, source, facts } = yield* summarise(session.messages, config.extractOnEnd, wantFacts)
  for (const f of factCandidates(facts)) yield* Effect.ignore(addFact(f.target, f.content, "session_fact"))
  if (summary === undefined) return { kind: "skipped", reason: "extract_on_end is off" } satisfies ExtractionOutcome
  const text = trimSpace(summary)
  if (text === "" || isDecline(text) || !looksLikeEpisode(text))
    return { kind: "declined", reply: text } satisfies ExtractionOutcome
  // the local scan, then the guard's second opinion on what it passed: a refused summary is still stored for audit,
  // but untrusted and never auto-approved (spec episodes §3.5.4)
  const opinion = scanForWrite(text) === undefined ? yield* secondOpinion(text, "episode_summary") : undefined
  const guarded: EpisodeProvenance =
    opinion !== undefined && opinion.refused === undefined
      ? provenance
      : { ...provenance, untrusted: true, sources: [...(provenance.sources ?? []), GUARD_SOURCE] }
  const r = yield* storeEpisode({ sessionId, summary: text, turns, provenance: guarded, source })
  return {
    kind: "episode",
    source,
    stored: r.stored,
    droppedAsDuplicateOf: r.dropped,
    provenance: guarded
  } satisfies ExtractionOutcome
})

/**
 * Session end for an agent that kept no structured session, only its transcript lines (`user: …`,
 * `assistant: …`): the episode is written like any other but untrusted, source `unknown_provenance` — with nothing
 * to judge the history by, it waits for a person (spec episodes §5.8).
 */
export const endUnrecordedSession = Effect.fn("endUnrecordedSession")(function* (
  sessionId: string,
  lines: ReadonlyArray<string>
) {
  const messages: ReadonlyArray<ChatMessage> = lines.map((l) => {
    const m = /^(user|assistant):\s?([\s\S]*)$/.exec(l)
    return m === null ? { role: "assistant", content: l } : { role: m[1] as "user" | "assistant", content: m[2]! }
  })
  const session: SessionState = { messages, buffer: [], taintSources: [], ended: true }
  // no zone can vouch for an unrecorded history: every path is judged outside
  const nowhere: TrustZone = { cwd: "/", roots: [], realpath: () => undefined }
  return yield* extractSession(sessionId, session, nowhere, UNKNOWN_PROVENANCE)
})

/**
 * Ends a session. Its session-end work is first recorded as owed (unless the session is skipped), so an interruption
 * while the model answers (Ctrl-C, a closing memory, a crash) or a crash between the session's end and its episode
 * leaves it pending instead of lost.
 */
const beginSessionEnd = (sessionId: string) =>
  Effect.gen(function* () {
    const current = yield* loadSession(sessionId)
    if (current.state.ended) return yield* Effect.fail(new SessionAlreadyEnded())
    // even the local (extractive) end is two writes, the session's end and then its episode: a crash between them
    // must leave the episode owed, not lost
    if (skipReason(yield* Settings, current.state) === undefined) yield* markExtractionPending(sessionId)
    return yield* closeSession(sessionId)
  })

/** Records the end of the session (no more messages); returns its final state. */
const closeSession = (sessionId: string) => executeSession(sessionId, (at) => ({ _tag: "EndSession", at }))

/**
 * The session-end work of an ended session: extraction (settling what it owed), then consolidation of both fact files.
 */
const finishSessionEnd = (sessionId: string, session: SessionState, zone: TrustZone) =>
  Effect.gen(function* () {
    const outcome = yield* extractSession(sessionId, session, zone)
    // an episode (stored or dropped) settles the owed work in the same batch; anything else settles it here
    if (outcome.kind !== "episode")
      yield* settleExtraction(sessionId, outcome.kind === "skipped" ? `skipped: ${outcome.reason}` : "declined")
    yield* consolidateAtSessionEnd(userTurns(session))
    return outcome
  })

/** Ends a session and does its session-end work now: extraction, then consolidation of both fact files. */
export const endSession = Effect.fn("endSession")(function* (sessionId: string, zone: TrustZone) {
  return yield* finishSessionEnd(sessionId, yield* beginSessionEnd(sessionId), zone)
})

/**
 * Ends a session and leaves its session-end work to the background (spec §3.1.4): the agent loop never waits for
 * the model; closing the memory waits for it, at most 15 s, then interrupts it — it stays pending and the next
 * open finishes it.
 */
export const onSessionEnd = Effect.fn("onSessionEnd")(function* (sessionId: string, zone: TrustZone) {
  const session = yield* beginSessionEnd(sessionId)
  yield* inBackground(`session-end work for ${sessionId}`, finishSessionEnd(sessionId, session, zone))
})

/**
 * Finishes session-end work that was cut short (Ctrl-C, a closing memory, a crash) on the same path as an
 * uninterrupted end: the model's summary, not the extractive fallback. A session whose end was owed but not yet
 * recorded is ended first.
 */
export const resumeSessionEnd = Effect.fn("resumeSessionEnd")(function* (sessionId: string, zone: TrustZone) {
  const loaded = yield* loadSession(sessionId)
  const session = loaded.state.ended ? loaded.state : yield* closeSession(sessionId)
  return yield* finishSessionEnd(sessionId, session, zone)
})

/** Starts finishing every session whose session-end work is owed, in the background; returns how many. */
export const resumePendingSessions = Effect.fn("resumePendingSessions")(function* (zone: TrustZone) {
  const pending = yield* pendingExtractions()
  for (const id of pending) yield* inBackground(`resuming the session-end work of ${id}`, resumeSessionEnd(id, zone))
  return pending.length
})

/** Runs session-end work on the Background service; a failure is a warning (the work stays owed), never a crash. */
const inBackground = <A, E extends { readonly message: string }, R>(what: string, work: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const context = yield* Effect.context<R>()
    yield* (yield* Background).run(
      work.pipe(
        Effect.asVoid,
        Effect.catchAll((e) => Effect.logWarning(`memory: ${what} failed: ${e.message}`)),
        Effect.provide(context)
      )
    )
  })
