/**
 * go-vector's RandomProjections as odek uses it (spec embedding.md §5.3–5.8): a sparse Achlioptas projection of a
 * corpus-fitted bag of tokens, reproducing Go's vectors to float32 precision so the space may be named `rp/<D>`.
 */
import { tokenStream } from "./featurize.js"
import { type GoRand, goRand } from "./goRand.js"

/** Dimensionality used when none (≤ 0) is configured. */
export const RP_DEFAULT_DIMS = 256
/** Go seeds a fresh `math/rand` source with this on every fit. */
export const RP_SEED = 42
/** Names the PRNG in persisted RP state, so a state written with another generator is rejected rather than misread. */
export const RP_PRNG_ID = "go-math-rand-legacy/42"

/** The dimensionality actually used: `≤ 0` → 256. A non-integer is a caller bug, not a configuration. */
export const rpDims = (dims: number): number => {
  if (dims <= 0) return RP_DEFAULT_DIMS
  if (!Number.isSafeInteger(dims)) throw new RangeError(`RandomProjections: dims must be an integer, got ${dims}`)
  return dims
}

/** Identifies the embedding space; persisted vectors are reusable only under the same fingerprint. */
export const rpFingerprint = (dims: number): string => `rp/${rpDims(dims)}`

/**
 * A fitted RandomProjections embedder. `tokens` is the vocabulary in first-seen order (token i owns row i) and is all
 * that needs persisting: `rpModelFromTokens(tokens, dims)` rebuilds identical vectors.
 */
export interface RpModel {
  readonly dims: number
  readonly tokens: ReadonlyArray<string>
  readonly vocab: ReadonlyMap<string, number>
  /** `float32(√(3/D))`, the magnitude of every non-zero projection entry. */
  readonly scale: number
  /** Row i of the projection, owned by `tokens[i]`. */
  readonly rows: ReadonlyArray<SparseRow>
}

/**
 * The non-zero entries of one projection row, in column order (about D/3 of them, each ±scale). Rows are shared by
 * every model of the same D through the memo below, so they must never be written to.
 */
export interface SparseRow {
  readonly columns: Int32Array
  // stored per entry rather than as a sign bit so the embedding loop has no data-dependent branch
  readonly values: Float32Array
}

/** One dimensionality's projection stream: the rows generated so far and the PRNG positioned right after them. */
interface RowStream {
  readonly rng: GoRand
  readonly rows: Array<SparseRow>
}

// Row i depends only on (i, D, seed 42) (§5.3.1), so the rows are a pure function of their index and can be memoised
// across fits and instances. Without this every fit re-draws V·D values (150k for 600 tokens at D=256) although a
// corpus that grew by one episode needs at most a few new rows. The memo only grows to the largest vocabulary seen per
// D; it is not observable except through speed.
const streams = new Map<number, RowStream>()

const drawRow = (rng: GoRand, scale: number, columns: Int32Array, values: Float32Array): SparseRow => {
  let n = 0
  for (let j = 0; j < columns.length; j++) {
    const r = rng.float64()
    if (r < 2 / 6) {
      columns[n] = j
      values[n++] = r < 1 / 6 ? -scale : scale
    }
  }
  return { columns: columns.slice(0, n), values: values.slice(0, n) }
}

const scaleFor = (dims: number): number => Math.fround(Math.sqrt(3 / dims))

const rowsFor = (dims: number, count: number): ReadonlyArray<SparseRow> => {
  let stream = streams.get(dims)
  if (stream === undefined) {
    stream = { rng: goRand(RP_SEED), rows: [] }
    streams.set(dims, stream)
  }
  if (stream.rows.length < count) {
    const scale = scaleFor(dims)
    const columns = new Int32Array(dims)
    const values = new Float32Array(dims)
    while (stream.rows.length < count) stream.rows.push(drawRow(stream.rng, scale, columns, values))
  }
  return stream.rows.slice(0, count)
}

/** Row `index` of the `dims`-dimensional projection as (column, value) pairs in column order. */
export const projectionRow = (dims: number, index: number): Array<readonly [column: number, value: number]> => {
  if (!Number.isSafeInteger(index) || index < 0) throw new RangeError(`projectionRow: bad row index ${index}`)
  const d = rpDims(dims)
  const row = rowsFor(d, index + 1)[index]!
  return Array.from(row.columns, (column, k) => [column, row.values[k]!] as const)
}

