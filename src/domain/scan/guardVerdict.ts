/**
 * The guard's second opinion (spec facts §7.1 step 5): what a guard may answer, and what a write does with the
 * answer. Pure: the Guard port asks, the caller decides here. The local scan always runs first and is never
 * replaced by the guard.
 */
import { Either, Schema } from "effect"

/** What is being written: the guard may weigh a session's buffer line differently from a curated fact. */
export const GuardSource = Schema.Literal("fact", "consolidation", "session_fact", "buffer", "episode_summary", "atom")
export type GuardSource = typeof GuardSource.Type

/** `none`: no second opinion; `http`: a sidecar speaking docs/GUARD.md; `llm`: the configured chat model. */
export const GuardProvider = Schema.Literal("none", "http", "llm")
export type GuardProvider = typeof GuardProvider.Type

/** How likely the text is an injection, 0 (surely not) to 1 (surely). NaN and infinities are refused. */
export const GuardScore = Schema.Number.pipe(Schema.between(0, 1))

/** At most this many characters of a guard's label reach a message or an event. */
export const GUARD_LABEL_MAX = 80

/** Said when a guard flags text without naming what it found. */
export const DEFAULT_GUARD_LABEL = "prompt injection"

// control, format, line and paragraph separators, lone surrogates: what would break or hide part of a line
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u
const UNPRINTABLE_RUNS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]+/gu

/** A label as it may appear in one line of text: printable, not blank, at most GUARD_LABEL_MAX code points. */
export const GuardLabel = Schema.String.pipe(
  Schema.filter((s) => s.trim() !== "" && [...s].length <= GUARD_LABEL_MAX && !UNPRINTABLE.test(s), {
    message: () => `a label must be one printable line of at most ${GUARD_LABEL_MAX} characters`
  })
)

export const CleanVerdict = Schema.Struct({
  verdict: Schema.Literal("clean"),
  score: Schema.optionalWith(GuardScore, { exact: true })
})

export const InjectedVerdict = Schema.Struct({
  verdict: Schema.Literal("injected"),
  label: GuardLabel,
  score: GuardScore
})

/** A guard's answer about one text. */
export const GuardVerdict = Schema.Union(CleanVerdict, InjectedVerdict)
export type GuardVerdict = typeof GuardVerdict.Type

/**
 * A guard's label made fit for a one-line message. The label comes from another process, so it is cleaned rather
 * than refused: an injected verdict with an odd label must still refuse the write, not turn into a failure that
 * `fallback_to_local` would wave through.
 */
export const guardLabel = (raw: string): string => {
  const flat = raw.replace(UNPRINTABLE_RUNS, " ").replace(/\s+/g, " ").trim()
  const cut = [...flat].slice(0, GUARD_LABEL_MAX).join("").trim()
  return cut === "" ? DEFAULT_GUARD_LABEL : cut
}

/** What a write keeps of the guard's opinion, e.g. in its event: small, and without the text or the endpoint. */
export const GuardRecord = Schema.Struct({
  provider: GuardProvider,
  verdict: Schema.Literal("clean", "injected", "unavailable"),
  label: Schema.optionalWith(Schema.String, { exact: true }),
  score: Schema.optionalWith(GuardScore, { exact: true }),
  /** The guard failed and the text was accepted on the local scan alone (`fallback_to_local`). */
  fallback: Schema.optionalWith(Schema.Literal(true), { exact: true })
})
export type GuardRecord = typeof GuardRecord.Type

/** The write goes ahead; `record` says what the guard thought. */
export interface GuardAccepted {
  readonly _tag: "GuardAccepted"
  readonly record: GuardRecord
}

/** The write is refused with `message` (one line, the spec's wording). */
export interface GuardRefused {
  readonly _tag: "GuardRefused"
  /** Stable reason code, as the local scanner's codes. */
  readonly code: "guard-injection" | "guard-unavailable"
  readonly label: string
  readonly message: string
  readonly record: GuardRecord
}

export type GuardOutcome = GuardAccepted | GuardRefused

/** Go's `%.3f`: three decimals, rounded. */
const threeDecimals = (score: number) => score.toFixed(3)

/** `memory: injection detected (<label>, score <0.000>)`. */
export const injectionDetectedMessage = (label: string, score: number): string =>
  `memory: injection detected (${label}, score ${threeDecimals(score)})`

/** `memory: sidecar unavailable: <err>`. */
export const sidecarUnavailableMessage = (reason: string): string => `memory: sidecar unavailable: ${reason}`

/** What a guard failure carries: a one-line reason (the port's GuardUnavailable has this shape). */
export interface GuardFailure {
  readonly reason: string
}

/**
 * Spec facts §7.1 step 5, after the local scan passed: an injected verdict refuses; a failed guard refuses only when
 * `fallbackToLocal` is false, else the text is accepted and the record says so.
 */
export const guardOutcome = (
  result: Either.Either<GuardVerdict, GuardFailure>,
  policy: { readonly provider: GuardProvider; readonly fallbackToLocal: boolean }
): GuardOutcome => {
  const { provider } = policy
  if (Either.isLeft(result)) {
    if (policy.fallbackToLocal)
      return { _tag: "GuardAccepted", record: { provider, verdict: "unavailable", fallback: true } }
    return {
      _tag: "GuardRefused",
      code: "guard-unavailable",
      label: "sidecar unavailable",
      message: sidecarUnavailableMessage(result.left.reason),
      record: { provider, verdict: "unavailable" }
    }
  }
  const verdict = result.right
  if (verdict.verdict === "clean")
    return {
      _tag: "GuardAccepted",
      record: { provider, verdict: "clean", ...(verdict.score !== undefined ? { score: verdict.score } : {}) }
    }
  const label = guardLabel(verdict.label)
  return {
    _tag: "GuardRefused",
    code: "guard-injection",
    label,
    message: injectionDetectedMessage(label, verdict.score),
    record: { provider, verdict: "injected", label, score: verdict.score }
  }
}
