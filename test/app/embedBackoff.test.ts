import { Effect, Either, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type ScriptedServer, startScriptedServer } from "../../src/adapters/dev/ScriptedServer.js"
import { withBackoff } from "../../src/app/embedBackoff.js"
import { addFact } from "../../src/app/facts.js"
import { Embedder } from "../../src/ports/Embedder.js"
import { appLayer } from "../support/app.js"
import { scriptedEmbedder } from "../support/llm.js"

let server: ScriptedServer
beforeAll(
  async () =>
    void (server = await startScriptedServer({
      handler: (r) => ({ kind: "embeddings", vectors: (r.body as { input: Array<string> }).input.map(() => [1, 0]) })
    }))
)
afterAll(() => server.close())
beforeEach(() => server.reset())

const embeddings = () => server.requests.filter((r) => r.path.endsWith("/embeddings")).length

describe("embedding back-off", () => {
  it("after a failure the backend is left alone for the window, then tried again; a success clears it", async () => {
    const rt = ManagedRuntime.make(withBackoff("400 millis").pipe(Layer.provide(scriptedEmbedder(server))))
    const embed = (t: string) => rt.runPromise(Effect.either(Effect.flatMap(Embedder, (e) => e.embed([], [t]))))
    server.enqueue({ kind: "status", status: 503 })
    expect(Either.isLeft(await embed("a"))).toBe(true)
    const during = await embed("b")
    expect(Either.isLeft(during) && during.left.message).toMatch(
      /^embeddings: not retried for 1 s after: embeddings: .* returned status 503/
    )
    expect(embeddings()).toBe(1)
    await new Promise((r) => setTimeout(r, 450))
    expect(Either.isRight(await embed("c"))).toBe(true)
    expect(Either.isRight(await embed("d"))).toBe(true)
    expect(embeddings()).toBe(3)
    await rt.dispose()
  })

  it("adds during the back-off go through at once, without a merge check", async () => {
    const embedder = withBackoff("10 seconds").pipe(Layer.provide(scriptedEmbedder(server)))
    const rt = ManagedRuntime.make(appLayer({ embedder }))
    await rt.runPromise(addFact("env", "first fact"))
    server.enqueue({ kind: "reset" })
    const second = await rt.runPromise(addFact("env", "first fact, restated")) // the probe fails: added
    const third = await rt.runPromise(addFact("env", "first fact, again")) // backing off: no request, added
    expect([second.outcome.kind, third.outcome.kind]).toEqual(["added", "added"])
    expect(embeddings()).toBe(1)
    await rt.dispose()
  })
})
