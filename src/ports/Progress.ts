import { Context, Effect, Option } from "effect"

/**
 * Shows that long work is under way (a model call, embedding, an index rebuild) to whoever is watching. Purely
 * presentational: it never changes what the work does or returns.
 */
export class Progress extends Context.Tag("tmem/Progress")<
  Progress,
  { readonly during: <A, E, R>(label: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R> }
>() {}

/**
 * Runs `effect` labelled with what is being waited on. The service is optional: without one (a library caller,
 * a test layer) the effect simply runs, so no use case has to require it.
 */
export const during =
  (label: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(Effect.serviceOption(Progress), (p) => (Option.isSome(p) ? p.value.during(label, effect) : effect))
