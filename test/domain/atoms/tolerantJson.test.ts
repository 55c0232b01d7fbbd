import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { locateJson, tolerantJson } from "../../../src/domain/atoms/tolerantJson.js"

const ATOMS = '[{"text":"User prefers tea","type":"preference","confidence":0.9}]'

describe("tolerantJson (§10.5)", () => {
  it("takes a bare array or object as it is", () => {
    expect(tolerantJson(ATOMS)).toEqual([{ text: "User prefers tea", type: "preference", confidence: 0.9 }])
    expect(tolerantJson('  {"a":1}\n')).toEqual({ a: 1 })
  })

  it("strips one surrounding fence, with or without json", () => {
    expect(tolerantJson("```json\n" + ATOMS + "\n```")).toEqual(JSON.parse(ATOMS))
    expect(tolerantJson('```\n{"text":"no lang fence"}\n```')).toEqual({ text: "no lang fence" })
    // an unclosed fence (a reply cut short) is stripped as well
    expect(tolerantJson("```json\n[1,2]")).toEqual([1, 2])
    expect(tolerantJson("```json\n\n```")).toBeUndefined()
  })

  it("finds the first balanced span in prose", () => {
    expect(tolerantJson('Here is the JSON you asked for: [{"text":"x"}] — hope this helps!')).toEqual([{ text: "x" }])
    expect(locateJson('Sure! {"a":[1,{"b":2}]} and then [3]')).toBe('{"a":[1,{"b":2}]}')
    expect(tolerantJson('[{"text":"a"}]extra[garbage')).toEqual([{ text: "a" }])
    // a fence with another language: its name is prose
    expect(tolerantJson("```javascript\n[1]\n```")).toEqual([1])
  })

  it("is string- and escape-aware: brackets and quotes inside strings do not count", () => {
    expect(tolerantJson('ok: [{"text":"} inside string {"}] done')).toEqual([{ text: "} inside string {" }])
    expect(tolerantJson('ok: [{"text":"a \\"quoted\\" ] and \\\\"}] done')).toEqual([{ text: 'a "quoted" ] and \\' }])
    // an escaped quote does not end the string, so the bracket after it is text
    expect(tolerantJson('ok: [{"text":"a \\"] b"}] done')).toEqual([{ text: 'a "] b' }])
    // a quoted bracket in the prose before the JSON is inside a string, not the start
    expect(locateJson('He said "use [brackets]" then [1,2]')).toBe("[1,2]")
  })

  it("a span that is not valid JSON, an unclosed one, or a mismatched one is no JSON", () => {
    expect(locateJson("[1,]")).toBe("[1,]")
    expect(tolerantJson("[1,]")).toBeUndefined()
    expect(tolerantJson("[1, 2, 3")).toBeUndefined()
    expect(tolerantJson('{"text": "unterminated')).toBeUndefined()
    expect(locateJson("see [1, 2} here")).toBeUndefined()
    expect(tolerantJson("[see below] [1,2]")).toBeUndefined()
  })

  it("no bracket outside a string is no JSON: scalars, strings, prose, empty", () => {
    for (const reply of ['"[1,2,3]"', "null", "42", "not json at all", "", "   ", "]]}}", 'a "b [1] c'])
      expect(tolerantJson(reply)).toBeUndefined()
  })

  it("copes with huge and deeply nested replies", () => {
    expect(tolerantJson("x".repeat(1 << 20))).toBeUndefined()
    const many = "[" + '{"k":"v"},'.repeat(5000) + "{}]"
    expect((tolerantJson("Result: " + many) as Array<unknown>).length).toBe(5001)
    const deep = "[".repeat(100_000) + "]".repeat(100_000)
    expect(() => tolerantJson("prose " + deep)).not.toThrow()
    expect(tolerantJson("[".repeat(200_000))).toBeUndefined()
  })
})

// Pieces that reach every branch: fences, quotes, escapes, both bracket kinds, JSON fragments, prose.
const fragment = fc.oneof(
  fc.constantFrom(
    "```",
    "```json",
    "```json\n",
    "\n```",
    '"',
    '\\"',
    "\\",
    "\\\\",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    '"text"',
    '{"text":"a"}',
    "[1,2]",
    "null",
    "true",
    " ",
    "\n",
    "prose",
    "é",
    "😀",
    "\u0000",
    "\ud800"
  ),
  fc.json(),
  fc.string({ maxLength: 8 })
)
const messy = fc.array(fragment, { minLength: 0, maxLength: 30 }).map((parts) => parts.join(""))

// prose with nothing that opens a string or a bracket, so the embedded JSON is the first span
const prose = fc.string({ maxLength: 40 }).map((s) => s.replace(/[[\]{}"]/g, ""))

describe("tolerantJson properties", () => {
  it("never throws, and what it finds is a bracketed span of the input that parses to an array or object", () => {
    let found = 0
    fc.assert(
      fc.property(fc.oneof(messy, fc.fullUnicodeString({ maxLength: 60 })), (reply) => {
        const span = locateJson(reply)
        const value = tolerantJson(reply)
        if (span === undefined) {
          expect(value).toBeUndefined()
          return
        }
        expect(reply.includes(span)).toBe(true)
        expect(`${span[0]}${span.at(-1)}`).toMatch(/^(\[\]|\{\})$/)
        if (value !== undefined) {
          found++
          expect(typeof value).toBe("object")
          expect(value).not.toBeNull()
          expect(value).toEqual(JSON.parse(span))
        }
      }),
      { numRuns: 3000 }
    )
    // the generator reaches the interesting region: many replies hold usable JSON
    expect(found).toBeGreaterThan(300)
  })

  it("finds a JSON array embedded in prose without brackets or quotes, fenced or not", () => {
    fc.assert(
      fc.property(
        prose,
        fc.array(fc.jsonValue(), { minLength: 0, maxLength: 6 }),
        prose,
        fc.boolean(),
        (before, array, after, fenced) => {
          const json = JSON.stringify(array)
          const reply = fenced ? `${before}\n\`\`\`json\n${json}\n\`\`\`\n${after}` : `${before}${json}${after}`
          expect(tolerantJson(reply)).toEqual(JSON.parse(json))
        }
      ),
      { numRuns: 2000 }
    )
  })

  it("finds the array inside a fence however the fence is written", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ text: fc.string(), confidence: fc.double({ noNaN: true, noDefaultInfinity: true }) })),
        fc.constantFrom("```json\n", "```\n", "```json", "```", ""),
        fc.constantFrom("\n```", "```", ""),
        (array, open, close) => {
          const json = JSON.stringify(array)
          expect(tolerantJson(`${open}${json}${close}`)).toEqual(JSON.parse(json))
        }
      ),
      { numRuns: 1000 }
    )
  })
})
