import { Context, type Duration, Effect, Layer } from "effect"
import type { Target } from "../domain/facts/schema.js"

/** The cap-triggered background consolidation (spec facts §6.3), as writes see it. */
export class CapConsolidation extends Context.Tag("tmem/CapConsolidation")<
  CapConsolidation,
  {
    /** A write grew `target` to `entries`: start or queue a pass if the file is over the threshold. */
    readonly crossed: (target: Target, entries: ReadonlyArray<string>) => Effect.Effect<void>
    /** Waits for the running and queued passes, at most `timeout`. */
    readonly drain: (timeout: Duration.DurationInput) => Effect.Effect<void>
  }
>() {
  /** No background passes: for embedders that consolidate on their own schedule, and tests of other features. */
  static readonly disabled = Layer.succeed(
    CapConsolidation,
    CapConsolidation.of({ crossed: () => Effect.void, drain: () => Effect.void })
  )
}
