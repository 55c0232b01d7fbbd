import { Context, Duration, Effect, FiberSet, Layer, Option } from "effect"

/** How long closing the memory waits for background work (session-end extraction) before abandoning it. */
export const BACKGROUND_DRAIN = Duration.seconds(15)

/**
 * Work that outlives the call that started it (spec episodes §3.1): session-end extraction runs without the agent
 * loop waiting for the model; closing the memory waits for it, at most 15 s, then interrupts what is left (which
 * has written nothing half-way: each write is one atomic append; session-end work was recorded as owed and is
 * finished on the next open).
 */
export class Background extends Context.Tag("tmem/Background")<
  Background,
  {
    readonly run: (work: Effect.Effect<void>) => Effect.Effect<void>
    /** Waits for all tracked work; true when it finished within `timeout`. */
    readonly drain: (timeout: Duration.DurationInput) => Effect.Effect<boolean>
  }
>() {
  /**
   * Closing waits `drain` for the work, then interrupts what is left (work that records itself as owed resumes later).
   */
  static readonly layerWith = (drain: Duration.DurationInput) =>
    Layer.scoped(
      Background,
      Effect.gen(function* () {
        const fibers = yield* FiberSet.make<void, never>()
        // interruptible even inside a finalizer (which runs uninterruptibly): otherwise the timeout cannot cut the
        // wait short and closing waits as long as the slowest work, a hung model's whole request timeout
        const wait = (timeout: Duration.DurationInput) =>
          FiberSet.awaitEmpty(fibers).pipe(
            Effect.interruptible,
            Effect.timeoutOption(timeout),
            Effect.map(Option.isSome)
          )
        // added after the set, so it runs first on close: wait, then the set interrupts whatever is left
        yield* Effect.addFinalizer(() => wait(drain))
        return Background.of({ run: (work) => Effect.asVoid(FiberSet.run(fibers, work)), drain: wait })
      })
    )

  static readonly layer = Background.layerWith(BACKGROUND_DRAIN)
}
