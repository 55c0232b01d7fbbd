import { Effect } from "effect"
import { renderMemoryBlock, renderReadout } from "../domain/facts/promptBlock.js"
import { readFacts } from "./facts.js"
import { Settings } from "./Settings.js"

/**
 * Session start (DESIGN §5.1): reads the fact files once and returns a renderer of the memory block that keeps
 * them frozen, so the system prompt stays byte-identical for the session (prefix caching) while writes land on
 * disk and show next session. The buffer (Tier 2) is live: pass the current lines on every call.
 */
export const freezeMemoryBlock = Effect.fn("freezeMemoryBlock")(function* () {
  const config = yield* Settings
  const { user, env } = yield* readFacts()
  const caps = { user: config.factsLimitUser, env: config.factsLimitEnv }
  return (buffer: ReadonlyArray<string> = []): string =>
    renderMemoryBlock({ enabled: config.enabled, user, env, caps, buffer: config.bufferEnabled ? buffer : [] })
})

/** The memory block rendered from the files as they are now. */
export const memoryBlock = Effect.fn("memoryBlock")(function* (buffer: ReadonlyArray<string> = []) {
  return (yield* freezeMemoryBlock())(buffer)
})

/** The `read` action's text. */
export const readout = Effect.map(readFacts(), ({ user, env }) => renderReadout(user, env))
