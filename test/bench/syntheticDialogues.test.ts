import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { bm25 } from "../../bench/bm25.js"
import { syntheticDialogues } from "../../bench/syntheticDialogues.js"
import { decodeDataset } from "../../src/domain/eval/dataset.js"
import { isAnswerable, isShortAnswer } from "../../src/domain/eval/metrics.js"

describe("the synthetic recall dataset", () => {
  it("is the same for the same seed, different for another, and in the neutral format", () => {
    expect(JSON.stringify(syntheticDialogues({ seed: 3 }))).toBe(JSON.stringify(syntheticDialogues({ seed: 3 })))
    expect(JSON.stringify(syntheticDialogues({ seed: 3 }))).not.toBe(JSON.stringify(syntheticDialogues({ seed: 4 })))
    for (const seed of [1, 2, 3, 10, 99])
      expect(Either.isRight(decodeDataset(syntheticDialogues({ seed, conversations: 8, sessions: 14 })))).toBe(true)
  })

  it(
    "every question with evidence has its answer in an evidence session; unrelated queries have none; " +
      "every category occurs",
    () => {
      const d = Either.getOrThrow(decodeDataset(syntheticDialogues()))
      const questions = d.conversations.flatMap((c) => c.questions.map((q) => ({ c, q })))
      const related = questions.filter(({ q }) => q.sessions.length > 0)
      expect(related.filter(({ c, q }) => !isAnswerable(q, c) && isShortAnswer(q.answer))).toEqual([])
      expect(new Set(related.map(({ q }) => q.category))).toEqual(new Set([1, 2, 3]))
      expect(questions.length - related.length).toBe(2 * d.conversations.length)
      // a follow-up's question names both sessions: the topic's first session and the one that came back to it
      for (const { q } of related.filter(({ q }) => q.category === 2)) expect(q.sessions).toHaveLength(2)
    }
  )

  it("BM25 ranks the session holding a question's rare words first", () => {
    const index = bm25([
      "hello there, how are you",
      "the cello was bought in Graz for 300 euros",
      "hello again, talk soon"
    ])
    expect(index.search("where was the cello bought?", 3)).toEqual([1])
    expect(index.search("mercury boiling point", 3)).toEqual([])
  })
})
