/**
 * How a dataset session becomes a recorded session (docs/CLI.md `eval recall`): speaker A speaks as the user,
 * speaker B as the assistant, every turn prefixed with its speaker's name, the session's date in a first message.
 */
import type { BufferRole } from "../sessions/buffer.js"
import type { ChatMessage } from "../sessions/message.js"
import type { Conversation, DatasetSession } from "./dataset.js"

/** The recorded session's id for session `n` (each conversation has a memory of its own). */
export const evalSessionId = (n: number): string => `session-${n}`

/** Session `n` back from a recorded session's id; undefined for an id the protocol did not make. */
export const sessionNumberOf = (sessionId: string): number | undefined => {
  const m = /^session-([1-9][0-9]*)$/.exec(sessionId)
  return m === null ? undefined : Number(m[1])
}

/** One message to record, with the Tier 2 role it gets, as `tmem session ingest` gives them. */
export interface EvalMessage {
  readonly message: ChatMessage
  readonly buffer: BufferRole | undefined
}

/** The session's messages in order: the date (as the user's first message), then every turn. */
export const sessionMessages = (c: Conversation, s: DatasetSession): ReadonlyArray<EvalMessage> => {
  const messages: ReadonlyArray<ChatMessage> = [
    { role: "user", content: `[Date] ${s.date}` },
    ...s.turns.map((t): ChatMessage => ({
      role: t.speaker === c.speakers[0] ? "user" : "assistant",
      content: `[${t.speaker}] ${t.text}`
    }))
  ]
  // the agent's reply is the last assistant message before the next user message
  return messages.map((message, i) => ({
    message,
    buffer: message.role === "user" ? "user" : messages[i + 1]?.role === "assistant" ? undefined : "agent"
  }))
}
