import { describe, expect, it } from "vitest"
import {
  type AssociationMap,
  associationsJson,
  linksFor,
  parseAssociations,
  withLinks,
  withoutAtoms
} from "../../../src/domain/atoms/associations.js"
import type { Atom, AtomContext, AtomType } from "../../../src/domain/atoms/atom.js"

const atom = (
  id: string,
  context: AtomContext = {},
  type: AtomType = "fact",
  source_class = "user_approved"
): Atom => ({
  id,
  text: `text of ${id}`,
  source_class,
  type,
  created_at: "2026-01-01T00:00:00.000Z",
  context
})

const inSession = (id: string, turn: number | undefined, session_id = "s1") =>
  atom(id, turn === undefined ? { session_id } : { session_id, turn })

describe("linksFor: temporal (§13.1)", () => {
  const self = inSession("self", 5)

  it("links atoms of the same session at most two turns apart, either way", () => {
    const live = [3, 4, 5, 6, 7].map((t) => inSession(`t${t}`, t))
    expect(linksFor(self, [self, ...live], [], 0.55)).toStrictEqual(["t3", "t4", "t5", "t6", "t7"])
  })

  it("does not link three turns apart", () => {
    const live = [inSession("t2", 2), inSession("t8", 8)]
    expect(linksFor(self, live, [], 0.55)).toStrictEqual([])
  })

  it("does not link another session, and an empty session links nothing", () => {
    expect(linksFor(self, [inSession("other", 5, "s2"), atom("none", { turn: 5 })], [], 0.55)).toStrictEqual([])
    const blank = inSession("blank", 5, "")
    expect(linksFor(blank, [inSession("b2", 5, ""), atom("none", { turn: 5 })], [], 0.55)).toStrictEqual([])
    const noSession = atom("ns", { turn: 5 })
    expect(linksFor(noSession, [atom("ns2", { turn: 5 })], [], 0.55)).toStrictEqual([])
  })

  it("reads a missing turn as turn 0, as odek omits it", () => {
    const first = inSession("first", undefined)
    expect(
      linksFor(first, [inSession("t2", 2), inSession("t3", 3), inSession("t0", undefined)], [], 0.55)
    ).toStrictEqual(["t0", "t2"])
  })
})

describe("linksFor: task (§13.1)", () => {
  const goal = atom("goal", { project: "p" }, "goal")
  const live = [
    atom("decision", { project: "p" }, "decision"),
    atom("convention", { project: "p" }, "convention"),
    atom("intent", { project: "p" }, "intent"),
    atom("goal2", { project: "p" }, "goal"),
    atom("fact", { project: "p" }, "fact"),
    atom("question", { project: "p" }, "question"),
    atom("elsewhere", { project: "q" }, "goal"),
    atom("unscoped", {}, "goal")
  ]

  it("links a task atom to every task atom of its project, and nothing else", () => {
    expect(linksFor(goal, [goal, ...live], [], 0.55)).toStrictEqual(["convention", "decision", "goal2", "intent"])
  })

  it("each task type links", () => {
    for (const type of ["goal", "decision", "convention", "intent"] as const)
      expect(linksFor(atom("x", { project: "p" }, type), live, [], 0.55)).toContain("goal2")
  })

  it("a non-task atom, or one without a project, gets no task links", () => {
    expect(linksFor(atom("f", { project: "p" }, "fact"), live, [], 0.55)).toStrictEqual([])
    expect(linksFor(atom("g", {}, "goal"), live, [], 0.55)).toStrictEqual([])
    expect(linksFor(atom("g", { project: "" }, "goal"), [atom("h", { project: "" }, "goal")], [], 0.55)).toStrictEqual(
      []
    )
  })
})

describe("linksFor: semantic (§13.1)", () => {
  const self = atom("self")
  const live = [self, atom("a"), atom("b"), atom("c"), atom("web", {}, "fact", "web")]

  it("links neighbours scoring at least the minimum, the minimum itself included", () => {
    const neighbours = [
      { id: "a", score: 0.9 },
      { id: "b", score: 0.55 },
      { id: "c", score: 0.5499 }
    ]
    expect(linksFor(self, live, neighbours, 0.55)).toStrictEqual(["a", "b"])
  })

  it("never links itself, an atom no longer live, or a tainted one", () => {
    const neighbours = [
      { id: "self", score: 1 },
      { id: "gone", score: 0.99 },
      { id: "web", score: 0.99 }
    ]
    expect(linksFor(self, live, neighbours, 0.55)).toStrictEqual([])
  })
})

describe("linksFor: combined", () => {
  it("is sorted and unique across kinds", () => {
    const self = atom("m", { session_id: "s", turn: 1, project: "p" }, "goal")
    const live = [
      atom("z", { session_id: "s", turn: 2, project: "p" }, "decision"),
      atom("b", { session_id: "s", turn: 9 }),
      atom("a", { project: "p" }, "intent")
    ]
    const neighbours = [
      { id: "z", score: 0.9 },
      { id: "b", score: 0.9 },
      { id: "z", score: 0.8 }
    ]
    expect(linksFor(self, live, neighbours, 0.55)).toStrictEqual(["a", "b", "z"])
  })

  it("links no tainted atom by any kind, and a tainted atom to nothing", () => {
    const self = atom("m", { session_id: "s", turn: 1, project: "p" }, "goal")
    const tainted = atom("t", { session_id: "s", turn: 1, project: "p" }, "goal", "tool_output")
    const unknown = atom("u", { session_id: "s", turn: 1, project: "p" }, "goal", "mystery")
    expect(linksFor(self, [tainted, unknown], [{ id: "t", score: 1 }], 0.55)).toStrictEqual([])
    expect(linksFor(tainted, [self], [{ id: "m", score: 1 }], 0.55)).toStrictEqual([])
  })

  it("empty live store → no links", () => {
    expect(
      linksFor(atom("m", { session_id: "s", project: "p" }, "goal"), [], [{ id: "x", score: 1 }], 0)
    ).toStrictEqual([])
  })
})

