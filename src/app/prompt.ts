import { Effect } from "effect"
import { renderMemoryBlock, renderReadout } from "../domain/facts/promptBlock.js"
import { readFacts } from "./facts.js"
import { Settings } from "./Settings.js"

/**
 * The memory block for a session's system prompt, rendered from the files as they are now. Hosts call this once
 * at session start and keep the text (the frozen snapshot, DESIGN §5.1); `buffer` is the live Tier 2 section.
 */
export const memoryBlock = Effect.fn("memoryBlock")(function* (buffer: ReadonlyArray<string> = []) {
  const config = yield* Settings
  const { user, env } = yield* readFacts()
  return renderMemoryBlock({
    enabled: config.enabled,
    user,
    env,
    caps: { user: config.factsLimitUser, env: config.factsLimitEnv },
    buffer: config.bufferEnabled ? buffer : []
  })
})

/** The `read` action's text. */
export const readout = Effect.map(readFacts(), ({ user, env }) => renderReadout(user, env))
