import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { buildVectorIndex, searchVectorIndex, topK } from "../../../src/domain/embedding/vector.js"

// Small integer-valued components make exact ties and zero vectors common, the cases where orders could differ.
const vec = (d: number) =>
  fc.array(fc.integer({ min: -3, max: 3 }), { minLength: d, maxLength: d }).map((xs) => Float32Array.from(xs))

describe("vector index", () => {
  it("property: the same ranking as the Go-compatible topK, scores within 1e-6", () => {
    let ties = 0
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 12 })
          .chain((d) =>
            fc.tuple(vec(d), fc.array(vec(d), { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 45 }))
          ),
        ([q, vs, k]) => {
          const fast = searchVectorIndex(buildVectorIndex(vs), q, k)
          const slow = topK(q, vs, k)
          expect(fast.length).toBe(slow.length)
          fast.forEach((m, i) => expect(Math.abs(m.score - slow[i]!.score)).toBeLessThan(1e-6))
          // exact ties keep row order (stable, as the spec recommends)
          fast.forEach((m, i) => {
            const next = fast[i + 1]
            if (next !== undefined && next.score === m.score) expect(m.index).toBeLessThan(next.index)
          })
          // a different row at a position is allowed only where the two rows' scores tie to within rounding
          const all = new Map(topK(q, vs, vs.length).map((m) => [m.index, m.score] as const))
          fast.forEach((m, i) => {
            if (m.index === slow[i]!.index) return
            ties++
            expect(Math.abs(all.get(m.index)! - slow[i]!.score)).toBeLessThan(1e-6)
          })
        }
      ),
      { numRuns: 3000 }
    )
    // tied rows at different positions are reached often enough to exercise the rule
    expect(ties).toBeGreaterThan(50)
  })
})
