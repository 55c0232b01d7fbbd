/**
 * Similarity and nearest-neighbour search over embedding vectors (spec embedding.md §6). Vectors come from any
 * backend, including a buggy or hostile HTTP one, so every function is total: mismatched, empty, zero or non-finite
 * input scores 0 instead of breaking a sort.
 */

import { allocateWasmRows, type WasmRows } from "./simd.js"

/** An embedding as produced by a backend: RP gives Float32Array, JSON decoding gives number arrays. */
export type Vector = ArrayLike<number>

/** Cosine similarity in float64, rounded to float32; 0 for length mismatch, empty or zero vectors and NaN/±Inf. */
export const cosine = (a: Vector, b: Vector): number => {
  const n = a.length
  if (n === 0 || n !== b.length) return 0
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < n; i++) {
    const x = a[i]!
    const y = b[i]!
    dot += x * y
    na += x * x
    nb += y * y
  }
  if (na === 0 || nb === 0) return 0
  const c = dot / (Math.sqrt(na) * Math.sqrt(nb))
  return Number.isFinite(c) ? Math.fround(c) : 0
}

/** A vector's position in the searched list and its similarity to the query. */
export interface Match {
  readonly index: number
  readonly score: number
}

/** The most similar vector by `cosine`; the first one wins ties. `undefined` only for an empty list. */
export const bestMatch = (query: Vector, vectors: ReadonlyArray<Vector>): Match | undefined => {
  let best: Match | undefined
  vectors.forEach((v, index) => {
    const score = cosine(query, v)
    if (best === undefined || score > best.score) best = { index, score }
  })
  return best
}

const selfDot32 = (v: Vector): number => {
  let s = 0
  for (let i = 0; i < v.length; i++) s = Math.fround(s + Math.fround(v[i]! * v[i]!))
  return s
}

/** go-vector's cosine distance, in float32; 1 (no similarity) whenever the cosine is undefined or not finite. */
const distance32 = (query: Vector, queryNorm: number, v: Vector): number => {
  if (queryNorm === 0 || v.length !== query.length) return 1
  let dot = 0
  let vv = 0
  for (let i = 0; i < v.length; i++) {
    const y = Math.fround(v[i]!)
    dot = Math.fround(dot + Math.fround(Math.fround(query[i]!) * y))
    vv = Math.fround(vv + Math.fround(y * y))
  }
  if (vv === 0) return 1
  const d = Math.fround(1 - Math.fround(dot / Math.fround(queryNorm * Math.fround(Math.sqrt(vv)))))
  return Number.isFinite(d) ? d : 1
}

/**
 * The `k` vectors nearest to the query by cosine distance (go-vector's brute-force `Store.Search`), best first, with
 * `score = 1 − distance` as odek converts it: zero and mismatched vectors score exactly 0. Equal distances keep
 * input order, so results do not depend on the sort implementation.
 */
export const topK = (query: Vector, vectors: ReadonlyArray<Vector>, k: number): Array<Match> => {
  const n = Math.min(Math.floor(k), vectors.length)
  if (!(n > 0)) return []
  const queryNorm = Math.fround(Math.sqrt(selfDot32(query)))
  const ranked = vectors.map((v, index) => ({ index, distance: distance32(query, queryNorm, v) }))
  ranked.sort((x, y) => x.distance - y.distance || x.index - y.index)
  return ranked.slice(0, n).map(({ index, distance }) => ({ index, score: Math.fround(1 - distance) }))
}

/**
 * Vectors normalised once and laid out contiguously, for many queries against one index. Built by `buildVectorIndex`,
 * `allocateVectorIndex` or `decodeVectors`, the rows live in WebAssembly memory and are searched there in place; an
 * index put together by hand over a plain `Float32Array` also works, its rows copied into WebAssembly memory on its
 * first search (so rows must not change once searched; those of an allocated index may, they are not copied).
 */
export interface VectorIndex {
  readonly dims: number
  readonly size: number
  /** Row `i` is vector `i` scaled to unit length (all zero for a zero, non-finite or mismatched vector). */
  readonly rows: Float32Array
}

/** The WebAssembly copy of each index's rows, by the rows array; `null` where there is none (no SIMD, no memory). */
const wasmRows = new WeakMap<Float32Array, WasmRows | null>()

/**
 * An index of `size` zero rows of `dims` floats, in WebAssembly memory where the runtime has it (a plain
 * `Float32Array` otherwise): fill `rows` in place, row `r` at `r × dims`, and search it without any copy.
 */
export const allocateVectorIndex = (dims: number, size: number): VectorIndex => {
  if (!Number.isInteger(dims) || !Number.isInteger(size) || dims < 0 || size < 0)
    throw new RangeError(`allocateVectorIndex: dims and size must be integers ≥ 0, got ${dims} and ${size}`)
  const wasm = allocateWasmRows(dims, size)
  if (wasm === undefined) return { dims, size, rows: new Float32Array(dims * size) }
  wasmRows.set(wasm.rows, wasm)
  return { dims, size, rows: wasm.rows }
}

/** Builds the index; the dimensionality is the first vector's. */
export const buildVectorIndex = (vectors: ReadonlyArray<Vector>): VectorIndex => {
  const dims = vectors[0]?.length ?? 0
  const index = allocateVectorIndex(dims, vectors.length)
  const { rows } = index
  vectors.forEach((v, r) => {
    if (v.length !== dims) return
    let norm = 0
    for (let i = 0; i < dims; i++) norm += v[i]! * v[i]!
    norm = Math.sqrt(norm)
    if (!(norm > 0) || !Number.isFinite(norm)) return
    for (let i = 0; i < dims; i++) rows[r * dims + i] = v[i]! / norm
  })
  return index
}

