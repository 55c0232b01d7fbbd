import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { bestMatch, cosine, topK } from "../../../src/domain/embedding/vector.js"

describe("cosine (spec §6.1)", () => {
  it("is 1 for identical, 0 for orthogonal, −1 for opposite vectors", () => {
    expect(cosine([1, 2, 3], [1, 2, 3])).toBe(1)
    expect(cosine([1, 0], [0, 5])).toBe(0)
    expect(cosine(Float32Array.of(1, -2), Float32Array.of(-1, 2))).toBe(-1)
  })
  it("is 0 for length mismatch, empty or zero vectors", () => {
    expect(cosine([1, 2], [1, 2, 3])).toBe(0)
    expect(cosine([], [])).toBe(0)
    expect(cosine([0, 0], [1, 1])).toBe(0)
    expect(cosine([1, 1], [0, 0])).toBe(0)
  })
  it("is 0 instead of NaN or ±Inf for a hostile backend's vectors", () => {
    expect(cosine([NaN, 1], [1, 1])).toBe(0)
    expect(cosine([Infinity, 1], [1, 1])).toBe(0)
    expect(cosine([1e200, 1], [1e200, 1])).toBe(0) // float64 overflow of the norms
  })
  it("rounds to float32", () => {
    const c = cosine([1, 2, 3], [3, 2, 1])
    expect(c).toBe(Math.fround(10 / 14))
  })
})

describe("topK (spec §6.2)", () => {
  const vs = [
    [1, 0],
    [0, 1],
    [1, 1],
    [0, 0],
    [1, 0, 0],
    [1, 0]
  ]
  it("returns the k nearest best-first, score = 1 − distance, ties in insertion order", () => {
    const hits = topK([1, 0], vs, 4)
    expect(hits.map((h) => h.index)).toStrictEqual([0, 5, 2, 1])
    expect(hits[0]!.score).toBe(1)
    expect(Math.abs(hits[2]!.score - Math.SQRT1_2)).toBeLessThan(1e-6)
  })
  it("scores zero and mismatched vectors exactly 0", () => {
    const byIndex = new Map(topK([1, 0], vs, 10).map((h) => [h.index, h.score]))
    expect(byIndex.get(3)).toBe(0)
    expect(byIndex.get(4)).toBe(0)
    expect(topK([0, 0], vs, 10).every((h) => h.score === 0)).toBe(true)
  })
  it("returns nothing for k ≤ 0 or an empty store and at most n results", () => {
    expect(topK([1, 0], vs, 0)).toStrictEqual([])
    expect(topK([1, 0], vs, -3)).toStrictEqual([])
    expect(topK([1, 0], [], 5)).toStrictEqual([])
    expect(topK([1, 0], vs, 100)).toHaveLength(vs.length)
  })
  it("never lets NaN break the order", () => {
    expect(
      topK(
        [1, 0],
        [
          [NaN, 1],
          [1, 0]
        ],
        2
      )
    ).toStrictEqual([
      { index: 1, score: 1 },
      { index: 0, score: 0 }
    ])
  })
})

describe("bestMatch", () => {
  it("picks the highest cosine, first index on ties, undefined for no vectors", () => {
    expect(
      bestMatch(
        [1, 0],
        [
          [0, 1],
          [1, 0.1],
          [2, 0.2]
        ]
      )
    ).toStrictEqual({ index: 1, score: cosine([1, 0], [1, 0.1]) })
    expect(
      bestMatch(
        [1, 0],
        [
          [0, 1],
          [NaN, 1]
        ]
      )
    ).toStrictEqual({ index: 0, score: 0 })
    expect(bestMatch([1, 0], [])).toBeUndefined()
  })
})

// Few distinct component values (including 0 and, rarely, NaN/Inf) so duplicates, zero vectors and ties are common.
const component = FastCheck.oneof(
  { weight: 8, arbitrary: FastCheck.constantFrom(0, 1, -1, 0.5, 2) },
  { weight: 4, arbitrary: FastCheck.float({ min: -1e3, max: 1e3, noNaN: true }) },
  { weight: 1, arbitrary: FastCheck.constantFrom(NaN, Infinity, -Infinity, 3e38, 1e-40) }
)
const vector = (n: number) => FastCheck.array(component, { minLength: n, maxLength: n })
const sameDims = FastCheck.integer({ min: 1, max: 12 }).chain((n) =>
  FastCheck.tuple(vector(n), FastCheck.array(vector(n), { minLength: 20, maxLength: 80 }))
)
const store = FastCheck.tuple(
  sameDims,
  FastCheck.array(vector(3), { maxLength: 5 }),
  FastCheck.integer({ min: -2, max: 100 })
)

const wellScaled = (v: ReadonlyArray<number>) => v.every((x) => x === 0 || (Math.abs(x) >= 1e-6 && Math.abs(x) <= 1e6))

describe("similarity properties", () => {
  it.prop(
    "cosine is symmetric, finite and in [−1, 1]",
    [sameDims],
    ([[a, vs]]) => {
      for (const b of vs) {
        const c = cosine(a, b)
        expect(cosine(b, a)).toBe(c)
        expect(c >= -1 && c <= 1).toBe(true)
        expect(Math.fround(c)).toBe(c)
      }
    },
    { fastCheck: { numRuns: 200 } }
  )

  it.prop(
    "topK is sorted best-first, stable on ties, and a prefix of the full ranking",
    [store],
    ([[[q, same], odd, k]]) => {
      const vs = [...same, ...odd] // odd dimension vectors are mismatches (score 0)
      const hits = topK(q, vs, k)
      expect(hits).toHaveLength(Math.max(0, Math.min(k, vs.length)))
      for (let i = 1; i < hits.length; i++) {
        const [prev, cur] = [hits[i - 1]!, hits[i]!]
        expect(prev.score > cur.score || (prev.score === cur.score && prev.index < cur.index)).toBe(true)
      }
      expect(topK(q, vs, vs.length).slice(0, hits.length)).toStrictEqual(hits)
      for (const h of hits) {
        expect(Number.isFinite(h.score)).toBe(true)
        // topK works in float32 like go-vector's store: squares of tiny components underflow there, and rounding
        // grows with the dimension, so it agrees with the float64 cosine only for well-scaled vectors, within 1e-5
        const v = vs[h.index]!
        if (wellScaled(q) && wellScaled(v)) expect(Math.abs(h.score - cosine(q, v))).toBeLessThan(1e-5)
      }
    },
    { fastCheck: { numRuns: 200 } }
  )

  it.prop(
    "bestMatch is the first vector with the maximal cosine",
    [sameDims],
    ([[q, vs]]) => {
      const scores = vs.map((v) => cosine(q, v))
      const max = Math.max(...scores)
      expect(bestMatch(q, vs)).toStrictEqual({ index: scores.indexOf(max), score: max })
    },
    { fastCheck: { numRuns: 200 } }
  )
})
