import { Effect } from "effect"
import type { YieldWrap } from "effect/Utils"

/**
 * `Effect.fn` for the write path, without its per-call cost: `Effect.fn` creates an Error (for the call site) on
 * every call even with `captureStackTrace: false`, and opens a span, together more than an add's own decision took
 * (issue 9, bench/durableAdd.ts). Nothing here reads spans; a handler that needs one can still add it.
 */
export const handler =
  <Args extends ReadonlyArray<unknown>, Eff extends YieldWrap<Effect.Effect<unknown, unknown, unknown>>, A>(
    body: (...args: Args) => Generator<Eff, A, never>
  ) =>
  (
    ...args: Args
  ): Effect.Effect<
    A,
    [Eff] extends [never] ? never : [Eff] extends [YieldWrap<Effect.Effect<infer _A, infer E, infer _R>>] ? E : never,
    [Eff] extends [never] ? never : [Eff] extends [YieldWrap<Effect.Effect<infer _A, infer _E, infer R>>] ? R : never
  > =>
    Effect.gen(() => body(...args))
