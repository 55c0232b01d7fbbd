import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Either } from "effect"
import { startScriptedServer, type RecordedRequest } from "../../../src/adapters/dev/ScriptedServer.js"

/** A base URL nothing listens on: a server's port, taken and then closed again. */
export const closedPortUrl = Effect.promise(async () => {
  const s = await startScriptedServer()
  await s.close()
  return s.url
})

/** The error of an effect expected to fail (a success fails the test). */
export const failureOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.either(effect), (r) =>
    Either.isLeft(r) ? Effect.succeed(r.left) : Effect.dieMessage(`expected a failure, got ${JSON.stringify(r.right)}`)
  )

/** Milliseconds an effect took, with its result. */
export const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const started = performance.now()
    return Effect.map(effect, (a) => [a, performance.now() - started] as const)
  })

/** The `input` array of a recorded embeddings request. */
export const inputsOf = (req: RecordedRequest): ReadonlyArray<string> =>
  ((req.body ?? {}) as { input?: ReadonlyArray<string> }).input ?? []

/** A deterministic vector per text, the same on every call: [length, code-unit sum mod 97, 1, …]. */
export const vectorFor = (text: string, dims = 3): ReadonlyArray<number> => {
  let sum = 0
  for (let i = 0; i < text.length; i++) sum += text.charCodeAt(i)
  return Array.from({ length: dims }, (_, i) => (i === 0 ? text.length : i === 1 ? sum % 97 : i))
}

/**
 * A real undici HTTP client that lives as long as the current scope (adapters capture the client they are made with).
 */
export const undiciClient = Effect.map(NodeHttpClient.makeDispatcher, NodeHttpClient.makeUndici)
