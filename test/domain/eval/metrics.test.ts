import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import type { Conversation, Question } from "../../../src/domain/eval/dataset.js"
import {
  appearsIn,
  firstEvidenceRank,
  isAnswerable,
  isShortAnswer,
  normalise,
  percentile,
  type QuestionResult,
  ratesOf,
  scoreQuestion,
  sessionText,
  summariseRecall
} from "../../../src/domain/eval/metrics.js"
import { evalSessionId, sessionMessages, sessionNumberOf } from "../../../src/domain/eval/protocol.js"

const conversation: Conversation = {
  id: "c",
  speakers: ["Ada", "Ben"],
  sessions: [
    {
      n: 1,
      date: "9:05 am on 3 March, 2025",
      turns: [
        { speaker: "Ada", text: "I booked the sailing course in Kiel." },
        { speaker: "Ben", text: "With Marta Olsen?" }
      ]
    },
    {
      n: 2,
      date: "6:40 pm on 19 March, 2025",
      turns: [{ speaker: "Ada", text: "The recipe needs 450 grams of rye flour." }]
    }
  ],
  questions: []
}
const question = (answer: string, sessions: ReadonlyArray<number>): Question => ({
  q: "?",
  answer,
  category: 1,
  sessions
})

describe("normalise", () => {
  it("lower-cases and turns every run of non-letters/digits into one space", () => {
    expect(normalise("  Marta   O'Lsen!! — 2,023 ")).toBe("marta o lsen 2 023")
    expect(normalise("Lübeck's ÉCOLE")).toBe("lübeck s école")
    expect(normalise("?!")).toBe("")
  })

  it("property: idempotent, and only letters, digits and single inner spaces remain", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), (s) => {
        const n = normalise(s)
        expect(normalise(n)).toBe(n)
        expect(n).toMatch(/^(?:[\p{L}\p{N}]+(?: [\p{L}\p{N}]+)*)?$/u)
      }),
      { numRuns: 2000 }
    )
  })
})

describe("answers", () => {
  it("short answers are 3 to 40 characters (code points, trimmed)", () => {
    expect(["no", " 5  ", "a".repeat(41)].map(isShortAnswer)).toEqual([false, false, false])
    expect(["yes", "a".repeat(40), "Lüb", "🎻🎻🎻"].map(isShortAnswer)).toEqual([true, true, true, true])
  })

  it("an answer appears on word boundaries, normalised", () => {
    expect(appearsIn("Marta Olsen", "• taught by MARTA-olsen.")).toBe(true)
    expect(appearsIn("2022", "in 20223")).toBe(false)
    expect(appearsIn("York", "New York!")).toBe(true)
    expect(appearsIn("!!!", "!!!")).toBe(false)
  })

  it("property: an answer with letters or digits appears in any text that holds it between separators", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20 }),
        fc.string({ maxLength: 30 }),
        fc.string({ maxLength: 30 }),
        fc.constantFrom(" ", ". ", "\n", " — "),
        (answer, before, after, sep) => {
          fc.pre(normalise(answer) !== "")
          expect(appearsIn(answer, `${before}${sep}${answer}${sep}${after}`)).toBe(true)
        }
      ),
      { numRuns: 2000 }
    )
  })

  it(
    "answerable: the answer stands verbatim in an evidence session " +
      "(date, speakers and turns count), not elsewhere",
    () => {
      expect(sessionText(conversation.sessions[0]!)).toBe(
        "9:05 am on 3 March, 2025\nAda: I booked the sailing course in Kiel.\nBen: With Marta Olsen?"
      )
      expect(isAnswerable(question("Marta Olsen", [1]), conversation)).toBe(true)
      expect(isAnswerable(question("3 March 2025", [1]), conversation)).toBe(true)
      expect(isAnswerable(question("Ben", [1]), conversation)).toBe(true)
      expect(isAnswerable(question("450 grams", [1]), conversation)).toBe(false)
      expect(isAnswerable(question("450 grams", [1, 2]), conversation)).toBe(true)
      expect(isAnswerable(question("Kiel and rye", [1, 2]), conversation)).toBe(false)
    }
  )
})

