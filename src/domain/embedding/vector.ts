/**
 * Similarity and nearest-neighbour search over embedding vectors (spec embedding.md §6). Vectors come from any
 * backend, including a buggy or hostile HTTP one, so every function is total: mismatched, empty, zero or non-finite
 * input scores 0 instead of breaking a sort.
 */

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

/** Vectors normalised once and laid out contiguously, for many queries against one index. */
export interface VectorIndex {
  readonly dims: number
  readonly size: number
  /** Row `i` is vector `i` scaled to unit length (all zero for a zero, non-finite or mismatched vector). */
  readonly rows: Float32Array
}

/** Builds the index; the dimensionality is the first vector's. */
export const buildVectorIndex = (vectors: ReadonlyArray<Vector>): VectorIndex => {
  const dims = vectors[0]?.length ?? 0
  const rows = new Float32Array(dims * vectors.length)
  vectors.forEach((v, r) => {
    if (v.length !== dims) return
    let norm = 0
    for (let i = 0; i < dims; i++) norm += v[i]! * v[i]!
    norm = Math.sqrt(norm)
    if (!(norm > 0) || !Number.isFinite(norm)) return
    for (let i = 0; i < dims; i++) rows[r * dims + i] = v[i]! / norm
  })
  return { dims, size: vectors.length, rows }
}

/**
 * The `k` rows most similar to `query` by cosine (a dot product of unit vectors, accumulated in float64), best
 * first; equal scores keep row order. The same ranking as `topK` up to float rounding (spec embedding §6.3 allows
 * 1e-6), without re-normalising every row per query or sorting the whole index.
 */
export const searchVectorIndex = (index: VectorIndex, query: Vector, k: number): Array<Match> => {
  const n = Math.min(Math.floor(k), index.size)
  if (!(n > 0) || query.length !== index.dims || index.dims === 0) return []
  let qn = 0
  for (let i = 0; i < query.length; i++) qn += query[i]! * query[i]!
  qn = Math.sqrt(qn)
  if (!(qn > 0) || !Number.isFinite(qn))
    return index.size === 0 ? [] : Array.from({ length: n }, (_, i) => ({ index: i, score: 0 }))
  const q = Float64Array.from(query, (x) => x / qn)
  const { dims, rows, size } = index
  // a sorted window of the best n so far: k is small (29 for recall), so insertion beats a heap
  const bestScore = new Float64Array(n).fill(-Infinity)
  const bestIndex = new Int32Array(n).fill(-1)
  for (let r = 0; r < size; r++) {
    let dot = 0
    const base = r * dims
    for (let i = 0; i < dims; i++) dot += q[i]! * rows[base + i]!
    // ranked by the float32 score it reports, so rows whose scores print equal keep their order
    dot = Math.fround(dot)
    if (!(dot > bestScore[n - 1]!)) continue
    let j = n - 1
    while (j > 0 && dot > bestScore[j - 1]!) {
      bestScore[j] = bestScore[j - 1]!
      bestIndex[j] = bestIndex[j - 1]!
      j--
    }
    bestScore[j] = dot
    bestIndex[j] = r
  }
  const out: Array<Match> = []
  for (let j = 0; j < n; j++)
    if (bestIndex[j]! >= 0)
      out.push({ index: bestIndex[j]!, score: Math.fround(Math.max(-1, Math.min(1, bestScore[j]!))) })
  return out
}
