import { Either, FastCheck as fc, Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  Atom,
  ATOM_TYPES,
  AtomType,
  atomIdProblem,
  cutAtomText,
  InvalidAtom,
  isAtomType,
  isTrustedClass,
  normalisedText,
  normaliseAtom,
  retention,
  SourceClass,
  truncate,
  validAtomId
} from "../../../src/domain/atoms/atom.js"
import { hasLoneSurrogate, utf8Bytes } from "../../../src/domain/text/utf8.js"

const NOW = "2026-03-01T12:00:00.000Z"
const NOW_MS = Date.parse(NOW)
const DAY = 86_400_000
const ID = "0123456789abcdef0123456789abcdef"
const normalised = (input: Parameters<typeof normaliseAtom>[0]) => Either.getOrThrow(normaliseAtom(input, NOW, ID))

describe("atom types and source classes (§2.2, §3.1)", () => {
  it("has the nine types plus legacy observation", () => {
    expect(ATOM_TYPES).toEqual([
      "fact",
      "preference",
      "intent",
      "decision",
      "goal",
      "convention",
      "file",
      "error",
      "question"
    ])
    expect(AtomType.literals).toEqual([...ATOM_TYPES, "observation"])
    expect(isAtomType("observation")).toBe(true)
    expect(isAtomType("Fact")).toBe(false)
    expect(isAtomType("")).toBe(false)
  })

  it("trusts user_said and user_approved only; unknown classes are tainted (fail closed)", () => {
    expect(SourceClass.literals.filter(isTrustedClass)).toEqual(["user_said", "user_approved"])
    for (const cls of ["inferred", "tool_output", "file_read", "web", "mcp", "subagent", "agent_generated"])
      expect(isTrustedClass(cls)).toBe(false)
    for (const cls of ["foo", "", "USER_SAID", "user_approved "]) expect(isTrustedClass(cls)).toBe(false)
  })
})

describe("atom ids (§2.1 path safety, and at most 64 plain characters)", () => {
  it("accepts odek's 32 hex digits and short words", () => {
    for (const id of [ID, "a", "A-b_9", "x".repeat(64)]) expect(validAtomId(id)).toBe(true)
  })

  it("refuses every unsafe or oversized id", () => {
    for (const id of ["", ".", "..", "a/b", "a\\b", "a..b", "a\u0000b", "x".repeat(65), "a b", "é", "a.b", "a\n"])
      expect(validAtomId(id)).toBe(false)
    expect(atomIdProblem("../x")).toBe('"../x" is not a valid id: use 1-64 letters, digits, - and _')
    expect(atomIdProblem("a\u0000")).toBe('"a\\x00" is not a valid id: use 1-64 letters, digits, - and _')
  })

  it("the Atom schema refuses an atom whose id is unsafe", () => {
    const atom = { id: "../etc", text: "t", source_class: "user_approved", type: "fact", created_at: NOW, context: {} }
    expect(Either.isLeft(Schema.decodeUnknownEither(Atom)(atom))).toBe(true)
    expect(Either.isRight(Schema.decodeUnknownEither(Atom)({ ...atom, id: ID }))).toBe(true)
  })

  it("the Atom schema keeps a class it does not know (it is tainted, not corrupt) and odek's nanoseconds", () => {
    const atom = {
      id: ID,
      text: "t",
      source_class: "foo",
      type: "goal",
      created_at: "2024-05-06T07:08:09.123456789Z",
      context: { session_id: "s", turn: 3, project: "p", related_atom_ids: ["b"] },
      pin: true,
      confidence: 0.5
    }
    const json = JSON.stringify(atom)
    expect(JSON.stringify(Schema.encodeSync(Atom)(Schema.decodeUnknownSync(Atom)(JSON.parse(json))))).toBe(json)
  })
})

