import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { storeEpisode } from "../../src/app/episodes.js"
import { addFact } from "../../src/app/facts.js"
import { memoryBlock, openPromptSession } from "../../src/app/prompt.js"
import { recordMessage } from "../../src/app/sessions.js"
import type { TrustZone } from "../../src/domain/sessions/message.js"
import { wrapperLabels } from "../../src/domain/sessions/provenance.js"
import { wrapUntrusted } from "../../src/domain/sessions/wrap.js"
import { appLayer } from "../support/app.js"

const zone: TrustZone = { cwd: "/w", roots: ["/w"], realpath: (p) => p }
const run = <A, E>(e: Effect.Effect<A, E, any>) =>
  Effect.runPromise(e.pipe(Effect.provide(appLayer())) as Effect.Effect<A, E>)

describe("per-turn system messages (issue 5 §3)", () => {
  it("nothing stored, nothing sent", async () => {
    expect(await run(Effect.flatMap(openPromptSession("s"), (turn) => turn({ userMessage: "hi" })))).toEqual([])
  })

  it(
    "the facts block frozen at session start with the live buffer, then recall wrapped as episode data; " +
      "deterministic",
    async () => {
      const r = await run(
        Effect.gen(function* () {
          yield* addFact("user", "Prefers terse answers")
          yield* storeEpisode({
            sessionId: "old",
            summary: "The agent fixed the lexer crash on emoji input.",
            turns: 4,
            provenance: {},
            source: "llm"
          })
          const turn = yield* openPromptSession("s1")
          yield* addFact("env", "Node 20 with pnpm 9") // lands on disk, shows next session
          yield* recordMessage("s1", { role: "user", content: "The lexer crashes on emoji again" }, zone, "user")
          const first = yield* turn({ userMessage: "The lexer crashes on emoji again" })
          const again = yield* turn({ userMessage: "The lexer crashes on emoji again" })
          const frozenFacts = yield* memoryBlock(["x"]) // for comparison: the live block would show env
          return { first, again, frozenFacts }
        })
      )
      expect(r.first).toHaveLength(2)
      expect(r.first[0]!.content).toContain("── User Profile ──\nPrefers terse answers\n")
      expect(r.first[0]!.content).not.toContain("Node 20")
      expect(r.frozenFacts).toContain("Node 20")
      expect(r.first[0]!.content).toMatch(
        /── Current Session ──\n\d\d:\d\d {2}user {2}The lexer crashes on emoji again\n/
      )
      expect(wrapperLabels(r.first[1]!.content)).toEqual(["episode"])
      expect(r.first[1]!.content).toContain("• [old] (4 turns): The agent fixed the lexer crash on emoji input.")
      expect(r.again).toEqual(r.first)
    }
  )

  it("the wrapper's nonce depends on the content, so text inside cannot close it", () => {
    const a = wrapUntrusted("episode", "x")
    expect(a).toMatch(/^<untrusted_content_[0-9a-f]{16} source="episode">x<\/untrusted_content_[0-9a-f]{16}>$/)
    expect(wrapUntrusted("episode", "x")).toBe(a)
    expect(wrapUntrusted("episode", "y").slice(0, 35)).not.toBe(a.slice(0, 35))
  })
})
