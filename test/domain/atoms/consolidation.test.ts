import { describe, expect, it } from "vitest"
import type { Atom } from "../../../src/domain/atoms/atom.js"
import {
  CONSOLIDATION_SYSTEM_PROMPT,
  consolidationGroups,
  consolidationRequest,
  mergedAtom,
  mergedText
} from "../../../src/domain/atoms/consolidation.js"

const ids = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `a${i}` }))

describe("consolidationGroups (§12.1)", () => {
  it("groups atoms whose cosine to the seed reaches the threshold, in listing order", () => {
    const vectors = [
      [1, 0],
      [0, 1],
      [1, 0.01],
      [0.01, 1],
      [1, 0]
    ]
    expect(consolidationGroups(ids(5), vectors, 0.9)).toStrictEqual([
      [0, 2, 4],
      [1, 3]
    ])
  })

  it("compares with the seed, not with the other members (no chaining)", () => {
    // cos(a, b) ≈ 0.92, cos(b, c) ≈ 0.92, cos(a, c) ≈ 0.71: c does not join a's group although it is close to b
    const a = [1, 0]
    const b = [Math.cos(Math.PI / 8), Math.sin(Math.PI / 8)]
    const c = [Math.cos(Math.PI / 4), Math.sin(Math.PI / 4)]
    expect(consolidationGroups(ids(3), [a, b, c], 0.9)).toStrictEqual([[0, 1]])
  })

  it("a seed absorbs only later atoms; an atom left alone is not returned", () => {
    const vectors = [
      [0, 1],
      [1, 0],
      [1, 0]
    ]
    expect(consolidationGroups(ids(3), vectors, 0.9)).toStrictEqual([[1, 2]])
  })

  it("an atom already grouped is not taken by a later seed", () => {
    // 1 is close to both 0 and 2, but 0 seeds first and takes it; 2 then has no partner
    const vectors = [
      [1, 0],
      [Math.cos(Math.PI / 8), Math.sin(Math.PI / 8)],
      [Math.cos(Math.PI / 4), Math.sin(Math.PI / 4)],
      [0, 1]
    ]
    expect(consolidationGroups(ids(4), vectors, 0.9)).toStrictEqual([[0, 1]])
  })

  it("a cosine equal to the threshold joins", () => {
    const vectors = [
      [1, 2, 3],
      [2, 4, 6]
    ]
    expect(consolidationGroups(ids(2), vectors, 1)).toStrictEqual([[0, 1]])
    expect(
      consolidationGroups(
        ids(2),
        [
          [1, 0],
          [0.6, 0.8]
        ],
        0.6
      )
    ).toStrictEqual([[0, 1]])
  })

  it("no atoms, one atom, or nothing similar → no groups", () => {
    expect(consolidationGroups([], [], 0.9)).toStrictEqual([])
    expect(consolidationGroups(ids(1), [[1, 0]], 0.9)).toStrictEqual([])
    expect(
      consolidationGroups(
        ids(2),
        [
          [1, 0],
          [0, 1]
        ],
        0.9
      )
    ).toStrictEqual([])
  })

  it("an atom without a vector, or with a zero one, is never grouped", () => {
    expect(consolidationGroups(ids(3), [[], [1, 0], [1, 0]], 0.9)).toStrictEqual([[1, 2]])
    expect(consolidationGroups(ids(3), [[1, 0]], 0.9)).toStrictEqual([])
    expect(consolidationGroups(ids(2), [[1, 0], []], 0)).toStrictEqual([])
    expect(
      consolidationGroups(
        ids(3),
        [
          [0, 0],
          [1, 0],
          [1, 0]
        ],
        0.9
      )
    ).toStrictEqual([[1, 2]])
  })

  it("accepts Float32Array vectors", () => {
    const v = Float32Array.from([0.5, 0.5])
    expect(consolidationGroups(ids(2), [v, v], 0.9)).toStrictEqual([[0, 1]])
  })
})

describe("consolidationRequest (§12.2)", () => {
  it("is exactly the spec's prompt with the texts numbered from 1", () => {
    expect(consolidationRequest(["User prefers tea", "The user likes tea"])).toStrictEqual({
      system: "You are a memory consolidation system. Return only the merged statement.",
      user:
        "You are a memory consolidation system. The following memory atoms are near-duplicates of the same fact. " +
        "Merge them into a single concise statement that preserves all durable information. Return only the merged " +
        "statement, nothing else.\n\n1. User prefers tea\n2. The user likes tea\n"
    })
    expect(CONSOLIDATION_SYSTEM_PROMPT).toBe("You are a memory consolidation system. Return only the merged statement.")
  })

  it("numbers past 9 and keeps texts as they are", () => {
    const texts = Array.from({ length: 11 }, (_, i) => `t${i}`)
    const user = consolidationRequest(texts).user
    expect(user.endsWith("\n10. t9\n11. t10\n")).toBe(true)
  })
})

