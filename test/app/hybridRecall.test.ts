import { Effect, FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { recallDetailed, searchEpisodes } from "../../src/app/recall.js"
import { endSession, recordMessage } from "../../src/app/sessions.js"
import { decodeConfig } from "../../src/domain/config/MemoryConfig.js"
import type { ChatMessage, TrustZone } from "../../src/domain/sessions/message.js"
import { appLayer } from "../support/app.js"

const zone: TrustZone = { cwd: "/work/proj", roots: ["/work/proj", "/workspace"], realpath: (p) => p }

// Six sessions of one long chat between two people, each about something else; the details sit mid-session, after
// small talk, where neither a first message nor a last reply would keep them.
const SESSIONS: ReadonlyArray<{ readonly id: string; readonly turns: ReadonlyArray<string> }> = [
  {
    id: "s1",
    turns: [
      "Hey Ana, how are you?",
      "Good! Busy week.",
      "I finally adopted a dog from the shelter, a beagle named Oscar.",
      "Oh wow, congratulations!",
      "He already chewed my slippers.",
      "Classic beagle."
    ]
  },
  {
    id: "s2",
    turns: [
      "Morning!",
      "Morning, Ben.",
      "The database migration to PostgreSQL 15 failed because the disk on db-3 was full.",
      "Did you resize it?",
      "Yes, to 500 GB, and the migration finished at 4 pm.",
      "Great news."
    ]
  },
  {
    id: "s3",
    turns: [
      "Hi!",
      "Hi Ana.",
      "I started painting again: a watercolour of the sunset over Lake Tahoe.",
      "That sounds lovely.",
      "It took six hours, mostly the reflections.",
      "Show me next time."
    ]
  },
  {
    id: "s4",
    turns: [
      "Hello again.",
      "Hey!",
      "We booked the flights to Lisbon for the conference on 12 June.",
      "Which hotel?",
      "The Pestana, near the river.",
      "Nice choice."
    ]
  },
  {
    id: "s5",
    turns: [
      "Hey.",
      "Hey Ben.",
      "My sister Clara got into medical school in Edinburgh.",
      "Tell her congratulations!",
      "She starts in September.",
      "Exciting."
    ]
  },
  {
    id: "s6",
    turns: [
      "Yo.",
      "Hi.",
      "The flaky test in the payment service was a race on the Redis connection pool.",
      "How did you fix it?",
      "A mutex around the pool refill, merged as PR 4821.",
      "Good catch."
    ]
  }
]
const RELEVANT: ReadonlyArray<readonly [question: string, session: string, answer: string]> = [
  ["What is the name of the dog Ben adopted?", "s1", "oscar"],
  ["Why did the PostgreSQL migration fail?", "s2", "disk"],
  ["What did Ben paint?", "s3", "lake tahoe"],
  ["When is the conference in Lisbon?", "s4", "12 june"],
  ["Where will Clara go to medical school?", "s5", "edinburgh"],
  ["What caused the flaky payment test?", "s6", "redis"]
]
const UNRELATED = [
  "What is the weather in Paris tomorrow?",
  "How do I configure nginx as a reverse proxy?",
  "Explain the difference between TCP and UDP.",
  "What is the capital of Australia?",
  "How many calories are in a banana?",
  "Write a Python function to reverse a linked list.",
  "Who won the 1998 football world cup?",
  "How do I fix a segmentation fault in C?",
  "Recommend a laptop for machine learning.",
  "How do I set up a Kubernetes cluster?",
  "Translate good morning into Swedish.",
  "How does quantum entanglement work?",
  "How do I bake sourdough bread?",
  "What's the best way to learn Rust?",
  "How do I change a flat tire?",
  "Which planets have rings?",
  "What are the rules of castling in chess?",
  "How do vaccines work?",
  "Explain the CAP theorem.",
  "How many bones are in the human body?",
  "Wie spät ist es in Berlin?",
  "Quelle est la météo à Lyon demain ?",
  "¿Cuál es la capital de Perú?",
  "Come si prepara il tiramisù?",
  "How does a refrigerator work?"
]

const seed = Effect.forEach(SESSIONS, (s) =>
  Effect.gen(function* () {
    for (const [i, t] of s.turns.entries()) {
      const message: ChatMessage = {
        role: i % 2 === 0 ? "user" : "assistant",
        content: `[${i % 2 === 0 ? "Ben" : "Ana"}] ${t}`
      }
      yield* recordMessage(s.id, message, zone)
    }
    yield* endSession(s.id, zone)
  })
)

describe("hybrid recall (default configuration: local embedder, no model)", () => {
  it("finds the session that holds the answer, first, and shows the sentence that answers", async () => {
    const results = await Effect.runPromise(
      Effect.zipRight(
        seed,
        Effect.forEach(RELEVANT, ([q]) => recallDetailed(q))
      ).pipe(Effect.provide(appLayer()))
    )
    for (const [i, [q, session, answer]] of RELEVANT.entries()) {
      expect(results[i]!.episodes[0]?.sessionId, q).toBe(session)
      expect(results[i]!.block.toLowerCase(), q).toContain(answer)
    }
  })

  it("recalls nothing for questions about nothing remembered (at least 90 % of an unrelated set)", async () => {
    const blocks = await Effect.runPromise(
      Effect.zipRight(
        seed,
        Effect.forEach(UNRELATED, (q) => recallDetailed(q))
      ).pipe(Effect.provide(appLayer()))
    )
    const empty = blocks.filter((b) => b.block === "").length
    expect(empty / UNRELATED.length).toBeGreaterThanOrEqual(0.9)
  })

  it("keeps the block within its byte budget, whatever the query", async () => {
    const words = fc.array(
      fc.constantFrom(
        "dog",
        "Oscar",
        "beagle",
        "migration",
        "disk",
        "paint",
        "Lisbon",
        "Clara",
        "Redis",
        "mutex",
        "the",
        "what"
      ),
      { minLength: 1, maxLength: 8 }
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(words, { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 512, max: 1500 }),
        async (queries, budget) => {
          const results = await Effect.runPromise(
            Effect.zipRight(
              seed,
              Effect.forEach(queries, (q) => recallDetailed(q.join(" ")))
            ).pipe(Effect.provide(appLayer({ config: { recallBlockBytes: budget } })))
          )
          for (const r of results) expect(Buffer.byteLength(r.block)).toBeLessThanOrEqual(budget)
        }
      ),
      { numRuns: 30 }
    )
  })

  it(
    "search (the tool's) finds by the session's words too, " + "and nothing for an unrelated query without a model",
    async () => {
      const [found, none] = await Effect.runPromise(
        Effect.zipRight(
          seed,
          Effect.zip(searchEpisodes("redis connection pool race"), searchEpisodes("capital of Australia"))
        ).pipe(Effect.provide(appLayer()))
      )
      expect(found[0]?.sessionId).toBe("s6")
      expect(found[0]?.passages?.join(" ")).toMatch(/Redis connection pool/)
      expect(none).toEqual([])
    }
  )

  it("recall_floor and recall_block_bytes are settings with sane bounds", () => {
    const read = (memory: Record<string, unknown>) => {
      const c = decodeConfig({ memory })
      return c._tag === "Right" ? [c.right.recallFloor, c.right.recallBlockBytes] : c.left.message
    }
    expect(read({})).toEqual([0.2, 2048])
    expect(read({ recall_floor: 0, recall_block_bytes: 100 })).toEqual([0, 512])
    expect(read({ recall_floor: 3 })).toEqual([1, 2048])
    expect(read({ recall_block_bytes: 1.5 })).toMatch(/^config: memory.recall_block_bytes must be a whole number/)
  })
})
