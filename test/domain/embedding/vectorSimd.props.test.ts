import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { simdAvailable } from "../../../src/domain/embedding/simd.js"
import {
  allocateVectorIndex,
  buildVectorIndex,
  cosine,
  type Match,
  searchVectorIndex,
  searchVectorIndexPortable,
  topK,
  type VectorIndex
} from "../../../src/domain/embedding/vector.js"

// Hundredths make near-ties and exact ties (repeated rows) common; zero rows and a hostile backend's NaN and ±Inf
// must score 0 on every path.
const component = fc.oneof(
  { weight: 20, arbitrary: fc.integer({ min: -300, max: 300 }).map((x) => x / 100) },
  { weight: 1, arbitrary: fc.constantFrom(NaN, Infinity, -Infinity) }
)
const vec = (d: number) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.array(component, { minLength: d, maxLength: d }) },
    { weight: 1, arbitrary: fc.constant(Array.from({ length: d }, () => 0)) }
  )
// a row of another length than the first scores 0 (the query always has the index's length)
const row = (d: number) =>
  fc.oneof(
    { weight: 9, arbitrary: vec(d) },
    { weight: 1, arbitrary: fc.array(fc.integer({ min: -2, max: 2 }), { minLength: d + 1, maxLength: d + 1 }) }
  )
const cases = fc.integer({ min: 1, max: 40 }).chain((d) =>
  fc.record({
    query: vec(d),
    // the first row sets the index's dimensionality, so it has the query's
    vectors: fc
      .tuple(fc.array(component, { minLength: d, maxLength: d }), fc.array(row(d), { maxLength: 299 }), fc.nat(19))
      .map(([first, rest, empty]) => (empty === 0 ? [] : [first, ...rest])),
    k: fc.integer({ min: -2, max: 320 })
  })
)

/**
 * `got` ranks like `want`: as many hits, scores within 1e-6 position by position, no row twice, and a different row
 * at a position only where the two rows' cosines tie to within 1e-6.
 */
const expectSameRanking = (got: ReadonlyArray<Match>, want: ReadonlyArray<Match>, exact: ReadonlyArray<number>) => {
  expect(got.length).toBe(want.length)
  expect(new Set(got.map((m) => m.index)).size).toBe(got.length)
  got.forEach((m, i) => {
    const w = want[i]!
    expect(Math.abs(m.score - w.score)).toBeLessThanOrEqual(1e-6)
    if (m.index !== w.index) expect(Math.abs(exact[m.index]! - exact[w.index]!)).toBeLessThanOrEqual(1e-6)
  })
}

describe("vector index: WebAssembly SIMD kernel and JavaScript fallback", () => {
  it("runs the SIMD kernel on this runtime (else the property below compares the fallback with itself)", () => {
    expect(simdAvailable()).toBe(true)
  })

  it("property: SIMD, the JS fallback, a hand-made plain index and topK rank alike, scores within 1e-6", () => {
    fc.assert(
      fc.property(cases, ({ query, vectors, k }) => {
        const index = buildVectorIndex(vectors)
        // an index built by hand over a plain array (as vectorCache does) is copied into wasm memory on first search
        const plain: VectorIndex = { dims: index.dims, size: index.size, rows: Float32Array.from(index.rows) }
        const simd = searchVectorIndex(index, query, k)
        const js = searchVectorIndexPortable(index, query, k)
        const copied = searchVectorIndex(plain, query, k)
        const slow = topK(query, vectors, k)
        const exact = vectors.map((v) => cosine(query, v))
        expectSameRanking(simd, slow, exact)
        expectSameRanking(js, slow, exact)
        expectSameRanking(simd, js, exact)
        expect(copied).toStrictEqual(simd)
        // exact ties keep row order
        simd.forEach((m, i) => {
          const next = simd[i + 1]
          if (next !== undefined && next.score === m.score) expect(m.index).toBeLessThan(next.index)
        })
      }),
      { numRuns: 400 }
    )
  })

  it("agrees with topK at 384 dimensions (the main loop, no tail) and at 387 (a 3-float tail)", () => {
    for (const dims of [384, 387]) {
      const vectors = Array.from({ length: 200 }, (_, r) =>
        Float32Array.from({ length: dims }, (_, i) => Math.sin(r * 7.1 + i * 0.37) + (i % 5 === r % 5 ? 0.5 : 0))
      )
      const query = Float32Array.from({ length: dims }, (_, i) => Math.cos(i * 0.11))
      const exact = vectors.map((v) => cosine(query, v))
      const index = buildVectorIndex(vectors)
      expectSameRanking(searchVectorIndex(index, query, 40), topK(query, vectors, 40), exact)
      expectSameRanking(searchVectorIndexPortable(index, query, 40), topK(query, vectors, 40), exact)
    }
  })
})

describe("allocateVectorIndex", () => {
  it("gives zero rows to fill in place; a search sees later writes (no copy is kept)", () => {
    const index = allocateVectorIndex(3, 2)
    expect(index).toMatchObject({ dims: 3, size: 2 })
    expect(Array.from(index.rows)).toEqual([0, 0, 0, 0, 0, 0])
    index.rows.set([0, 1, 0], 3)
    expect(searchVectorIndex(index, [0, 2, 0], 1)).toEqual([{ index: 1, score: 1 }])
    index.rows.set([0, 1, 0], 0)
    index.rows.set([1, 0, 0], 3)
    expect(searchVectorIndex(index, [0, 2, 0], 2)).toEqual([
      { index: 0, score: 1 },
      { index: 1, score: 0 }
    ])
  })

  it("allows empty indexes and rejects negative or fractional sizes", () => {
    expect(searchVectorIndex(allocateVectorIndex(0, 0), [], 3)).toEqual([])
    expect(searchVectorIndex(allocateVectorIndex(4, 0), [1, 0, 0, 0], 3)).toEqual([])
    expect(allocateVectorIndex(5, 0).rows.length).toBe(0)
    expect(() => allocateVectorIndex(-1, 2)).toThrow(RangeError)
    expect(() => allocateVectorIndex(2, 1.5)).toThrow(RangeError)
  })

  it("never finds the rows a hand-made index is short of", () => {
    const short: VectorIndex = { dims: 2, size: 3, rows: Float32Array.of(1, 0, 0, 1) }
    expect(searchVectorIndex(short, [1, 1], 3).map((m) => m.index)).toEqual([0, 1])
    expect(searchVectorIndexPortable(short, [1, 1], 3).map((m) => m.index)).toEqual([0, 1])
  })
})