describe("mergedText (§12.3)", () => {
  it("trims the reply", () => {
    expect(mergedText("  User prefers green tea.\n")).toBe("User prefers green tea.")
  })

  it("a blank reply is no merge", () => {
    for (const reply of ["", "   ", "\n\t\n", "```\n\n```", '""', "``` ```", "“ ”"])
      expect(mergedText(reply)).toBe(undefined)
  })

  it("removes a surrounding code fence, with or without an info string", () => {
    expect(mergedText("```\nUser prefers tea\n```")).toBe("User prefers tea")
    expect(mergedText("```text\nUser prefers tea\n```")).toBe("User prefers tea")
    expect(mergedText("```User prefers tea```")).toBe("User prefers tea")
    expect(mergedText("  ```markdown\n  User prefers tea  \n```  ")).toBe("User prefers tea")
  })

  it("keeps a first line with words inside a fence", () => {
    expect(mergedText("```User prefers tea\nand biscuits```")).toBe("User prefers tea\nand biscuits")
  })

  it("removes one pair of surrounding quotes", () => {
    expect(mergedText('"User prefers tea"')).toBe("User prefers tea")
    expect(mergedText("'User prefers tea'")).toBe("User prefers tea")
    expect(mergedText("“User prefers tea”")).toBe("User prefers tea")
    expect(mergedText("`User prefers tea`")).toBe("User prefers tea")
    expect(mergedText('```\n"User prefers tea"\n```')).toBe("User prefers tea")
  })

  it("keeps quotes that quote only part of the statement", () => {
    expect(mergedText('"Tea" is preferred over "coffee"')).toBe('"Tea" is preferred over "coffee"')
    expect(mergedText("'User's tea is green'")).toBe("'User's tea is green'")
    expect(mergedText('User says "tea"')).toBe('User says "tea"')
  })
})

const member = (id: string, extra: Partial<Atom> = {}): Atom => ({
  id,
  text: `text of ${id}`,
  source_class: "user_approved",
  type: "fact",
  created_at: "2026-01-01T00:00:00.000Z",
  context: {},
  ...extra
})
const NOW = "2026-03-01T12:00:00.000Z"

describe("mergedAtom (§12.3, §12.4)", () => {
  it("is based on the most confident member, with a new id, the merged text and created_at = now", () => {
    const members = [
      member("a", { confidence: 0.6, type: "fact" }),
      member("b", {
        confidence: 0.9,
        type: "preference",
        context: { session_id: "s", turn: 4, project: "p" },
        created_at: "2025-01-01T00:00:00.000Z"
      }),
      member("c", { confidence: 0.7, type: "goal" })
    ]
    expect(mergedAtom(members, "User prefers tea", "new1", NOW, [])).toStrictEqual({
      id: "new1",
      text: "User prefers tea",
      source_class: "user_approved",
      type: "preference",
      created_at: NOW,
      context: { session_id: "s", turn: 4, project: "p" },
      confidence: 0.9
    })
  })

  it("on a confidence tie the earliest member is the base", () => {
    const members = [
      member("a", { confidence: 0.5 }),
      member("b", { confidence: 0.8, type: "goal" }),
      member("c", { confidence: 0.8, type: "decision" })
    ]
    expect(mergedAtom(members, "t", "n", NOW, []).type).toBe("goal")
  })

  it("a missing confidence counts as 1.0", () => {
    const members = [member("a", { confidence: 0.99, type: "goal" }), member("b", { type: "decision" })]
    const merged = mergedAtom(members, "t", "n", NOW, [])
    expect(merged.type).toBe("decision")
    expect(merged).not.toHaveProperty("confidence")
    const tie = [member("a", { type: "goal" }), member("b", { confidence: 1, type: "decision" })]
    expect(mergedAtom(tie, "t", "n", NOW, []).type).toBe("goal")
  })

  it("carries the base's source class", () => {
    const members = [member("a", { confidence: 0.9, source_class: "user_said" }), member("b", { confidence: 0.4 })]
    expect(mergedAtom(members, "t", "n", NOW, []).source_class).toBe("user_said")
    expect(
      mergedAtom([members[1]!, member("c", { confidence: 0.3, source_class: "user_said" })], "t", "n", NOW, [])
    ).toHaveProperty("source_class", "user_approved")
  })

  it("is pinned when any member is, even a less confident one (v1.15 loses that pin)", () => {
    const members = [member("a", { confidence: 0.9 }), member("b", { confidence: 0.2, pin: true })]
    expect(mergedAtom(members, "t", "n", NOW, []).pin).toBe(true)
    expect(mergedAtom([member("a", { pin: true }), member("b")], "t", "n", NOW, []).pin).toBe(true)
  })

  it("is unpinned, without a pin member, when no member is pinned", () => {
    const merged = mergedAtom([member("a", { pin: false }), member("b")], "t", "n", NOW, [])
    expect(merged).not.toHaveProperty("pin")
  })

  it("relates to the links leaving the group, sorted and unique, replacing the base's own", () => {
    const members = [
      member("a", { confidence: 0.9, context: { session_id: "s", related_atom_ids: ["old", "b"] } }),
      member("b", { confidence: 0.1 })
    ]
    const merged = mergedAtom(members, "t", "n", NOW, ["z", "c", "z", "a", "b", "n", "c"])
    expect(merged.context).toStrictEqual({ session_id: "s", related_atom_ids: ["c", "z"] })
  })

  it("without outside links it has no related_atom_ids", () => {
    const members = [member("a", { context: { related_atom_ids: ["b"] } }), member("b")]
    expect(mergedAtom(members, "t", "n", NOW, []).context).toStrictEqual({})
    expect(mergedAtom(members, "t", "n", NOW, ["a", "b"]).context).toStrictEqual({})
  })

  it("does not change the members", () => {
    const a = member("a", { confidence: 0.9, context: { project: "p", related_atom_ids: ["x"] } })
    const copy = structuredClone(a)
    mergedAtom([a, member("b")], "t", "n", NOW, ["y"])
    expect(a).toStrictEqual(copy)
  })

  it("refuses an empty group", () => {
    expect(() => mergedAtom([], "t", "n", NOW, [])).toThrow()
  })
})
