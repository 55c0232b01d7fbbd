import { isValidStreamName, type StreamCodec } from "../kernel/Stream.js"
import {
  decideSession,
  evolveSession,
  initialSession,
  type SessionCommand,
  SessionEvent,
  type SessionState
} from "./session.js"

/** Stream of one session, or undefined when the id cannot name one (it must be a lowercase path word). */
export const sessionStream = (sessionId: string): string | undefined => {
  const stream = `session/${sessionId}`
  return isValidStreamName(stream) && !sessionId.includes("/") ? stream : undefined
}

/** Sessions are kept in the journal only: no projection (odek keeps its session files elsewhere). */
export const sessionCodec: StreamCodec<SessionState, SessionEvent> = {
  initialState: initialSession,
  evolve: evolveSession,
  events: SessionEvent
}

export { decideSession, type SessionCommand }