const modelOf = (tokens: ReadonlyArray<string>, vocab: ReadonlyMap<string, number>, dims: number): RpModel => {
  const d = rpDims(dims)
  return { dims: d, tokens, vocab, scale: scaleFor(d), rows: rowsFor(d, tokens.length) }
}

/** Fits on raw corpus texts: vocabulary = distinct tokens in first-seen order across the corpus in corpus order. */
export const fitRandomProjections = (corpus: ReadonlyArray<string>, dims: number): RpModel =>
  fitTokenStreams(corpus.map(tokenStream), dims)

/** Fits on already tokenized corpus texts (`tokenStream` of each). */
export const fitTokenStreams = (streamsOfCorpus: ReadonlyArray<ReadonlyArray<string>>, dims: number): RpModel => {
  const tokens: Array<string> = []
  const vocab = new Map<string, number>()
  for (const stream of streamsOfCorpus) {
    for (const token of stream) {
      if (!vocab.has(token)) {
        vocab.set(token, tokens.length)
        tokens.push(token)
      }
    }
  }
  return modelOf(tokens, vocab, dims)
}

/** Restores a model from its persisted vocabulary. Repeated tokens keep their first position, as a fit would. */
export const rpModelFromTokens = (tokens: ReadonlyArray<string>, dims: number): RpModel => {
  const distinct: Array<string> = []
  const vocab = new Map<string, number>()
  for (const token of tokens) {
    if (!vocab.has(token)) {
      vocab.set(token, distinct.length)
      distinct.push(token)
    }
  }
  return modelOf(distinct, vocab, dims)
}

/**
 * The unit vector of a raw text, or the zero vector when none of its tokens is in the vocabulary. Never fails.
 * Arithmetic is float32 as in Go: a Float32Array store rounds each sum, which is exactly a float32 addition.
 */
export const embedRp = (model: RpModel, text: string): Float32Array => embedTokens(model, tokenStream(text))

const embedTokens = (model: RpModel, stream: ReadonlyArray<string>): Float32Array =>
  embedRows(model, rowIndices(model, stream))

/**
 * The rows a token stream adds, in order (out-of-vocabulary tokens dropped). A text's vector is a function of this
 * sequence alone, which makes it a sound cache key across fits of a growing corpus.
 */
export const rowIndices = (model: RpModel, stream: ReadonlyArray<string>): Int32Array => {
  const out = new Int32Array(stream.length)
  let n = 0
  for (const token of stream) {
    const index = model.vocab.get(token)
    if (index !== undefined) out[n++] = index
  }
  return out.subarray(0, n)
}

/** The unit (or zero) vector of a row sequence, accumulated in float32 in sequence order as Go does. */
export const embedRows = (model: RpModel, indices: Int32Array): Float32Array => {
  const out = new Float32Array(model.dims)
  for (const index of indices) {
    const { columns, values } = model.rows[index]!
    for (let k = 0; k < columns.length; k++) out[columns[k]!]! += values[k]!
  }
  let squares = 0
  for (let k = 0; k < out.length; k++) squares = Math.fround(squares + Math.fround(out[k]! * out[k]!))
  if (squares > 0) {
    const norm = Math.fround(Math.sqrt(squares))
    for (let k = 0; k < out.length; k++) out[k] = out[k]! / norm
  }
  return out
}

/**
 * Fits on `corpus` and embeds `texts` in one pass, tokenizing each distinct text once: the same vectors as
 * `fitRandomProjections` + `embedRp`, bit for bit, at about half the cost when the texts include the corpus (merge
 * probes, dedup).
 */
export const embedWithCorpus = (
  corpus: ReadonlyArray<string>,
  texts: ReadonlyArray<string>,
  dims: number
): Array<Float32Array> => {
  const cache = new Map<string, ReadonlyArray<string>>()
  const streamOf = (t: string) => {
    let s = cache.get(t)
    if (s === undefined) {
      s = tokenStream(t)
      cache.set(t, s)
    }
    return s
  }
  const model = fitTokenStreams(corpus.map(streamOf), dims)
  return texts.map((t) => embedTokens(model, streamOf(t)))
}
