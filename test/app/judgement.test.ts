import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type Reply, type ScriptedServer, startScriptedServer } from "../../src/adapters/dev/ScriptedServer.js"
import { Effect, Fiber, TestClock, TestContext } from "effect"
import { addFact, JUDGEMENT_TIMEOUT } from "../../src/app/facts.js"
import { chats, promptOf, scriptedRuntime } from "../support/llm.js"

let server: ScriptedServer
let chatReply: Reply
const EXISTING = "Prefers dark mode in all editors"
// A restatement that extends the entry: only such a pair is the model's to judge (a different fact never merges).
const INCOMING = "Prefers dark mode in all of the editors"
// A different fact (issue 10: the pair this file used before, which the model could fold into the entry).
const DIFFERENT = "Prefers a dark theme in the terminal"
let similarity = 0.5

// Vectors chosen so that cos(existing, incoming) is exactly `similarity`.
const vectorOf = (text: string): ReadonlyArray<number> =>
  text === EXISTING
    ? [1, 0, 0]
    : text === INCOMING || text === DIFFERENT
      ? [similarity, Math.sqrt(1 - similarity * similarity), 0]
      : [0, 0, 1]

beforeAll(async () => {
  server = await startScriptedServer({
    handler: (r) => {
      if (r.path.endsWith("/embeddings"))
        return { kind: "embeddings", vectors: (r.body as { input: Array<string> }).input.map((t) => [...vectorOf(t)]) }
      return chatReply
    }
  })
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
  similarity = 0.5
  chatReply = { kind: "chat", content: "merge" }
})

const addPair = async (options: { llm?: boolean; incoming?: string } = {}) => {
  const rt =
    options.llm === false
      ? scriptedRuntime(server, { embedder: "http", llm: { provider: "none" } })
      : scriptedRuntime(server, { embedder: "http" })
  await rt.runPromise(addFact("user", EXISTING))
  const r = await rt.runPromise(addFact("user", options.incoming ?? INCOMING))
  await rt.dispose()
  return r
}

describe("merge judgement band (DESIGN §5.2)", () => {
  it("asks the model once, and merges on 'merge'", async () => {
    const r = await addPair()
    expect(r.outcome).toMatchObject({ kind: "merged", content: `${EXISTING}. ${INCOMING}`, similarity: 0.5 })
    expect(chats(server)).toHaveLength(1)
    expect(promptOf(chats(server)[0]!)).toBe(
      `Existing entry: ${JSON.stringify(EXISTING)}\n` +
        `New entry: ${JSON.stringify(INCOMING)}\n` +
        `Answer with one word: merge or add.`
    )
  })

  for (const [what, reply] of [
    ["'add'", { kind: "chat", content: "Add." }],
    ["an unparseable answer", { kind: "chat", content: "Both are about dark themes, so I would merge them." }],
    ["a failed call", { kind: "status", status: 500 }],
    ["a malformed response", { kind: "malformed" }]
  ] as const) {
    it(`adds on ${what}`, async () => {
      chatReply = reply
      const r = await addPair()
      expect(r.outcome).toEqual({ kind: "added", content: INCOMING })
      expect(r.entries).toEqual([EXISTING, INCOMING])
    })
  }

  it("the band's bounds are strict: exactly 0.7 and 0.3 still ask", async () => {
    for (const s of [0.7, 0.3]) {
      similarity = s
      server.reset()
      await addPair()
      expect(chats(server)).toHaveLength(1)
    }
  })

  it("outside the band the model is never asked", async () => {
    similarity = 0.9
    expect((await addPair()).outcome.kind).toBe("merged")
    similarity = 0.1
    expect((await addPair()).outcome.kind).toBe("added")
    expect(chats(server)).toHaveLength(0)
  })

  it("a model that does not answer holds the add for at most JUDGEMENT_TIMEOUT, then the fact is added", async () => {
    chatReply = { kind: "hang" }
    const rt = scriptedRuntime(server, { embedder: "http", llm: { timeoutSeconds: 600 } })
    await rt.runPromise(addFact("user", EXISTING))
    const program = Effect.gen(function* () {
      const fiber = yield* Effect.fork(addFact("user", INCOMING))
      // real time: wait until the judgement request is at the server, then move the test clock past the bound
      while (chats(server).length === 0) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 10)))
      yield* TestClock.adjust(JUDGEMENT_TIMEOUT)
      return yield* Fiber.join(fiber)
    })
    const r = await rt.runPromise(program.pipe(Effect.provide(TestContext.TestContext)))
    expect(r.outcome).toEqual({ kind: "added", content: INCOMING })
    await rt.dispose()
  })

  it(
    "a different fact is never merged, " +
      "whatever the model would say or the similarity: the model is not even asked",
    async () => {
      for (const s of [0.5, 0.99]) {
        similarity = s
        server.reset()
        const r = await addPair({ incoming: DIFFERENT })
        expect(r.outcome).toMatchObject({
          kind: "added",
          keptApart: { entry: EXISTING, reason: '"mode", "editors" would become "theme", "terminal"' }
        })
        expect(r.outcome.kind === "added" && r.outcome.keptApart?.similarity).toBeCloseTo(s, 5)
        expect(r.entries).toEqual([EXISTING, DIFFERENT])
        expect(chats(server)).toHaveLength(0)
      }
    }
  )

  it("without a model the band adds, with no request at all", async () => {
    const r = await addPair({ llm: false })
    expect(r.outcome.kind).toBe("added")
    expect(chats(server)).toHaveLength(0)
  })
})
