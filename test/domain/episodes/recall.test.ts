import { describe, expect, it } from "vitest"
import {
  formatEpisodeContext,
  parseRanking,
  rankerPrompt,
  RECALL_KEEP,
  RECALL_OVERFETCH,
  RECALL_RAW_HITS,
  recallQuery,
  searchToolMessage
} from "../../../src/domain/episodes/recall.js"
import { utf8Bytes } from "../../../src/domain/text/utf8.js"

const a = { sessionId: "20260722-aaaa", turns: 5, preview: "The user asked to fix the tokenizer crash." }
const b = { sessionId: "20260721-bbbb", turns: 3, preview: "The agent added retry logic to the HTTP client." }
const c = { sessionId: "20260720-cccc", turns: 12, preview: "日本語 preview..." }
const d = { sessionId: "20260719-dddd", turns: 4, preview: "Fourth." }

describe("recall constants (§7.4)", () => {
  it("over-fetches 8, keeps 3, asks the index for 3·8 + 5", () => {
    expect([RECALL_OVERFETCH, RECALL_KEEP, RECALL_RAW_HITS]).toEqual([8, 3, 29])
  })
})

describe("recallQuery (§7.1)", () => {
  it("is the latest user message, then each remaining plan step title on its own line", () => {
    const steps = [
      { title: "Read the lexer", status: "done" },
      { title: "Fix the crash", status: "in_progress" },
      { title: "Add tests", status: "pending" }
    ]
    expect(recallQuery("continue with the tokenizer", steps)).toBe(
      "continue with the tokenizer\nFix the crash\nAdd tests"
    )
  })

  it("is the message alone without a plan or when every step is done", () => {
    expect(recallQuery("hello", [])).toBe("hello")
    expect(recallQuery("hello", [{ title: "x", status: "done" }])).toBe("hello")
  })
})

describe("formatEpisodeContext (§7.5)", () => {
  it("renders the block byte for byte", () => {
    expect(formatEpisodeContext([a, b, c])).toBe(
      "\n\u2550\u2550\u2550 RELEVANT PAST SESSIONS \u2550\u2550\u2550\n" +
        "Summaries of past sessions related to the current task:\n" +
        "\u2022 [20260722-aaaa] (5 turns): The user asked to fix the tokenizer crash.\n" +
        "\u2022 [20260721-bbbb] (3 turns): The agent added retry logic to the HTTP client.\n" +
        "\u2022 [20260720-cccc] (12 turns): 日本語 preview...\n" +
        "\u2500".repeat(33) +
        "\n" +
        "Use this context to recall past decisions, fixes, and discussions.\n"
    )
  })

  it("uses U+2550 ×3 each side, U+2022 bullets and a 33 × U+2500 rule", () => {
    const out = formatEpisodeContext([a])
    expect(out.startsWith("\n═══ RELEVANT PAST SESSIONS ═══\n")).toBe(true)
    expect([...out.matchAll(/\u2550/g)]).toHaveLength(6)
    expect(out).toContain(`\n${"─".repeat(33)}\n`)
    expect(out).not.toContain("─".repeat(34))
    expect(out).toContain("\n• [20260722-aaaa] (5 turns): ")
    expect(utf8Bytes("•")).toBe(3)
  })

  it("is empty without episodes and shows at most three", () => {
    expect(formatEpisodeContext([])).toBe("")
    const out = formatEpisodeContext([a, b, c, d])
    expect(out).not.toContain("dddd")
    expect([...out.matchAll(/^• /gm)]).toHaveLength(3)
  })
})

describe("rankerPrompt (§8.2)", () => {
  it("writes the exact system and user text", () => {
    const p = rankerPrompt("tokenizer crash", ["first preview", "second preview"])
    expect(p.system).toBe(
      "You are a relevance ranking system. Given a query and a list of items, return the indices of the most " +
        "relevant items ordered by relevance. Return only a comma-separated list of numbers or the word 'none'."
    )
    expect(p.user).toBe(
      "Rank these memory summaries by relevance to: tokenizer crash\n\n" +
        "[0] first preview\n" +
        "[1] second preview\n" +
        "\nReturn only the indices of the most relevant entries, ordered by relevance (most relevant first).\n" +
        'Format: a single line of comma-separated numbers, e.g. "3,0,1"\n' +
        'If none are relevant, return "none".'
    )
  })

  it("cuts previews over 200 bytes to 197 + ... without splitting a character", () => {
    const exact = "é".repeat(100)
    expect(rankerPrompt("q", [exact]).user).toContain(`[0] ${exact}\n`)
    expect(rankerPrompt("q", [`${"a".repeat(196)}€tail`]).user).toContain(`[0] ${"a".repeat(196)}...\n`)
    expect(rankerPrompt("q", [`${"a".repeat(194)}€tail`]).user).toContain(`[0] ${"a".repeat(194)}€...\n`)
  })
})

describe("parseRanking (§8.2)", () => {
  it("reads an order of in-range indices, first occurrence kept", () => {
    expect(parseRanking("2,0,1", 3)).toEqual({ kind: "order", indices: [2, 0, 1] })
    expect(parseRanking(" 1 , 1, 0 ,", 3)).toEqual({ kind: "order", indices: [1, 0] })
    expect(parseRanking("[2], #0, 7, -1", 3)).toEqual({ kind: "order", indices: [2, 0, 1] })
    expect(parseRanking("Indices: 3,0", 4)).toEqual({ kind: "order", indices: [3, 0] })
  })

  it("skips parts without digits instead of reading them as 0", () => {
    expect(parseRanking("x, 2, y", 3)).toEqual({ kind: "order", indices: [2] })
    expect(parseRanking("none, 1", 3)).toEqual({ kind: "order", indices: [1] })
  })

  it("concatenates a part's digits, as the reference does", () => {
    expect(parseRanking("1 and 2", 20)).toEqual({ kind: "order", indices: [12] })
  })

  it("reads `none` in any case as nothing relevant", () => {
    for (const r of ["none", "NONE", "None", "  none\n"]) expect(parseRanking(r, 3)).toEqual({ kind: "none" })
  })

  it("is unusable when blank or without a valid index", () => {
    for (const r of ["", "   ", "none.", "no idea", "x,y", "5", "3", "99999999999999999999", ","])
      expect(parseRanking(r, 3), r).toEqual({ kind: "unusable" })
    expect(parseRanking("0", 0)).toEqual({ kind: "unusable" })
  })
})

describe("searchToolMessage (§8.5)", () => {
  it("says so when nothing matched", () => {
    expect(searchToolMessage([])).toBe("no matching episodes found")
  })

  it("lists each result with its turns and preview", () => {
    expect(searchToolMessage([a, b])).toBe(
      "Found 2 matching episode(s):\n\n" +
        "• 20260722-aaaa (5 turns)\n  The user asked to fix the tokenizer crash.\n\n" +
        "• 20260721-bbbb (3 turns)\n  The agent added retry logic to the HTTP client.\n\n"
    )
    expect(searchToolMessage([d])).toBe("Found 1 matching episode(s):\n\n• 20260719-dddd (4 turns)\n  Fourth.\n\n")
  })
})
