import { Effect, Either, Layer } from "effect"
import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { listEpisodes } from "../../src/app/episodes.js"
import { evaluateRecall, type MemoryServices, ScratchMemories } from "../../src/app/eval.js"
import type { Recalled } from "../../src/app/recall.js"
import { type Dataset, decodeDataset } from "../../src/domain/eval/dataset.js"
import { sessionNumberOf } from "../../src/domain/eval/protocol.js"
import { isRecallable } from "../../src/domain/sessions/provenance.js"
import type { TrustZone } from "../../src/domain/sessions/message.js"
import { appLayer } from "../support/app.js"
import { recordingProgress } from "../support/progress.js"

const zone: TrustZone = { cwd: "/scratch", roots: ["/scratch"], realpath: (p) => p }

const load = (file: string): Dataset => {
  const decoded = decodeDataset(JSON.parse(fs.readFileSync(file, "utf8")))
  if (Either.isLeft(decoded)) throw new Error(String(decoded.left))
  return decoded.right
}
const tiny = load("test/fixtures/eval/tiny.json")

/** In-memory scratch memories; counts how many were opened. */
const scratch = (opened: { n: number }) =>
  Layer.succeed(
    ScratchMemories,
    ScratchMemories.of({
      fresh: (use) =>
        Effect.suspend(() => {
          opened.n++
          return Effect.provide(use(zone), appLayer())
        })
    })
  )

/**
 * A recall whose choices can be checked by hand: every recallable episode of the memory, highest session number
 * first; a fixed block; nothing for the question about mercury.
 */
const BLOCK = "• Pepper sleeps under the posters; 27 minutes; Marta Olsen teaches."
const seen: Array<ReadonlyArray<string>> = []
const fakeRecall = (query: string): Effect.Effect<Recalled, never, MemoryServices> =>
  Effect.gen(function* () {
    const all = yield* Effect.orDie(listEpisodes({ all: true }))
    seen.push(all.map((e) => `${e.sessionId}:${isRecallable(e.provenance) ? "recallable" : "pending"}:${e.source}`))
    if (query.includes("mercury")) return { episodes: [], block: "" }
    const episodes = [...all]
      .sort((a, b) => sessionNumberOf(b.sessionId)! - sessionNumberOf(a.sessionId)!)
      .map((e) => ({ sessionId: e.sessionId, turns: e.turns, preview: "" }))
    return { episodes, block: BLOCK }
  })

describe("evaluateRecall", () => {
  it("scores hit@k, answer-in-block and the unrelated query by hand-checkable ranks, per category", async () => {
    const opened = { n: 0 }
    seen.length = 0
    const e = await Effect.runPromise(
      evaluateRecall(tiny, { recall: fakeRecall }).pipe(Effect.provide(scratch(opened)))
    )
    // one new memory per conversation: the second sees only its own four sessions
    expect(opened.n).toBe(2)
    expect(seen[0]).toEqual([
      "session-3:recallable:extractive",
      "session-2:recallable:extractive",
      "session-1:recallable:extractive"
    ])
    expect(seen.at(-1)).toHaveLength(4)
    expect(e).toMatchObject({
      conversations: 2,
      sessions: 7,
      questions: 9,
      ingest: { episodes: 7, withoutEpisode: {} }
    })
    // ranks (highest session first): harbour 3,2,1,3 ; telescope 4 (evidence 1), 1 (evidence 1 and 4), 3, 2
    expect(e.recall.all).toEqual({
      questions: 8,
      hit1: 2 / 8,
      hit3: 7 / 8,
      hit5: 8 / 8,
      empty: 0,
      // short answers: all 8; in the block: Marta Olsen, Pepper, 27 minutes
      answerInBlock: { questions: 8, rate: 3 / 8 },
      // verbatim in an evidence session: all but "in the city of Kiel, Germany" and "Saturn and Jupiter"
      answerableInBlock: { questions: 6, rate: 3 / 6 }
    })
    expect(e.recall.categories.map((c) => [c.category, c.questions, c.hit1, c.hit3, c.hit5])).toEqual([
      ["1", 4, 1 / 4, 3 / 4, 4 / 4],
      ["2", 4, 1 / 4, 4 / 4, 4 / 4]
    ])
    expect(e.recall.unrelated).toEqual({ queries: 1, empty: 1 })
    expect(e.recall.blockBytes.max).toBe(Buffer.byteLength(BLOCK))
  })

  it("with per-turn recall: every session becomes a recallable episode and every question is answered", async () => {
    const e = await Effect.runPromise(evaluateRecall(tiny).pipe(Effect.provide(scratch({ n: 0 }))))
    expect(e).toMatchObject({
      conversations: 2,
      sessions: 7,
      questions: 9,
      ingest: { episodes: 7, withoutEpisode: {} }
    })
    const r = e.recall.all
    expect(r.hit1!).toBeLessThanOrEqual(r.hit3!)
    expect(r.hit3!).toBeLessThanOrEqual(r.hit5!)
    expect(Number.isFinite(e.recall.latencyMs.p99)).toBe(true)
  })

  it(
    "--limit-conversations: only the first N; " + "a session too short for an episode is counted with its reason",
    async () => {
      const first = tiny.conversations[0]!
      const short: Dataset = {
        conversations: [
          { ...first, sessions: [...first.sessions, { n: 9, date: "today", turns: [{ speaker: "Ada", text: "hi" }] }] },
          tiny.conversations[1]!
        ]
      }
      const opened = { n: 0 }
      const e = await Effect.runPromise(
        evaluateRecall(short, { recall: fakeRecall, limitConversations: 1 }).pipe(Effect.provide(scratch(opened)))
      )
      expect(opened.n).toBe(1)
      expect(e).toMatchObject({
        conversations: 1,
        sessions: 4,
        questions: 5,
        ingest: { episodes: 3, withoutEpisode: { "2 user turns, fewer than 3": 1 } }
      })
    }
  )

  it("shows ingest and recall progress per conversation on the Progress port", async () => {
    const labels: Array<string> = []
    const progress = recordingProgress(labels)
    await Effect.runPromise(
      evaluateRecall(tiny, { recall: fakeRecall }).pipe(Effect.provide(scratch({ n: 0 })), Effect.provide(progress))
    )
    expect(labels).toEqual([
      "conversation 1/2 (harbour): ingesting session 1/3",
      "conversation 1/2 (harbour): ingesting session 2/3",
      "conversation 1/2 (harbour): ingesting session 3/3",
      "conversation 1/2 (harbour): recalling 5 questions",
      "conversation 2/2 (7): ingesting session 1/4",
      "conversation 2/2 (7): ingesting session 2/4",
      "conversation 2/2 (7): ingesting session 3/4",
      "conversation 2/2 (7): ingesting session 4/4",
      "conversation 2/2 (7): recalling 4 questions"
    ])
  })
})