/** The index's first `count` rows in WebAssembly memory (copied there once for a plain array), if they can be. */
const wasmRowsOf = (index: VectorIndex, count: number): WasmRows | undefined => {
  let wasm = wasmRows.get(index.rows)
  if (wasm === undefined) {
    wasm = allocateWasmRows(index.dims, count) ?? null
    wasm?.rows.set(index.rows.subarray(0, count * index.dims))
    wasmRows.set(index.rows, wasm)
  }
  return wasm !== null && wasm.dims === index.dims && wasm.size >= count ? wasm : undefined
}

/** The float32 dot products of `q` and the first `count` rows, in plain JavaScript: four independent sums a row. */
const scoresInJs = (rows: Float32Array, count: number, dims: number, q: Float64Array): Float32Array => {
  const out = new Float32Array(count)
  const wide = dims - (dims % 4)
  for (let r = 0, base = 0; r < count; r++, base += dims) {
    let a0 = 0
    let a1 = 0
    let a2 = 0
    let a3 = 0
    let i = 0
    for (; i < wide; i += 4) {
      a0 += q[i]! * rows[base + i]!
      a1 += q[i + 1]! * rows[base + i + 1]!
      a2 += q[i + 2]! * rows[base + i + 2]!
      a3 += q[i + 3]! * rows[base + i + 3]!
    }
    for (; i < dims; i++) a0 += q[i]! * rows[base + i]!
    out[r] = a0 + a1 + (a2 + a3)
  }
  return out
}

/** The best `n` of `scores[0, count)`, best first, equal scores in row order; NaN scores are never taken. */
const selectTop = (scores: Float32Array, count: number, n: number): Array<Match> => {
  if (n > 128) {
    // a large k (a listing, not a recall): sorting every score is O(size log size) where the window is O(size × k)
    const order: Array<number> = []
    for (let r = 0; r < count; r++) if (scores[r]! > -Infinity) order.push(r)
    order.sort((a, b) => scores[b]! - scores[a]! || a - b)
    return order.slice(0, n).map((r) => ({ index: r, score: Math.fround(Math.max(-1, Math.min(1, scores[r]!))) }))
  }
  // a sorted window of the best n so far: k is small (29 for recall), so insertion beats a heap
  const bestScore = new Float64Array(n).fill(-Infinity)
  const bestIndex = new Int32Array(n).fill(-1)
  for (let r = 0; r < count; r++) {
    // ranked by the float32 score it reports, so rows whose scores print equal keep their order
    const score = scores[r]!
    if (!(score > bestScore[n - 1]!)) continue
    let j = n - 1
    while (j > 0 && score > bestScore[j - 1]!) {
      bestScore[j] = bestScore[j - 1]!
      bestIndex[j] = bestIndex[j - 1]!
      j--
    }
    bestScore[j] = score
    bestIndex[j] = r
  }
  const out: Array<Match> = []
  for (let j = 0; j < n; j++)
    if (bestIndex[j]! >= 0)
      out.push({ index: bestIndex[j]!, score: Math.fround(Math.max(-1, Math.min(1, bestScore[j]!))) })
  return out
}

const search = (index: VectorIndex, query: Vector, k: number, useWasm: boolean): Array<Match> => {
  const n = Math.min(Math.floor(k), index.size)
  if (!(n > 0) || query.length !== index.dims || index.dims === 0) return []
  let qn = 0
  for (let i = 0; i < query.length; i++) qn += query[i]! * query[i]!
  qn = Math.sqrt(qn)
  if (!(qn > 0) || !Number.isFinite(qn))
    return index.size === 0 ? [] : Array.from({ length: n }, (_, i) => ({ index: i, score: 0 }))
  const { dims } = index
  // rows a hand-made index is short of are never found, as no score is computed for them
  const count = Math.min(index.size, Math.floor(index.rows.length / dims))
  const wasm = useWasm ? wasmRowsOf(index, count) : undefined
  if (wasm === undefined) {
    const q = Float64Array.from(query, (x) => x / qn)
    return selectTop(scoresInJs(index.rows, count, dims, q), count, n)
  }
  for (let i = 0; i < dims; i++) wasm.query[i] = query[i]! / qn
  wasm.run(count)
  return selectTop(wasm.scores, count, n)
}

/**
 * The `k` rows most similar to `query` by cosine (a dot product of unit vectors, in float32 with WebAssembly SIMD
 * where the runtime has it), best first; equal scores keep row order. The same ranking as `topK` up to float
 * rounding (spec embedding §6.3 allows 1e-6), without re-normalising every row per query or sorting the whole index.
 */
export const searchVectorIndex = (index: VectorIndex, query: Vector, k: number): Array<Match> =>
  search(index, query, k, true)

/**
 * `searchVectorIndex` in plain JavaScript (four float64 sums a row), never touching WebAssembly: what runs where the
 * runtime lacks WebAssembly SIMD, exported so tests can hold the two paths against each other.
 */
export const searchVectorIndexPortable = (index: VectorIndex, query: Vector, k: number): Array<Match> =>
  search(index, query, k, false)