describe("normaliseAtom (§2.3, §3.3)", () => {
  it("fills the defaults: fact, user_approved, confidence 1, now, the fresh id, an empty context", () => {
    expect(normalised({ text: "User prefers tea" })).toStrictEqual({
      id: ID,
      text: "User prefers tea",
      source_class: "user_approved",
      type: "fact",
      created_at: NOW,
      context: {},
      confidence: 1
    })
  })

  it("empty type → fact, unknown type → observation, known types kept", () => {
    expect(normalised({ text: "t", type: "" }).type).toBe("fact")
    expect(normalised({ text: "t", type: "musing" }).type).toBe("observation")
    expect(normalised({ text: "t", type: "Goal" }).type).toBe("observation")
    expect(normalised({ text: "t", type: "observation" }).type).toBe("observation")
    for (const type of ATOM_TYPES) expect(normalised({ text: "t", type }).type).toBe(type)
  })

  it("user_said and an empty source become user_approved; every other class is kept as given", () => {
    expect(normalised({ text: "t", source_class: "user_said" }).source_class).toBe("user_approved")
    expect(normalised({ text: "t", source_class: "" }).source_class).toBe("user_approved")
    expect(normalised({ text: "t", source_class: "web" }).source_class).toBe("web")
    expect(normalised({ text: "t", source_class: "foo" }).source_class).toBe("foo")
  })

  it("confidence ≤ 0, > 1 or NaN → 1.0; (0, 1] kept", () => {
    for (const c of [0, -0.5, 1.0001, 7, Number.NaN])
      expect(normalised({ text: "t", confidence: c }).confidence).toBe(1)
    for (const c of [0.0001, 0.7, 1]) expect(normalised({ text: "t", confidence: c }).confidence).toBe(c)
  })

  it("a zero, empty or unreadable created_at becomes now; a real one is kept byte for byte", () => {
    for (const t of ["", "0001-01-01T00:00:00Z", "yesterday", "2024-13-45T99:99:99Z"])
      expect(normalised({ text: "t", created_at: t }).created_at).toBe(NOW)
    for (const t of ["2024-05-06T07:08:09.123456789Z", "2024-05-06T07:08:09+02:00"])
      expect(normalised({ text: "t", created_at: t }).created_at).toBe(t)
  })

  it("keeps a valid caller id, context and a pin; a false pin is omitted as odek omits it", () => {
    const a = normalised({ id: "mine-1", text: "t", pin: true, context: { turn: 2, project: "p" } })
    expect(a).toMatchObject({ id: "mine-1", pin: true, context: { turn: 2, project: "p" } })
    expect("pin" in normalised({ text: "t", pin: false })).toBe(false)
  })

  it("refuses empty text and an unsafe caller id", () => {
    expect(normaliseAtom({ text: " \n\t" }, NOW, ID)).toStrictEqual(
      Either.left(new InvalidAtom({ reason: "empty text", id: ID }))
    )
    const bad = normaliseAtom({ id: "../../etc/passwd", text: "t" }, NOW, ID)
    expect(bad).toStrictEqual(Either.left(new InvalidAtom({ reason: "invalid id", id: "../../etc/passwd" })))
    expect(Either.isLeft(bad) && bad.left.message).toBe(
      'invalid atom_id: "../../etc/passwd" is not a valid id: use 1-64 letters, digits, - and _'
    )
    expect(new InvalidAtom({ reason: "empty text", id: ID }).message).toBe("extended memory: empty atom text")
  })

  it("its output always decodes as an Atom", () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            text: fc.string({ minLength: 1 }),
            type: fc.constantFrom("", "fact", "goal", "weird", "observation"),
            source_class: fc.constantFrom("", "user_said", "web", "foo"),
            confidence: fc.double(),
            created_at: fc.constantFrom("", "0001-01-01T00:00:00Z", "2024-01-01T00:00:00Z", "junk")
          },
          { requiredKeys: ["text"] }
        ),
        (input) => {
          const r = normaliseAtom(input, NOW, ID)
          if (Either.isLeft(r)) {
            expect(r.left.reason).toBe("empty text")
            return
          }
          expect(Schema.is(Atom)(r.right)).toBe(true)
          expect(r.right.confidence).toBeGreaterThan(0)
          expect(r.right.confidence).toBeLessThanOrEqual(1)
          expect(r.right.source_class).not.toBe("user_said")
        }
      ),
      { numRuns: 500 }
    )
  })
})