const mapOf = (entries: Record<string, ReadonlyArray<string>>): AssociationMap => new Map(Object.entries(entries))

describe("withLinks / withoutAtoms (§13.1, §13.3)", () => {
  it("stores every link both ways, sorted and unique", () => {
    const map = withLinks(mapOf({ b: ["x"] }), "m", ["b", "a", "b"])
    expect(map).toStrictEqual(mapOf({ b: ["m", "x"], m: ["a", "b"], a: ["m"] }))
  })

  it("merges with the atom's existing links", () => {
    const map = withLinks(withLinks(new Map(), "m", ["c"]), "m", ["a"])
    expect(map.get("m")).toStrictEqual(["a", "c"])
    expect(map.get("a")).toStrictEqual(["m"])
    expect(map.get("c")).toStrictEqual(["m"])
  })

  it("ignores a self-link; no links leaves the map as it is", () => {
    const start = mapOf({ a: ["b"], b: ["a"] })
    expect(withLinks(start, "m", [])).toBe(start)
    expect(withLinks(start, "m", ["m"])).toBe(start)
    expect(withLinks(start, "m", ["m", "a"])).toStrictEqual(mapOf({ a: ["b", "m"], b: ["a"], m: ["a"] }))
  })

  it("does not change the map it was given", () => {
    const start = mapOf({ a: ["b"], b: ["a"] })
    withLinks(start, "a", ["c"])
    withoutAtoms(start, ["a"])
    expect(start).toStrictEqual(mapOf({ a: ["b"], b: ["a"] }))
  })

  it("removes the atoms and every link to them; an atom left with no link drops out", () => {
    const map = mapOf({ a: ["b", "c"], b: ["a"], c: ["a", "d"], d: ["c"] })
    expect(withoutAtoms(map, ["a"])).toStrictEqual(mapOf({ c: ["d"], d: ["c"] }))
    expect(withoutAtoms(map, new Set(["a", "c"]))).toStrictEqual(new Map())
    expect(withoutAtoms(map, ["unknown"])).toStrictEqual(map)
    expect(withoutAtoms(map, [])).toStrictEqual(map)
  })
})

describe("associations.json (§13.2)", () => {
  it("writes sorted keys and links, 2-space indented", () => {
    const map = mapOf({ b: ["c", "a"], a: ["b"], c: ["b"] })
    expect(associationsJson(map)).toBe(
      '{\n  "a": [\n    "b"\n  ],\n  "b": [\n    "a",\n    "c"\n  ],\n  "c": [\n    "b"\n  ]\n}'
    )
  })

  it("matches JSON.stringify's layout for ordinary ids", () => {
    const map = mapOf({ beta: ["alpha"], alpha: ["beta", "gamma"], gamma: ["alpha"] })
    expect(associationsJson(map)).toBe(
      JSON.stringify({ alpha: ["beta", "gamma"], beta: ["alpha"], gamma: ["alpha"] }, null, 2)
    )
  })

  it("keeps integer-like ids in sorted order (an object would move them first)", () => {
    const map = mapOf({ b: ["42"], "42": ["b", "100"], "100": ["42"] })
    const keys = [...associationsJson(map).matchAll(/^ {2}"([^"]+)": \[$/gm)].map((m) => m[1])
    expect(keys).toStrictEqual(["100", "42", "b"])
  })

  it("omits atoms without links and drops invalid ids on save; an empty map is {}", () => {
    expect(associationsJson(new Map())).toBe("{}")
    expect(associationsJson(mapOf({ a: [], "../x": ["a"], b: ["a/b", "c"] }))).toBe('{\n  "b": [\n    "c"\n  ]\n}')
    expect(associationsJson(mapOf({ a: ["a"] }))).toBe("{}")
  })

  it("reads back what it writes", () => {
    const map = withLinks(withLinks(new Map(), "m", ["a", "b"]), "c", ["a"])
    expect(parseAssociations(associationsJson(map))).toStrictEqual(map)
  })

  it("invalid JSON, or JSON that is not an object, reads as no links", () => {
    for (const text of ["", "{", "not json", "[]", '["a"]', "null", "42", '"a"'])
      expect(parseAssociations(text)).toStrictEqual(new Map())
  })

  it("drops invalid ids, non-string links, non-array entries and self-links on load", () => {
    const text = JSON.stringify({
      a: ["b", "../etc", "", 7, null, "a", "c", "b"],
      "../evil": ["a"],
      "with space": ["a"],
      b: "a",
      c: { a: true },
      d: ["a"],
      e: []
    })
    expect(parseAssociations(text)).toStrictEqual(mapOf({ a: ["b", "c"], d: ["a"] }))
  })

  it("reads an id named __proto__ as an ordinary id", () => {
    const map = parseAssociations('{"__proto__": ["a"], "a": ["__proto__"]}')
    expect(map.get("__proto__")).toStrictEqual(["a"])
    expect(map.get("a")).toStrictEqual(["__proto__"])
    expect(parseAssociations(associationsJson(map))).toStrictEqual(map)
  })
})
