import { Context, type Effect } from "effect"
import type { LifecycleEvent } from "../domain/events/lifecycle.js"

/**
 * Where lifecycle events go once a write is durable and its lock released. Delivery never fails and never blocks
 * the caller for long: a sink that errors is the sink's problem, not the write's.
 */
export class Notifier extends Context.Tag("tmem/Notifier")<
  Notifier,
  { readonly notify: (events: ReadonlyArray<LifecycleEvent>) => Effect.Effect<void> }
>() {}