describe("scoring", () => {
  it("the first evidence session's rank among the recalled ones", () => {
    expect(firstEvidenceRank([3, undefined, 1, 2], [1, 2])).toBe(3)
    expect(firstEvidenceRank([3, 4], [1])).toBeUndefined()
    expect(firstEvidenceRank([], [1])).toBeUndefined()
  })

  it("one question: rank, empty block, short, answerable and answer-in-block", () => {
    expect(scoreQuestion(question("Marta Olsen", [1]), conversation, [2, 1], "• Marta Olsen teaches", 0.5)).toEqual({
      category: "1",
      unrelated: false,
      rank: 2,
      empty: false,
      short: true,
      answerable: true,
      answerInBlock: true,
      blockBytes: 23, // "•" is 3 bytes
      latencyMs: 0.5
    })
    // a long answer is neither counted as short nor as answerable, even when it stands in the block
    const long = "a".repeat(41)
    expect(scoreQuestion(question(long, [1]), conversation, [], long, 1)).toMatchObject({
      short: false,
      answerable: false,
      answerInBlock: false,
      empty: false,
      rank: undefined
    })
    expect(scoreQuestion(question("x", []), conversation, [], "", 1)).toMatchObject({ unrelated: true, empty: true })
  })

  const result = fc
    .record({
      category: fc.constantFrom("", "1", "2", "10"),
      unrelated: fc.boolean(),
      rank: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
      empty: fc.boolean(),
      short: fc.boolean(),
      answerable: fc.boolean(),
      answerInBlock: fc.boolean(),
      blockBytes: fc.nat(4096),
      latencyMs: fc.double({ min: 0, max: 100, noNaN: true })
    })
    .map((r): QuestionResult => ({
      ...r,
      answerable: r.short && r.answerable,
      answerInBlock: r.short && r.answerInBlock
    }))

  it(
    "property: hit@1 ≤ hit@3 ≤ hit@5, every rate within [0, 1], " + "answerable questions a subset of the short ones",
    () => {
      fc.assert(
        fc.property(fc.array(result, { maxLength: 60 }), (results) => {
          const s = summariseRecall(results)
          for (const r of [s.all, ...s.categories]) {
            for (const x of [r.hit1, r.hit3, r.hit5, r.empty, r.answerInBlock.rate, r.answerableInBlock.rate])
              if (x !== null) expect(x >= 0 && x <= 1).toBe(true)
            if (r.questions > 0) expect(r.hit1! <= r.hit3! && r.hit3! <= r.hit5!).toBe(true)
            else expect(r.hit1).toBeNull()
            expect(r.answerableInBlock.questions).toBeLessThanOrEqual(r.answerInBlock.questions)
            expect(r.answerInBlock.questions).toBeLessThanOrEqual(r.questions)
          }
          // categories partition the related questions that have one; unrelated queries are counted apart
          const related = results.filter((r) => !r.unrelated)
          expect(s.all.questions).toBe(related.length)
          expect(s.categories.reduce((a, c) => a + c.questions, 0)).toBe(
            related.filter((r) => r.category !== "").length
          )
          expect(s.unrelated.queries).toBe(results.length - related.length)
        }),
        { numRuns: 1000 }
      )
    }
  )

  it("rates: counts over the right denominators; nothing to count is null, not 0 %", () => {
    const base: QuestionResult = {
      category: "1",
      unrelated: false,
      rank: undefined,
      empty: false,
      short: false,
      answerable: false,
      answerInBlock: false,
      blockBytes: 0,
      latencyMs: 0
    }
    const r = ratesOf([
      { ...base, rank: 1, short: true, answerable: true, answerInBlock: true },
      { ...base, rank: 3, short: true },
      { ...base, rank: 5, empty: true },
      { ...base }
    ])
    expect(r).toEqual({
      questions: 4,
      hit1: 0.25,
      hit3: 0.5,
      hit5: 0.75,
      empty: 0.25,
      answerInBlock: { questions: 2, rate: 0.5 },
      answerableInBlock: { questions: 1, rate: 1 }
    })
    expect(ratesOf([]).hit1).toBeNull()
    expect(
      summariseRecall([
        { ...base, category: "10" },
        { ...base, category: "2" },
        { ...base, category: "" }
      ]).categories.map((c) => c.category)
    ).toEqual(["2", "10"])
  })

  it("percentiles by nearest rank", () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3)
    expect(percentile([5, 1, 3, 2, 4], 99)).toBe(5)
    expect(percentile([], 50)).toBeNaN()
  })
})

describe("the protocol's sessions", () => {
  it(
    "the date first as the user's message; " + "speaker A as user, B as assistant, each turn prefixed with its speaker",
    () => {
      expect(sessionMessages(conversation, conversation.sessions[0]!)).toEqual([
        { message: { role: "user", content: "[Date] 9:05 am on 3 March, 2025" }, buffer: "user" },
        { message: { role: "user", content: "[Ada] I booked the sailing course in Kiel." }, buffer: "user" },
        { message: { role: "assistant", content: "[Ben] With Marta Olsen?" }, buffer: "agent" }
      ])
    }
  )

  it("session ids map back to session numbers; ids the protocol did not make map to nothing", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e9 }), (n) => {
        expect(sessionNumberOf(evalSessionId(n))).toBe(n)
      }),
      { numRuns: 500 }
    )
    expect(["session-0", "session-01", "s-1", "session-1x"].map(sessionNumberOf)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined
    ])
  })
})
