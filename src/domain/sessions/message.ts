import { Schema } from "effect"

/** One tool call an assistant message made: the tool's name and its arguments as the raw JSON string sent. */
export const ToolCall = Schema.Struct({
  name: Schema.String,
  arguments: Schema.String
})
export type ToolCall = typeof ToolCall.Type

/** Who wrote a message. `tool` messages carry a tool's output back to the model. */
export const Role = Schema.Literal("system", "user", "assistant", "tool")
export type Role = typeof Role.Type

/**
 * One message of a session's history, as the agent loop recorded it. `toolCalls` only on assistant messages;
 * `toolName` on tool messages (which call produced the output).
 */
export const ChatMessage = Schema.Struct({
  role: Role,
  content: Schema.String,
  toolCalls: Schema.optionalWith(Schema.Array(ToolCall), { exact: true }),
  toolName: Schema.optionalWith(Schema.String, { exact: true })
})
export type ChatMessage = typeof ChatMessage.Type

/** Where file paths count as the workspace (spec episodes §5.3.1), resolved by the caller. */
export interface TrustZone {
  /** The workspace (process working directory at judgement time), absolute. */
  readonly cwd: string
  /** Every trusted root (workspace, `/workspace`, `~/.odek` or the memory directory), absolute and cleaned. */
  readonly roots: ReadonlyArray<string>
  /**
   * Symlink resolution supplied by the app (the domain does no I/O): the real path of an absolute, cleaned path,
   * or undefined when it cannot be resolved (spec episodes §5.3.1 judges such a path outside the zone).
   */
  readonly realpath: (absolute: string) => string | undefined
}
