import { Clock, Context, Duration, Effect, Layer, Ref } from "effect"
import { EmbedFailed, Embedder } from "../ports/Embedder.js"

/** How long a failed embedding backend is left alone (spec embedding §9). */
export const EMBED_BACKOFF = Duration.seconds(30)

/**
 * Ends the back-off of `withBackoff` at once. New data is a fresh reason to try the backend: the episode index
 * calls it when a new episode asks for a rebuild (spec embedding §9.1, `markDirty`). Absent without the wrapper.
 */
export class EmbedBackoff extends Context.Tag("tmem/EmbedBackoff")<
  EmbedBackoff,
  { readonly clear: Effect.Effect<void> }
>() {}

/**
 * An embedder that, after a failure, answers every call at once with EmbedFailed for `window` instead of waiting on
 * a backend that is down (each call would otherwise wait for its HTTP timeout). Every caller already degrades on
 * EmbedFailed: a fact is added without a merge check, recall returns nothing. The first success clears it.
 */
export const withBackoff = (
  window: Duration.DurationInput = EMBED_BACKOFF
): Layer.Layer<Embedder | EmbedBackoff, never, Embedder> =>
  Layer.effectContext(
    Effect.gen(function* () {
      const inner = yield* Embedder
      const windowMs = Duration.toMillis(window)
      const failed = yield* Ref.make<{ readonly at: number; readonly why: string } | undefined>(undefined)
      const guard = <A>(call: Effect.Effect<A, EmbedFailed>) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const last = yield* Ref.get(failed)
          if (last !== undefined && now - last.at < windowMs) {
            const left = Math.ceil((windowMs - (now - last.at)) / 1000)
            return yield* Effect.fail(
              new EmbedFailed({ text: `embeddings: not retried for ${left} s after: ${last.why}` })
            )
          }
          return yield* call.pipe(
            Effect.tap(() => Ref.set(failed, undefined)),
            Effect.tapError((e) =>
              Effect.flatMap(Clock.currentTimeMillis, (at) => Ref.set(failed, { at, why: e.message }))
            )
          )
        })
      const fit = inner.fit
      const embedder = Embedder.of({
        space: inner.space,
        ...(fit !== undefined
          ? {
              fit: (corpus) => Effect.map(guard(fit(corpus)), (f) => (texts: ReadonlyArray<string>) => guard(f(texts)))
            }
          : {}),
        embed: (corpus, texts) => guard(inner.embed(corpus, texts))
      })
      return Context.make(Embedder, embedder).pipe(Context.add(EmbedBackoff, { clear: Ref.set(failed, undefined) }))
    })
  )
