import { Instant } from "../kernel/Instant.js"
import { Either, Match, Schema } from "effect"
import { GuardRecord } from "../scan/guardVerdict.js"
import { ChatMessage } from "./message.js"

/**
 * One agent session as a stream (`session/<id>`): its messages, its Tier 2 buffer, and the sticky taint. Taint is
 * recorded when a message is recorded — before any trimming or compaction can drop it — and no event ever clears
 * it, so a tainting call that later leaves the history still makes the episode untrusted (spec episodes §5.6).
 */

export const MessageRecorded = Schema.TaggedStruct("MessageRecorded", {
  message: ChatMessage,
  /** One effect class per tool call of the message (spec episodes §5.3), in call order. */
  effects: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  at: Instant
})
/** Sources that make the session's episode untrusted (tool names, wrapper labels), first seen in this message. */
export const TaintObserved = Schema.TaggedStruct("TaintObserved", { sources: Schema.Array(Schema.String), at: Instant })
/** A Tier 2 line; `capacity` is the ring size in force, so replay needs no configuration. */
export const BufferLineAppended = Schema.TaggedStruct("BufferLineAppended", {
  line: Schema.String,
  capacity: Schema.Number,
  at: Instant,
  /** What the configured guard said about the line's text (absent: no guard was asked). */
  guard: Schema.optionalWith(GuardRecord, { exact: true })
})
/** The oldest `dropped` messages left the history (context or size budget). Taint stays. */
export const HistoryTrimmed = Schema.TaggedStruct("HistoryTrimmed", { dropped: Schema.Number, at: Instant })
export const SessionEnded = Schema.TaggedStruct("SessionEnded", { turns: Schema.Number, at: Instant })

export const SessionEvent = Schema.Union(
  MessageRecorded,
  TaintObserved,
  BufferLineAppended,
  HistoryTrimmed,
  SessionEnded
)
export type SessionEvent = typeof SessionEvent.Type

export const RecordMessage = Schema.TaggedStruct("RecordMessage", {
  message: ChatMessage,
  /** `episodeTaintSources([message], zone)`, computed by the app (it needs the file system for symlinks). */
  taintSources: Schema.Array(Schema.String),
  /** `toolEffect` of each tool call, computed by the app with the trust zone. */
  effects: Schema.optional(Schema.Array(Schema.String)),
  /** The Tier 2 line for this message, when it gets one (the user's input, the agent's final reply). */
  bufferLine: Schema.optional(Schema.String),
  bufferCapacity: Schema.Number,
  /** The guard's answer on the buffer line's text, asked by the app before the command. */
  bufferGuard: Schema.optional(GuardRecord),
  at: Instant
})
export const TrimHistory = Schema.TaggedStruct("TrimHistory", { dropOldest: Schema.Number, at: Instant })
export const EndSession = Schema.TaggedStruct("EndSession", { at: Instant })
export const SessionCommand = Schema.Union(RecordMessage, TrimHistory, EndSession)
export type SessionCommand = typeof SessionCommand.Type

export interface SessionState {
  readonly messages: ReadonlyArray<ChatMessage>
  readonly buffer: ReadonlyArray<string>
  /** Every taint source ever observed, first occurrence first; non-empty ⇔ the sticky `episode_untrusted`. */
  readonly taintSources: ReadonlyArray<string>
  readonly ended: boolean
}

export const initialSession: SessionState = { messages: [], buffer: [], taintSources: [], ended: false }

/** The sticky flag of spec §5.6: set once any recorded message tainted the session, never cleared. */
export const episodeUntrusted = (s: SessionState): boolean => s.taintSources.length > 0

/** User turns in the history as it stands (spec §3.1.6). */
export const userTurns = (s: SessionState): number => s.messages.filter((m) => m.role === "user").length

/** A message or a trim for a session that has ended: its history is final (its episode may already exist). */
export class SessionAlreadyEnded extends Schema.TaggedError<SessionAlreadyEnded>()("SessionAlreadyEnded", {}) {
  override get message() {
    return "memory: this session has ended; start a new one"
  }
}
export type SessionError = SessionAlreadyEnded

export const decideSession = (
  command: SessionCommand,
  state: SessionState
): Either.Either<ReadonlyArray<SessionEvent>, SessionError> => {
  if (state.ended) return Either.left(new SessionAlreadyEnded())
  switch (command._tag) {
    case "RecordMessage": {
      const effects = command.effects !== undefined && command.effects.length > 0 ? { effects: command.effects } : {}
      const events: Array<SessionEvent> = [
        MessageRecorded.make({ message: command.message, ...effects, at: command.at })
      ]
      const fresh = [...new Set(command.taintSources)].filter((s) => !state.taintSources.includes(s))
      if (fresh.length > 0) events.push(TaintObserved.make({ sources: fresh, at: command.at }))
      if (command.bufferLine !== undefined && command.bufferCapacity > 0)
        events.push(
          BufferLineAppended.make({
            line: command.bufferLine,
            capacity: command.bufferCapacity,
            at: command.at,
            ...(command.bufferGuard === undefined ? {} : { guard: command.bufferGuard })
          })
        )
      return Either.right(events)
    }
    case "TrimHistory": {
      const dropped = Math.min(Math.max(0, Math.floor(command.dropOldest)), state.messages.length)
      return Either.right(dropped === 0 ? [] : [HistoryTrimmed.make({ dropped, at: command.at })])
    }
    case "EndSession":
      return Either.right([SessionEnded.make({ turns: userTurns(state), at: command.at })])
  }
}

export const evolveSession = (state: SessionState, event: SessionEvent): SessionState =>
  Match.valueTags(event, {
    MessageRecorded: (e) => ({ ...state, messages: [...state.messages, e.message] }),
    TaintObserved: (e) => ({
      ...state,
      taintSources: [...state.taintSources, ...e.sources.filter((s) => !state.taintSources.includes(s))]
    }),
    BufferLineAppended: (e) => ({ ...state, buffer: [...state.buffer, e.line].slice(-e.capacity) }),
    HistoryTrimmed: (e) => ({ ...state, messages: state.messages.slice(e.dropped) }),
    SessionEnded: () => ({ ...state, ended: true })
  })
