import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { consolidationGroups } from "../../../src/domain/atoms/consolidation.js"
import { cosine } from "../../../src/domain/embedding/vector.js"

// Three dimensions of small integers: many exact duplicates and near-misses, so groups form, overlap in similarity
// and leave atoms out. A few vectors are empty or zero (a failed embedding).
const vector = fc.oneof(
  { weight: 12, arbitrary: fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 3, maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom([], [0, 0, 0]) }
)
const corpus = fc.array(vector, { minLength: 2, maxLength: 40 })
const threshold = fc.constantFrom(0.5, 0.7, 0.8, 0.9, 0.95, 1)

const run = (vectors: ReadonlyArray<ReadonlyArray<number>>, t: number) =>
  consolidationGroups(
    vectors.map((_, i) => ({ id: `a${i}` })),
    vectors,
    t
  )

describe("consolidationGroups properties (§12.1)", () => {
  it("every member reaches the threshold to its seed; groups have ≥ 2 ascending, disjoint, in-range indices", () => {
    fc.assert(
      fc.property(corpus, threshold, (vectors, t) => {
        const groups = run(vectors, t)
        const seen = new Set<number>()
        for (const group of groups) {
          expect(group.length).toBeGreaterThanOrEqual(2)
          const [seed, ...rest] = group
          for (const i of rest) expect(cosine(vectors[seed!]!, vectors[i]!)).toBeGreaterThanOrEqual(t)
          for (let k = 1; k < group.length; k++) expect(group[k]!).toBeGreaterThan(group[k - 1]!)
          for (const i of group) {
            expect(i).toBeGreaterThanOrEqual(0)
            expect(i).toBeLessThan(vectors.length)
            expect(seen.has(i)).toBe(false)
            seen.add(i)
          }
        }
      }),
      { numRuns: 400 }
    )
  })

  it("is greedy to the end: no two atoms left out of every group reach the threshold together", () => {
    fc.assert(
      fc.property(corpus, threshold, (vectors, t) => {
        const grouped = new Set(run(vectors, t).flat())
        const left = vectors.map((_, i) => i).filter((i) => !grouped.has(i))
        for (const i of left) for (const j of left) if (i < j) expect(cosine(vectors[i]!, vectors[j]!)).toBeLessThan(t)
      }),
      { numRuns: 400 }
    )
  })

  it("seeds come in listing order and a seed takes every later atom that reaches it and is still free", () => {
    fc.assert(
      fc.property(corpus, threshold, (vectors, t) => {
        const groups = run(vectors, t)
        const seeds = groups.map((g) => g[0]!)
        expect(seeds).toStrictEqual([...seeds].sort((a, b) => a - b))
        const taken = new Set<number>()
        for (const group of groups) {
          const seed = group[0]!
          const free = vectors
            .map((_, j) => j)
            .filter((j) => j > seed && !taken.has(j) && vectors[j]!.length > 0)
            .filter((j) => cosine(vectors[seed]!, vectors[j]!) >= t)
          expect(group.slice(1)).toStrictEqual(free)
          for (const i of group) taken.add(i)
        }
      }),
      { numRuns: 400 }
    )
  })
})
