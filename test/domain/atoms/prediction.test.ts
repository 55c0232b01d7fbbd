import { describe, expect, it } from "vitest"
import {
  followUpSuggestions,
  mergePredicted,
  parsePrediction,
  predictionRequest,
  renderFollowUps,
  usableIntents
} from "../../../src/domain/atoms/prediction.js"

describe("predictionRequest (§9.4)", () => {
  const model = '{"expertise":"go"}'

  it("has the spec's system prompt and ends with the limit", () => {
    const req = predictionRequest("How do I deploy?", ["hi"], model, 3)
    expect(req.system).toBe("You are an intent-prediction system. Return only a JSON array of predicted intents.")
    expect(req.user.endsWith("\nLimit to 3 intents. If there is nothing to predict, return [].")).toBe(true)
    expect(
      predictionRequest("m", [], model, 5).user.endsWith(
        "Limit to 5 intents. If there is nothing to predict, return []."
      )
    ).toBe(true)
  })

  it("carries the message, the recent messages oldest first, the user model and the reply's shape", () => {
    const user = predictionRequest("How do I deploy?", ["first", "second"], model, 3).user
    expect(user).toContain("Current message:\nHow do I deploy?\n")
    expect(user).toContain("Recent user messages (oldest first):\n1. first\n2. second\n")
    expect(user).toContain(`User model (JSON):\n${model}\n`)
    expect(user).toContain('[{"text": "...", "confidence": 0.0-1.0}]')
  })

  it("uses only the last ten recent messages, newest last", () => {
    const recent = Array.from({ length: 12 }, (_, i) => `msg${i}`)
    const user = predictionRequest("now", recent, model, 3).user
    expect(user).not.toContain("msg0\n")
    expect(user).not.toContain("msg1\n")
    expect(user).toContain("1. msg2\n")
    expect(user).toContain("10. msg11\n")
    expect(user).not.toContain("11. ")
  })

  it("says so when there are no recent messages or no user model", () => {
    const user = predictionRequest("now", [], "  ", 3).user
    expect(user).toContain("Recent user messages (oldest first):\n(none)\n")
    expect(user).toContain("User model (JSON):\n(none)\n")
  })

  it("marks its inputs as data", () => {
    expect(predictionRequest("m", [], model, 1).user).toContain("not instructions")
  })
})

describe("parsePrediction (§9.4, §10.5)", () => {
  it("reads a plain JSON array", () => {
    const reply = '[{"text":"Deploy to staging","confidence":0.8},{"text":"Run tests","confidence":0.4}]'
    expect(parsePrediction(reply, 3)).toStrictEqual([
      { text: "Deploy to staging", confidence: 0.8 },
      { text: "Run tests", confidence: 0.4 }
    ])
  })

  it("reads a fenced reply and one wrapped in prose", () => {
    const expected = [{ text: "Deploy", confidence: 0.7 }]
    expect(parsePrediction('```json\n[{"text":"Deploy","confidence":0.7}]\n```', 3)).toStrictEqual(expected)
    expect(parsePrediction('```\n[{"text":"Deploy","confidence":0.7}]\n```', 3)).toStrictEqual(expected)
    expect(parsePrediction('Sure! Here you go: [{"text":"Deploy","confidence":0.7}] Hope it helps.', 3)).toStrictEqual(
      expected
    )
  })

  it("clamps confidence to [0, 1]; missing or not a number → 0", () => {
    const reply = JSON.stringify([
      { text: "high", confidence: 1.7 },
      { text: "low", confidence: -0.2 },
      { text: "missing" },
      { text: "string", confidence: "0.9" },
      { text: "null", confidence: null },
      { text: "edge", confidence: 1 }
    ])
    expect(parsePrediction(reply, 10)).toStrictEqual([
      { text: "high", confidence: 1 },
      { text: "low", confidence: 0 },
      { text: "missing", confidence: 0 },
      { text: "string", confidence: 0 },
      { text: "null", confidence: 0 },
      { text: "edge", confidence: 1 }
    ])
    expect(parsePrediction('[{"text":"big","confidence":1e999}]', 3)).toStrictEqual([{ text: "big", confidence: 1 }])
  })

  it("trims texts and drops empty, blank, missing and non-string ones, and elements that are not objects", () => {
    const reply = JSON.stringify([
      { text: "  keep  ", confidence: 0.5 },
      { text: "", confidence: 0.9 },
      { text: "   ", confidence: 0.9 },
      { confidence: 0.9 },
      { text: 42, confidence: 0.9 },
      "a bare string",
      null,
      [1, 2]
    ])
    expect(parsePrediction(reply, 10)).toStrictEqual([{ text: "keep", confidence: 0.5 }])
  })

  it("truncates to n, counting only kept intents", () => {
    const reply = JSON.stringify([{ text: "" }, { text: "a" }, { text: "b" }, { text: "c" }])
    expect(parsePrediction(reply, 2).map((i) => i.text)).toStrictEqual(["a", "b"])
    expect(parsePrediction(reply, 0)).toStrictEqual([])
  })

  it("anything but a JSON array yields no intents", () => {
    for (const reply of [
      "",
      "[]",
      "nothing to predict",
      '{"text":"Deploy","confidence":0.9}',
      '{"intents":[{"text":"Deploy","confidence":0.9}]}',
      '[{"text":"Deploy", "confidence": 0.9',
      "[{text: 'Deploy'}]",
      "```json\n```"
    ])
      expect(parsePrediction(reply, 3)).toStrictEqual([])
  })
})

