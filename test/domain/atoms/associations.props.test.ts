import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import {
  type AssociationMap,
  associationsJson,
  parseAssociations,
  withLinks,
  withoutAtoms
} from "../../../src/domain/atoms/associations.js"

// A small id pool, so links keep meeting atoms that already have some; "42" and "7" test integer-like keys.
const id = fc.constantFrom("a", "b", "c", "d", "e", "f", "42", "7", "x_1")
const op = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(id, fc.array(id, { maxLength: 4 })).map(([at, links]) => ({ at, links })) },
  { weight: 1, arbitrary: fc.array(id, { minLength: 1, maxLength: 2 }).map((gone) => ({ gone })) }
)

const build = (ops: ReadonlyArray<{ at: string; links: Array<string> } | { gone: Array<string> }>) =>
  ops.reduce<AssociationMap>((m, o) => ("gone" in o ? withoutAtoms(m, o.gone) : withLinks(m, o.at, o.links)), new Map())

describe("association map properties", () => {
  it("stays undirected, free of self-links and empty entries, sorted and unique, through links and removals", () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 30 }), (ops) => {
        const map = build(ops)
        for (const [a, links] of map) {
          expect(links.length).toBeGreaterThan(0)
          expect(links).not.toContain(a)
          expect(links).toStrictEqual([...new Set(links)].sort())
          for (const b of links) expect(map.get(b)).toContain(a)
        }
      }),
      { numRuns: 300 }
    )
  })

  it("a removed atom is gone from every list", () => {
    fc.assert(
      fc.property(
        fc.array(op, { minLength: 1, maxLength: 30 }),
        fc.array(id, { minLength: 1, maxLength: 3 }),
        (ops, gone) => {
          const map = withoutAtoms(build(ops), gone)
          for (const g of gone) expect(map.has(g)).toBe(false)
          for (const links of map.values()) for (const g of gone) expect(links).not.toContain(g)
        }
      ),
      { numRuns: 300 }
    )
  })

  it("associations.json round-trips and its keys are sorted", () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 30 }), (ops) => {
        const map = build(ops)
        const json = associationsJson(map)
        expect(parseAssociations(json)).toStrictEqual(map)
        const keys = [...json.matchAll(/^ {2}"([^"]+)": \[$/gm)].map((m) => m[1])
        expect(keys).toStrictEqual([...map.keys()].sort())
      }),
      { numRuns: 300 }
    )
  })

  it("parseAssociations never throws and keeps valid ids only", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v))
        ),
        (text) => {
          const map = parseAssociations(text)
          for (const [a, links] of map) {
            expect(a).toMatch(/^[A-Za-z0-9_-]{1,64}$/)
            for (const b of links) expect(b).toMatch(/^[A-Za-z0-9_-]{1,64}$/)
          }
        }
      ),
      { numRuns: 300 }
    )
  })
})
