import { Either, FastCheck as fc } from "effect"
import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { decodeDataset, describeParseError } from "../../../src/domain/eval/dataset.js"

const problem = (json: unknown): string | undefined =>
  Either.match(decodeDataset(json), { onLeft: describeParseError, onRight: () => undefined })

const tiny = JSON.parse(fs.readFileSync("test/fixtures/eval/tiny.json", "utf8"))

describe("the dataset format", () => {
  it("the fixture decodes; a numeric conversation id and a numeric answer are read as text", () => {
    const d = decodeDataset({
      conversations: [{ ...tiny.conversations[1], questions: [{ q: "When?", answer: 2022, sessions: [1] }] }]
    })
    expect(Either.isRight(decodeDataset(tiny))).toBe(true)
    expect(Either.getOrThrow(d).conversations[0]).toMatchObject({ id: "7", questions: [{ answer: "2022" }] })
  })

  it("names the first problem with its path", () => {
    const one = (patch: (c: any) => void) => {
      const d = structuredClone(tiny)
      patch(d.conversations[1])
      return problem(d)
    }
    expect(problem([])).toBe("(top level): Expected { conversations: [...] }, actual []")
    expect(problem({})).toBe("$.conversations: is missing")
    expect(problem({ conversations: [] })).toBe("$.conversations: the dataset needs at least one conversation")
    expect(one((c) => (c.sessions[2].turns[1].speaker = "Eve"))).toBe(
      `$.conversations[1].sessions[2].turns[1].speaker: ` +
        `"Eve" is not one of the conversation's speakers ("Chen", "Dora")`
    )
    expect(one((c) => (c.questions[2].sessions = [2, 9]))).toBe(
      "$.conversations[1].questions[2].sessions[1]: session 9 is not in this conversation"
    )
    expect(one((c) => (c.sessions[3].n = 1))).toBe(
      "$.conversations[1].sessions[3].n: session 1 appears twice in this conversation"
    )
    expect(one((c) => (c.speakers = ["Chen", "Chen"]))).toBe(
      `$.conversations[1].speakers: the two speakers must differ (both are "Chen")`
    )
    expect(one((c) => (c.speakers = ["Chen"]))).toBe("$.conversations[1].speakers[1]: is missing")
    expect(one((c) => (c.sessions[0].turns[0].text = 5))).toBe(
      "$.conversations[1].sessions[0].turns[0].text: Expected string, actual 5"
    )
    expect(one((c) => (c.sessions[0].n = 0))).toMatch(
      /^\$\.conversations\[1\]\.sessions\[0\]\.n: Expected a positive number/
    )
    expect(one((c) => (c.questions[0].q = "  "))).toBe("$.conversations[1].questions[0].q: must not be empty")
    expect(one((c) => (c.sessions = []))).toBe("$.conversations[1].sessions: a conversation needs at least one session")
  })

  // a valid conversation with `sessions` sessions and questions pointing into them
  const conversation = fc.integer({ min: 1, max: 6 }).chain((sessions) =>
    fc.record({
      id: fc.string({ minLength: 1, maxLength: 5 }),
      speakers: fc.constant(["A", "B"] as const),
      sessions: fc.constant(
        Array.from({ length: sessions }, (_, i) => ({
          n: i + 1,
          date: `day ${i + 1}`,
          turns: [{ speaker: i % 2 === 0 ? "A" : "B", text: "hello" }]
        }))
      ),
      questions: fc.array(
        fc.record({
          q: fc.constant("what?"),
          answer: fc.string(),
          sessions: fc.uniqueArray(fc.integer({ min: 1, max: sessions }), { maxLength: 3 })
        }),
        { maxLength: 5 }
      )
    })
  )

  it("property: a valid dataset decodes; a dangling evidence reference anywhere is named at its exact path", () => {
    fc.assert(
      fc.property(
        fc.array(conversation, { minLength: 1, maxLength: 4 }),
        fc.nat(),
        fc.nat(),
        (conversations, pick, at) => {
          expect(problem({ conversations })).toBeUndefined()
          const withQuestions = conversations.flatMap((c, i) =>
            c.questions.flatMap((q, j) => (q.sessions.length > 0 ? [[i, j] as const] : []))
          )
          fc.pre(withQuestions.length > 0)
          const [i, j] = withQuestions[pick % withQuestions.length]!
          const broken = structuredClone(conversations)
          const q = broken[i]!.questions[j]!
          const k = at % q.sessions.length
          q.sessions[k] = broken[i]!.sessions.length + 1 + (at % 3)
          // the first problem in document order is this one: earlier conversations and questions are intact
          expect(problem({ conversations: broken })).toBe(
            `$.conversations[${i}].questions[${j}].sessions[${k}]: session ${q.sessions[k]} is not in this conversation`
          )
        }
      ),
      { numRuns: 500 }
    )
  })
})
