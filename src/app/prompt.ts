import { Effect } from "effect"
import { screenedBufferLine } from "../domain/facts/blocked.js"
import { renderMemoryBlock, renderReadout } from "../domain/facts/promptBlock.js"
import { wrapUntrusted } from "../domain/sessions/wrap.js"
import { atomRecallBlock, returnAfterBreak } from "./atomRecall.js"
import { promptFacts } from "./facts.js"
import { recallContext } from "./recall.js"
import { sessionBuffer } from "./sessions.js"
import { Settings } from "./Settings.js"
import { userModelPrompt } from "./userModel.js"

/**
 * Session start (DESIGN §5.1): reads the fact files once and returns a renderer of the memory block that keeps
 * them frozen, so the system prompt stays byte-identical for the session (prefix caching) while writes land on
 * disk and show next session. The buffer (Tier 2) is live: pass the current lines on every call.
 */
export const freezeMemoryBlock = Effect.fn("freezeMemoryBlock")(function* () {
  const config = yield* Settings
  const { user, env } = yield* promptFacts()
  const caps = { user: config.factsLimitUser, env: config.factsLimitEnv }
  // Extended Memory's style guidance and user model follow the buffer inside the same block (spec extended §14.9)
  const userModel = yield* userModelPrompt()
  return (buffer: ReadonlyArray<string> = []): string =>
    renderMemoryBlock({
      enabled: config.enabled,
      user,
      env,
      caps,
      buffer: config.bufferEnabled ? buffer.map(screenedBufferLine) : [],
      extended: userModel
    })
})

/** The memory block rendered from the files as they are now. */
export const memoryBlock = Effect.fn("memoryBlock")(function* (buffer: ReadonlyArray<string> = []) {
  return (yield* freezeMemoryBlock())(buffer)
})

/** One system message a host agent adds to its conversation. */
export interface SystemMessage {
  readonly role: "system"
  readonly content: string
}

/**
 * The memory system messages for each turn of a session, in the spec's order: the facts block frozen at session
 * start with the session's live buffer, then the recall context of past sessions, wrapped as untrusted data with
 * source `episode` (spec episodes §7.6). Empty parts are left out. The facts block is frozen here, when the session
 * opens; each `turn` renders with the current buffer and recall, so the same state gives the same messages.
 */
export const openPromptSession = Effect.fn("openPromptSession")(function* (
  sessionId: string | undefined,
  options: { readonly resumed?: boolean } = {}
) {
  const render = yield* freezeMemoryBlock()
  // a resumed session opens with where the user left off, once, on its first turn (spec extended §15.1)
  let leftOff = options.resumed === true ? yield* returnAfterBreak() : ""
  return (turn: {
    readonly userMessage: string
    readonly planSteps?: ReadonlyArray<{ readonly title: string; readonly status: string }>
  }) =>
    Effect.gen(function* () {
      const buffer = sessionId === undefined ? [] : yield* sessionBuffer(sessionId)
      const block = render(buffer)
      const recall = yield* recallContext(turn.userMessage, turn.planSteps ?? [])
      const messages: Array<SystemMessage> = []
      if (block !== "") messages.push({ role: "system", content: block })
      if (recall !== "") messages.push({ role: "system", content: wrapUntrusted("episode", recall) })
      // Extended Memory's atoms come last, as their own untrusted message (spec extended §9.1)
      const atoms = yield* atomRecallBlock(turn.userMessage)
      if (atoms !== "") messages.push({ role: "system", content: wrapUntrusted("extended_memory", atoms) })
      if (leftOff !== "") messages.push({ role: "system", content: wrapUntrusted("return_after_break", leftOff) })
      leftOff = ""
      return messages
    })
})

/** The `read` action's text. */
export const readout = Effect.map(promptFacts(), ({ user, env }) => renderReadout(user, env))
