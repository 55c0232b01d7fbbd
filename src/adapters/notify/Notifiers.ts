import { Effect, Layer } from "effect"
import { formatLifecycle, type LifecycleEvent } from "../../domain/events/lifecycle.js"
import { Notifier } from "../../ports/Notifier.js"

/** Verbose mode: one line per event, as odek prints them (stderr by default). */
export const makeTerminal = (write: (line: string) => void = (l) => process.stderr.write(`${l}\n`)) =>
  Notifier.of({
    notify: (events) =>
      Effect.sync(() => {
        for (const e of events) write(formatLifecycle(e))
      }).pipe(Effect.catchAllDefect(() => Effect.void))
  })

/** Hands events to a library user's function; a throwing handler cannot break the write that already happened. */
export const makeCallback = (handler: (event: LifecycleEvent) => void) =>
  Notifier.of({
    notify: (events) =>
      Effect.sync(() => {
        for (const e of events) {
          try {
            handler(e)
          } catch {
            // the sink's failure is not the write's failure
          }
        }
      })
  })

export const terminal = (write?: (line: string) => void) => Layer.succeed(Notifier, makeTerminal(write))
export const callback = (handler: (event: LifecycleEvent) => void) => Layer.succeed(Notifier, makeCallback(handler))

/** Delivers to several sinks in registration order. */
export const fanOut = (...sinks: ReadonlyArray<Notifier["Type"]>) =>
  Layer.succeed(
    Notifier,
    Notifier.of({ notify: (events) => Effect.forEach(sinks, (s) => s.notify(events), { discard: true }) })
  )

/** Drops every event (the quiet default). */
export const silent = Layer.succeed(Notifier, Notifier.of({ notify: () => Effect.void }))
