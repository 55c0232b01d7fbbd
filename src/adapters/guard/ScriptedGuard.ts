import { Effect, Layer } from "effect"
import type { GuardSource, GuardVerdict } from "../../domain/scan/guardVerdict.js"
import { Guard, type GuardInfo, GuardUnavailable } from "../../ports/Guard.js"

/** One scripted answer: a verdict, or a failure with this reason. */
export type ScriptedAnswer = GuardVerdict | { readonly unavailable: string }

/** The script: a function of the text, what is written, and the 0-based call number; or answers in order. */
export type GuardScript =
  ((text: string, source: GuardSource, n: number) => ScriptedAnswer) | ReadonlyArray<ScriptedAnswer>

/** One question the guard was asked. */
export interface GuardCall {
  readonly text: string
  readonly source: GuardSource
}

/** A guard for tests and simulations: answers from a script and records every call. */
export interface ScriptedGuard {
  readonly layer: Layer.Layer<Guard>
  readonly service: Guard["Type"]
  /** Every call, in order. */
  readonly calls: ReadonlyArray<GuardCall>
}

const answerAt = (script: GuardScript, text: string, source: GuardSource, n: number): ScriptedAnswer => {
  if (typeof script === "function") return script(text, source, n)
  // a list runs out into its last answer, so a one-item list is "always this"; an empty one is always clean
  return script[Math.min(n, script.length - 1)] ?? { verdict: "clean" }
}

/**
 * A guard that answers from `script` and records the texts it is asked about. It reports itself as an active `http`
 * guard at `scripted:` unless `info` says otherwise.
 */
export const make = (script: GuardScript, info: Partial<GuardInfo> = {}): ScriptedGuard => {
  const calls: Array<GuardCall> = []
  const service = Guard.of({
    info: { provider: "http", endpoint: "scripted:", active: true, ...info },
    check: (text, source) =>
      Effect.suspend(() => {
        const n = calls.length
        calls.push({ text, source })
        const answer = answerAt(script, text, source, n)
        return "unavailable" in answer
          ? Effect.fail(new GuardUnavailable({ reason: answer.unavailable }))
          : Effect.succeed(answer)
      })
  })
  return { layer: Layer.succeed(Guard, service), service, calls }
}
