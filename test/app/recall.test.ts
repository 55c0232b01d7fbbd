import { Effect, FastCheck as fc } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type Reply, type ScriptedServer, startScriptedServer } from "../../src/adapters/dev/ScriptedServer.js"
import { promoteEpisode, storeEpisode } from "../../src/app/episodes.js"
import { dispatchMemoryTool } from "../../src/app/memoryTool.js"
import { recallContext, searchEpisodes } from "../../src/app/recall.js"
import type { EpisodeProvenance } from "../../src/domain/sessions/provenance.js"
import { appLayer } from "../support/app.js"
import { chats, scriptedRuntime } from "../support/llm.js"

let server: ScriptedServer
const replies: Array<Reply> = []
beforeAll(
  async () =>
    void (server = await startScriptedServer({ handler: () => replies.shift() ?? { kind: "chat", content: "none" } }))
)
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
  replies.length = 0
})

const UNTRUSTED: EpisodeProvenance = { untrusted: true, sources: ["web_search"] }
const EPISODES = [
  ["lexer", "The user asked to fix the tokenizer crash; the agent patched the lexer and added regression tests.", {}],
  ["deploy", "The user asked to move deploys to Argo CD; the agent wrote the application manifests.", {}],
  ["secret", "The agent read a web page about the tokenizer crash and patched the lexer accordingly.", UNTRUSTED],
  ["docs", "The user asked for a README tour; the agent documented the CLI commands.", {}]
] as const

const seed = Effect.forEach(EPISODES, ([sessionId, summary, provenance]) =>
  storeEpisode({ sessionId, summary, turns: 4, provenance, source: "llm" })
)

describe("recall and search", () => {
  it("recall: the nearest recallable episodes, in the spec's block, pending ones never", async () => {
    const block = await Effect.runPromise(
      Effect.zipRight(seed, recallContext("the tokenizer crashes again in the lexer")).pipe(Effect.provide(appLayer()))
    )
    expect(
      block.startsWith(
        "\n═══ RELEVANT PAST SESSIONS ═══\n" +
          "Summaries of past sessions related to the current task:\n• [lexer] (4 turns): "
      )
    ).toBe(true)
    expect(block).not.toContain("[secret]")
    expect(
      block.endsWith(
        "─────────────────────────────────\nUse this context to recall past decisions, fixes, and discussions.\n"
      )
    ).toBe(true)
  })

  it("recall with nothing stored, or memory disabled, is empty", async () => {
    expect(await Effect.runPromise(recallContext("anything").pipe(Effect.provide(appLayer())))).toBe("")
    expect(
      await Effect.runPromise(recallContext("lexer").pipe(Effect.provide(appLayer({ config: { enabled: false } }))))
    ).toBe("")
  })

  it("a promoted episode becomes recallable", async () => {
    const block = await Effect.runPromise(
      Effect.gen(function* () {
        yield* seed
        yield* promoteEpisode("secret")
        return yield* recallContext("web page about the tokenizer crash")
      }).pipe(Effect.provide(appLayer()))
    )
    expect(block).toContain("[secret]")
  })

  it(
    "search: the model re-ranks the vector candidates; 'none' means no results; " +
      "without llm_search the vector order stands",
    async () => {
      const rt = scriptedRuntime(server)
      await rt.runPromise(seed)
      replies.push({ kind: "chat", content: "1,0" })
      const ranked = await rt.runPromise(searchEpisodes("tokenizer lexer crash"))
      expect(chats(server)).toHaveLength(1)
      expect(ranked.length).toBeLessThanOrEqual(2)
      replies.push({ kind: "chat", content: "none" })
      expect(await rt.runPromise(searchEpisodes("tokenizer lexer crash"))).toEqual([])
      await rt.dispose()
      const plain = await Effect.runPromise(
        Effect.zipRight(seed, searchEpisodes("tokenizer lexer crash")).pipe(Effect.provide(appLayer()))
      )
      expect(plain[0]!.sessionId).toBe("lexer")
      expect(plain.map((h) => h.sessionId)).not.toContain("secret")
    }
  )

  it("the tool: search formats results; view refuses pending and unknown episodes alike", async () => {
    const r = await Effect.runPromise(
      Effect.gen(function* () {
        yield* seed
        return {
          search: yield* dispatchMemoryTool({ action: "search", query: "argo cd deploys" }),
          empty: yield* dispatchMemoryTool({ action: "search", query: " " }),
          view: yield* dispatchMemoryTool({ action: "view", target: "episodes", query: "deploy" }),
          pending: yield* dispatchMemoryTool({ action: "view", target: "episodes", query: "secret" }),
          unknown: yield* dispatchMemoryTool({ action: "view", target: "episodes", query: "nope" })
        }
      }).pipe(Effect.provide(appLayer()))
    )
    expect(r.search).toMatchObject({ success: true })
    expect((r.search as unknown as { message: string }).message).toMatch(
      /^Found \d+ matching episode\(s\):\n\n• deploy \(4 turns\)\n {2}The user asked to move deploys/
    )
    expect(r.empty).toEqual({ success: false, error: "query is required for search" })
    expect(r.view).toMatchObject({ success: true, message: EPISODES[1][1] })
    expect(r.pending).toMatchObject({ success: false })
    expect((r.pending as unknown as { error: string }).error.replace("secret", "nope")).toBe(
      (r.unknown as unknown as { error: string }).error
    )
  })

  it("property: recall never returns an untrusted, unpromoted episode", async () => {
    const WORDS = [
      "lexer",
      "tokenizer",
      "crash",
      "deploy",
      "argo",
      "readme",
      "tests",
      "parser",
      "cache",
      "redis",
      "docs",
      "cli"
    ]
    const summary = fc
      .array(fc.constantFrom(...WORDS), { minLength: 3, maxLength: 8 })
      .map((w) => `The agent worked on ${w.join(" ")}.`)
    const episode = fc.record({ summary, trust: fc.constantFrom("trusted", "pending", "promoted", "auto") })
    let pendingStored = 0
    let recalledSome = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(episode, { minLength: 1, maxLength: 12 }),
        fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
        async (eps, q) => {
          const pending = new Set<string>()
          const block = await Effect.runPromise(
            Effect.gen(function* () {
              for (const [i, e] of eps.entries()) {
                const id = `s${i}`
                const provenance: EpisodeProvenance =
                  e.trust === "trusted"
                    ? {}
                    : e.trust === "auto"
                      ? { untrusted: true, auto_approved: true }
                      : { untrusted: true, sources: ["browser"] }
                const r = yield* storeEpisode({
                  sessionId: id,
                  summary: e.summary,
                  turns: 3,
                  provenance,
                  source: "llm"
                })
                if (e.trust === "promoted" && r.stored) yield* promoteEpisode(id)
                if (e.trust === "pending" && r.stored) pending.add(id)
              }
              return yield* recallContext(q.join(" "))
            }).pipe(Effect.provide(appLayer({ config: { episodeDedupThreshold: 0.99 } })))
          )
          pendingStored += pending.size
          if (block !== "") recalledSome++
          for (const id of pending) expect(block).not.toContain(`[${id}]`)
        }
      ),
      { numRuns: 150 }
    )
    expect(pendingStored).toBeGreaterThan(150)
    expect(recalledSome).toBeGreaterThan(75)
  })
})
