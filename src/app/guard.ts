import { Effect, Either } from "effect"
import { ContentRejected } from "../domain/facts/errors.js"
import { type GuardRecord, type GuardSource, guardOutcome } from "../domain/scan/guardVerdict.js"
import { Guard } from "../ports/Guard.js"
import { during } from "../ports/Progress.js"
import { Settings } from "./Settings.js"

/** What the guard said about one text: the record to keep with the write, and the refusal when it refused. */
export interface Opinion {
  /** Absent when no guard is configured (nothing is recorded then). */
  readonly record?: GuardRecord
  readonly refused?: ContentRejected
}

/**
 * The configured guard's second opinion on a text the local scanner passed (spec facts §7.1 step 5, docs/GUARD.md).
 * Never under a lock: callers ask before they append. An injected verdict refuses; a failed guard refuses only
 * without `fallback_to_local`.
 */
export const secondOpinion = (text: string, source: GuardSource): Effect.Effect<Opinion, never, Guard | Settings> =>
  Effect.flatMap(Guard, (guard) => {
    if (!guard.info.active) return Effect.succeed({})
    return Effect.gen(function* () {
      const config = yield* Settings
      const answer = yield* Effect.either(
        guard.check(text, source).pipe(during(`asking the guard (${guard.info.provider}) for a second opinion`))
      )
      const outcome = guardOutcome(
        Either.mapLeft(answer, (e) => ({ reason: e.reason })),
        { provider: guard.info.provider, fallbackToLocal: config.guard.fallbackToLocal }
      )
      return outcome._tag === "GuardAccepted"
        ? { record: outcome.record }
        : {
            record: outcome.record,
            refused: new ContentRejected({ code: outcome.code, label: outcome.label, text: outcome.message })
          }
    })
  })

/**
 * One opinion per text for the life of a command: a conflict re-runs the decision on the new state, and the guard
 * (a network call) is not asked again about the same text.
 */
export const opinionsOnce = () => {
  const asked = new Map<string, Opinion>()
  return (text: string, source: GuardSource) =>
    Effect.suspend(() => {
      const known = asked.get(text)
      return known !== undefined
        ? Effect.succeed(known)
        : Effect.tap(secondOpinion(text, source), (o) => Effect.sync(() => void asked.set(text, o)))
    })
}

const RANK: Readonly<Record<GuardRecord["verdict"], number>> = { clean: 0, unavailable: 1, injected: 2 }

/** The least clean of several records (a consolidation's entries), or undefined when there are none. */
export const leastClean = (records: ReadonlyArray<GuardRecord | undefined>): GuardRecord | undefined =>
  records.reduce<GuardRecord | undefined>(
    (worst, r) =>
      r === undefined
        ? worst
        : worst === undefined ||
            RANK[r.verdict] > RANK[worst.verdict] ||
            (r.verdict === worst.verdict && (r.score ?? 0) > (worst.score ?? 0))
          ? r
          : worst,
    undefined
  )