describe("retention (§7.2)", () => {
  const atom = (over: Partial<Atom> = {}) => ({
    source_class: "user_approved",
    created_at: NOW,
    confidence: 0.8,
    ...over
  })
  const daysAgo = (d: number) => new Date(NOW_MS - d * DAY).toISOString()

  it("is confidence × trust × 0.5^(age / half-life)", () => {
    expect(retention(atom(), NOW_MS, 30)).toBe(0.8)
    expect(retention(atom({ created_at: daysAgo(30) }), NOW_MS, 30)).toBeCloseTo(0.4, 12)
    expect(retention(atom({ created_at: daysAgo(60) }), NOW_MS, 30)).toBeCloseTo(0.2, 12)
    expect(retention(atom({ created_at: daysAgo(10) }), NOW_MS, 10)).toBeCloseTo(0.4, 12)
    expect(retention(atom({ created_at: daysAgo(15), source_class: "user_said" }), NOW_MS, 30)).toBeCloseTo(
      0.8 * Math.SQRT1_2,
      12
    )
  })

  it("tainted and unknown classes score 0 whatever their age and confidence", () => {
    for (const source_class of ["web", "inferred", "foo", ""])
      expect(retention(atom({ source_class, confidence: 1 }), NOW_MS, 30)).toBe(0)
  })

  it("clamps confidence: ≤ 0, > 1 or absent count as 1", () => {
    for (const confidence of [0, -1, 2, undefined])
      expect(retention(atom({ confidence } as Partial<Atom>), NOW_MS, 30)).toBe(1)
  })

  it("a future or zero age decays nothing", () => {
    expect(retention(atom({ created_at: new Date(NOW_MS + 5 * DAY).toISOString() }), NOW_MS, 30)).toBe(0.8)
    expect(retention(atom(), NOW_MS, 30)).toBe(0.8)
  })

  it("a half-life ≤ 0 means 30 days", () => {
    const old = atom({ created_at: daysAgo(30) })
    for (const h of [0, -3]) expect(retention(old, NOW_MS, h)).toBeCloseTo(0.4, 12)
  })

  it("Go's zero time and an unreadable timestamp are the oldest possible: 0", () => {
    expect(retention(atom({ created_at: "0001-01-01T00:00:00Z" }), NOW_MS, 30)).toBe(0)
    expect(retention(atom({ created_at: "junk" }), NOW_MS, 30)).toBe(0)
  })

  it("never rises with age", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4000 }), fc.integer({ min: 0, max: 4000 }), (a, b) => {
        const [young, old] = a <= b ? [a, b] : [b, a]
        const r = (d: number) => retention(atom({ created_at: daysAgo(d) }), NOW_MS, 30)
        expect(r(old)).toBeLessThanOrEqual(r(young))
      }),
      { numRuns: 300 }
    )
  })
})

describe("normalisedText (§11.1)", () => {
  it("lowercases, collapses every whitespace run to one space and trims", () => {
    expect(normalisedText("  User\tPrefers \n\n TEA  ")).toBe("user prefers tea")
    expect(normalisedText("a\u00a0\u3000b")).toBe("a b")
    expect(normalisedText("Ünïcode Straße")).toBe("ünïcode straße")
    expect(normalisedText("")).toBe("")
  })
})

describe("cutAtomText and truncate (bytes, at a rune boundary)", () => {
  it("cutAtomText keeps text that fits and cuts longer text to the byte cap", () => {
    expect(cutAtomText("hello", 300)).toBe("hello")
    expect(cutAtomText("héllo", 2)).toBe("h")
    expect(cutAtomText("héllo", 3)).toBe("hé")
    expect(cutAtomText("😀😀", 7)).toBe("😀")
  })

  it("truncate is s when it fits, else n−3 bytes and ...", () => {
    expect(truncate("abcdef", 6)).toBe("abcdef")
    expect(truncate("abcdefg", 6)).toBe("abc...")
    expect(truncate("aé€😀", 8)).toBe("aé...")
    expect(truncate("€€€", 8)).toBe("€...")
  })

  it("never splits a rune and never exceeds its budget (n ≥ 3)", () => {
    fc.assert(
      fc.property(fc.fullUnicodeString({ maxLength: 80 }), fc.integer({ min: 3, max: 120 }), (s, n) => {
        const cut = cutAtomText(s, n)
        const t = truncate(s, n)
        expect(utf8Bytes(cut)).toBeLessThanOrEqual(n)
        expect(s.startsWith(cut)).toBe(true)
        expect(hasLoneSurrogate(cut)).toBe(false)
        expect(utf8Bytes(t)).toBeLessThanOrEqual(n)
        expect(hasLoneSurrogate(t)).toBe(false)
        if (utf8Bytes(s) <= n) expect(t).toBe(s)
        else expect(t.endsWith("...") && s.startsWith(t.slice(0, -3))).toBe(true)
      }),
      { numRuns: 1000 }
    )
  })
})
