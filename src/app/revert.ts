import { Effect } from "effect"
import { factLifecycle } from "../domain/events/lifecycle.js"
import { RevertRefused } from "../domain/facts/errors.js"
import type { FactEvent, Target } from "../domain/facts/schema.js"
import { factCodec, factStream } from "../domain/facts/stream.js"
import { EventStore } from "../ports/EventStore.js"
import { decided, execute } from "./facts.js"

/** The pre- and post-image of a whole-file change, or undefined for events that change one entry. */
const images = (
  e: FactEvent
): { readonly before: ReadonlyArray<string>; readonly after: ReadonlyArray<string> } | undefined => {
  switch (e._tag) {
    case "FactsConsolidated":
    case "FactsRewritten":
    case "FactsEditedExternally":
    case "FactsReverted":
      return { before: e.previous, after: e.entries }
    default:
      return undefined
  }
}

/** The images of the revertible change at `version`, or why there is none. Reads only. */
export const revertible = Effect.fn("revertible")(function* (target: Target, version: number) {
  const store = yield* EventStore
  const stream = factStream(target)
  const batches = yield* store.read(stream, factCodec(target))
  const latest = batches.at(-1)?.version ?? 0
  const batch = batches.find((b) => b.version >= version && b.version - b.events.length < version)
  const event = batch?.events[version - (batch.version - batch.events.length) - 1]
  if (batch === undefined || event === undefined)
    return yield* Effect.fail(
      new RevertRefused({
        text: `memory: ${target} has no version ${version} (latest is ${latest}); list versions with tmem events`
      })
    )
  const image = images(event)
  if (image === undefined) {
    const type = factLifecycle(stream, { ...batch, events: [event], version }).at(0)?.type ?? event._tag
    return yield* Effect.fail(
      new RevertRefused({
        text:
          `memory: ${target}@${version} is ${type}; only whole-file changes (consolidations, rewrites, hand edits, ` +
          `reverts) can be reverted — use replace or remove for one entry`
      })
    )
  }
  return image
})

/**
 * Undoes the whole-file change recorded at `version` of `target` (a consolidation, a rewrite, a hand edit, or a
 * revert) by appending its inverse: the journal keeps both, and changes made since are kept.
 */
export const revertFacts = Effect.fn("revertFacts")(function* (target: Target, version: number) {
  const image = yield* revertible(target, version)
  const result = yield* execute(
    target,
    decided((at) => ({ _tag: "RevertFacts", target, version, before: image.before, after: image.after, at }))
  )
  return { target, reverted: version, changed: result.events.length > 0, entries: result.entries }
})
