import { Context, type Effect, Schema } from "effect"

/** One chat message after the system prompt. */
export interface LlmMessage {
  readonly role: "user" | "assistant"
  readonly content: string
}

/** One completion: a system prompt, the conversation, a token bound and optionally JSON mode. */
export interface LlmRequest {
  readonly system: string
  readonly messages: ReadonlyArray<LlmMessage>
  readonly maxTokens: number
  /** Ask for a JSON answer (`response_format: json_object`) when the adapter is configured to use JSON mode. */
  readonly json?: boolean
}

/** No model can be reached: none configured, connection refused, or retries exhausted on 429/5xx. */
export class LlmUnavailable extends Schema.TaggedError<LlmUnavailable>()("LlmUnavailable", { reason: Schema.String }) {
  override get message() {
    return this.reason
  }
}

/** The model did not answer within the configured time. */
export class LlmTimeout extends Schema.TaggedError<LlmTimeout>()("LlmTimeout", { reason: Schema.String }) {
  override get message() {
    return this.reason
  }
}

/** The server answered, but not with a usable completion (malformed, truncated, too large, an API error). */
export class LlmBadResponse extends Schema.TaggedError<LlmBadResponse>()("LlmBadResponse", { reason: Schema.String }) {
  override get message() {
    return this.reason
  }
}

export type LlmError = LlmUnavailable | LlmTimeout | LlmBadResponse

/** Which model answers, for messages and `tmem` output. `available` is false for the `none` adapter. */
export interface LlmInfo {
  readonly provider: "openai" | "none"
  readonly model: string
  readonly endpoint: string
  readonly available: boolean
}

/** A chat model. Callers never hold a lock while a completion runs. */
export class Llm extends Context.Tag("tmem/Llm")<
  Llm,
  {
    readonly info: LlmInfo
    /** The assistant's text, trimmed of nothing: callers parse it. */
    readonly complete: (request: LlmRequest) => Effect.Effect<string, LlmError>
  }
>() {}