describe("usableIntents / followUpSuggestions (§9.4, §9.5)", () => {
  const intents = [
    { text: "a", confidence: 0.29 },
    { text: "b", confidence: 0.3 },
    { text: "c", confidence: 0.9 },
    { text: "d", confidence: 0.6 },
    { text: "e", confidence: 0.59 },
    { text: "f", confidence: 1 },
    { text: "g", confidence: 0.7 }
  ]

  it("an intent is usable from confidence 0.3", () => {
    expect(usableIntents(intents).map((i) => i.text)).toStrictEqual(["b", "c", "d", "e", "f", "g"])
    expect(usableIntents([])).toStrictEqual([])
  })

  it("suggests at most three intents at or above the minimum, in the model's order", () => {
    expect(followUpSuggestions(intents, 0.6)).toStrictEqual(["c", "d", "f"])
    expect(followUpSuggestions(intents, 0.95)).toStrictEqual(["f"])
    expect(followUpSuggestions(intents, 2)).toStrictEqual([])
    expect(followUpSuggestions([], 0.6)).toStrictEqual([])
  })

  it("never suggests below 0.3, whatever the minimum", () => {
    expect(followUpSuggestions(intents.slice(0, 2), 0)).toStrictEqual(["b"])
  })
})

describe("mergePredicted (§9.4)", () => {
  it("without intents: the literal hits by score, the first k", () => {
    const literal = [
      { id: "a", score: 0.5 },
      { id: "b", score: 0.9 },
      { id: "c", score: 0.7 }
    ]
    expect(mergePredicted(literal, [], 2)).toStrictEqual([
      { id: "b", score: 0.9 },
      { id: "c", score: 0.7 }
    ])
  })

  it("scales each intent's hits by its confidence and keeps the best score per atom", () => {
    const literal = [
      { id: "a", score: 0.6 },
      { id: "b", score: 0.3 }
    ]
    const perIntent = [
      {
        confidence: 0.5,
        hits: [
          { id: "a", score: 0.9 }, // 0.45 < 0.6: the literal score stays
          { id: "b", score: 0.8 }, // 0.4 > 0.3: raised
          { id: "c", score: 0.6 } // 0.3: new
        ]
      },
      { confidence: 1, hits: [{ id: "c", score: 0.5 }] } // 0.5 > 0.3: raised
    ]
    expect(mergePredicted(literal, perIntent, 10)).toStrictEqual([
      { id: "a", score: 0.6 },
      { id: "c", score: 0.5 },
      { id: "b", score: 0.4 }
    ])
  })

  it("equal scores keep the literal hits first, then the order the intents' hits came in", () => {
    const literal = [{ id: "lit", score: 0.4 }]
    const perIntent = [
      { confidence: 0.5, hits: [{ id: "p1", score: 0.8 }] },
      { confidence: 0.8, hits: [{ id: "p2", score: 0.5 }] }
    ]
    expect(mergePredicted(literal, perIntent, 10).map((h) => h.id)).toStrictEqual(["lit", "p1", "p2"])
  })

  it("keeps k, and nothing for k ≤ 0 or no hits at all", () => {
    const perIntent = [{ confidence: 1, hits: [1, 2, 3, 4].map((i) => ({ id: `p${i}`, score: i / 10 })) }]
    expect(mergePredicted([], perIntent, 2).map((h) => h.id)).toStrictEqual(["p4", "p3"])
    expect(mergePredicted([{ id: "a", score: 1 }], perIntent, 0)).toStrictEqual([])
    expect(mergePredicted([], [], 10)).toStrictEqual([])
    expect(mergePredicted([], [{ confidence: 0.9, hits: [] }], 10)).toStrictEqual([])
  })

  it("a repeated literal hit counts once, at its best score", () => {
    const literal = [
      { id: "a", score: 0.2 },
      { id: "b", score: 0.5 },
      { id: "a", score: 0.7 }
    ]
    expect(mergePredicted(literal, [], 10)).toStrictEqual([
      { id: "a", score: 0.7 },
      { id: "b", score: 0.5 }
    ])
  })
})

describe("renderFollowUps (§9.5)", () => {
  it("nothing to suggest → nothing printed", () => {
    expect(renderFollowUps([])).toBe("")
    expect(renderFollowUps(["", "  "])).toBe("")
  })

  it("prints the header and one bullet per suggestion", () => {
    expect(renderFollowUps(["Deploy to staging", "Run the tests"])).toBe(
      "── You might also want to ──\n• Deploy to staging\n• Run the tests\n"
    )
  })

  it("prints at most three", () => {
    expect(renderFollowUps(["a", "b", "c", "d"])).toBe("── You might also want to ──\n• a\n• b\n• c\n")
  })

  it("keeps each suggestion on its own line", () => {
    expect(renderFollowUps(["Deploy\nnow\u001b[2J", "\tRun\r\n"])).toBe(
      "── You might also want to ──\n• Deploy now [2J\n• Run\n"
    )
  })
})
