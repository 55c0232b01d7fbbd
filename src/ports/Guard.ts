import { Context, type Effect, Schema } from "effect"
import type { GuardProvider, GuardSource, GuardVerdict } from "../domain/scan/guardVerdict.js"

export { CleanVerdict, GuardProvider, GuardSource, GuardVerdict, InjectedVerdict } from "../domain/scan/guardVerdict.js"

/**
 * The guard gave no usable answer: unreachable, too slow, an error status, or an answer outside the protocol.
 * `reason` is one line naming the endpoint; it follows `memory: sidecar unavailable: ` when the write is refused.
 */
export class GuardUnavailable extends Schema.TaggedError<GuardUnavailable>()("GuardUnavailable", {
  reason: Schema.String
}) {
  override get message() {
    return `guard: ${this.reason}`
  }
}

/** Which guard answers, for messages and `tmem` output. */
export interface GuardInfo {
  readonly provider: GuardProvider
  /** Where the text goes ("" for none). */
  readonly endpoint: string
  /** The model asked, for the `llm` guard. */
  readonly model?: string
  /** False when there is no second opinion to ask: callers skip the guard and record nothing. */
  readonly active: boolean
}

/**
 * A second opinion on text the local scanner passed (spec facts §7.1 step 5). It only classifies: callers run it
 * after the local scan, outside any lock, and turn the answer into accept or refuse with `guardOutcome`.
 */
export class Guard extends Context.Tag("tmem/Guard")<
  Guard,
  {
    readonly info: GuardInfo
    readonly check: (text: string, source: GuardSource) => Effect.Effect<GuardVerdict, GuardUnavailable>
  }
>() {}
