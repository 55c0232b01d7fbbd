/**
 * The default local embedding (DESIGN §7 "Retrieval", docs/adr/0006): the search terms of a text (stop words of
 * several languages left out, inflections folded) weighted by how rare each is in the corpus the model is fitted
 * on (a smoothed IDF, ln(1 + N/df), with a sub-linear term frequency), projected onto the same sparse random rows as
 * the
 * Go-compatible space. Common words and speaker names no longer outweigh the one rare word a text is about. The
 * space differs from odek's `rp/<D>`, which stays available for odek's persisted vectors.
 */
import { searchTerms } from "../search/terms.js"
import { fitTokenStreams, type RpModel, rpDims } from "./randomProjections.js"

/**
 * Space id: vectors of two fits are comparable only when both the id and the fitted corpus match. `rp-idf2` since the
 * search terms are Porter-stemmed (terms.ts ANALYZER): vectors kept from `rp-idf` are rebuilt.
 */
export const weightedFingerprint = (dims: number): string => `rp-idf2/${rpDims(dims)}`

export interface WeightedModel {
  readonly rp: RpModel
  /** IDF of each vocabulary row, by row index. */
  readonly weights: Float32Array
}

/** Fits on the corpus: its terms in first-seen order get the random rows, and each its IDF within the corpus. */
export const fitWeighted = (corpusTerms: ReadonlyArray<ReadonlyArray<string>>, dims: number): WeightedModel => {
  const rp = fitTokenStreams(corpusTerms, dims)
  const df = new Float64Array(rp.tokens.length)
  for (const terms of corpusTerms) for (const t of new Set(terms)) df[rp.vocab.get(t)!]!++
  const n = corpusTerms.length
  // smoothed so a term shared by every text of a tiny corpus (a fact and its restatement) still counts: BM25's IDF
  // would nearly zero it and make every restatement look unrelated
  return { rp, weights: Float32Array.from(df, (f) => Math.log(1 + n / Math.max(f, 1))) }
}

/**
 * The unit (or zero) vector of a text's terms; terms outside the fitted vocabulary cannot match anything and are left
 * out.
 */
export const embedWeighted = (model: WeightedModel, terms: ReadonlyArray<string>): Float32Array => {
  const counts = new Map<number, number>()
  for (const t of terms) {
    const row = model.rp.vocab.get(t)
    if (row !== undefined) counts.set(row, (counts.get(row) ?? 0) + 1)
  }
  const out = new Float32Array(model.rp.dims)
  // rows in index order, so a vector never depends on the order its text repeats terms in
  for (const row of [...counts.keys()].sort((a, b) => a - b)) {
    const w = (1 + Math.log(counts.get(row)!)) * model.weights[row]!
    const { columns, values } = model.rp.rows[row]!
    for (let k = 0; k < columns.length; k++) out[columns[k]!]! += w * values[k]!
  }
  let squares = 0
  for (let k = 0; k < out.length; k++) squares += out[k]! * out[k]!
  if (squares > 0) {
    const norm = Math.sqrt(squares)
    for (let k = 0; k < out.length; k++) out[k] = out[k]! / norm
  }
  return out
}

/** The terms the weighted space reads a text by (the lexical index's own). */
export const weightedTerms = (text: string): Array<string> => searchTerms(text)

/**
 * A text's distinct terms as small integer ids (any one-to-one numbering of terms shared by the texts compared, such as
 * an intern table's) with their sub-linear term frequencies (1 + ln count), as `embedWeighted` weighs them.
 */
export interface TermCounts {
  readonly ids: Int32Array
  readonly tf: Float64Array
}

export const countTerms = (terms: ReadonlyArray<string>, idOf: (term: string) => number): TermCounts => {
  const counts = new Map<number, number>()
  for (const t of terms) {
    const id = idOf(t)
    counts.set(id, (counts.get(id) ?? 0) + 1)
  }
  return { ids: Int32Array.from(counts.keys()), tf: Float64Array.from(counts.values(), (c) => 1 + Math.log(c)) }
}

/**
 * The cosine of `query` to each corpus text in the weighted space itself, before the projection: the value the
 * projected vectors estimate (the projection adds noise of about 1/√D to each cosine), for a cost proportional to the
 * texts' terms instead of to D. Weights as `fitWeighted` + `embedWeighted`: the corpus's smoothed IDF, a sub-linear
 * term frequency, and a query term the corpus lacks counting for nothing. A text with no weighted term is 0 to all.
 */
export const weightedSimilarities = (corpus: ReadonlyArray<TermCounts>, query: TermCounts): Array<number> => {
  // indexed loops: the episode dedup probe runs this over every summary of the memory on each ingest
  let top = 0
  for (let i = 0; i < query.ids.length; i++) top = Math.max(top, query.ids[i]!)
  for (let t = 0; t < corpus.length; t++) {
    const ids = corpus[t]!.ids
    for (let i = 0; i < ids.length; i++) if (ids[i]! > top) top = ids[i]!
  }
  // indexed by term id: document frequency, then the query's weight
  const df = new Float64Array(top + 1)
  for (let t = 0; t < corpus.length; t++) {
    const ids = corpus[t]!.ids
    for (let i = 0; i < ids.length; i++) df[ids[i]!]!++
  }
  const n = corpus.length
  // each term's IDF once, not once per posting (a logarithm per posting was most of a probe over 8,000 summaries)
  const idfs = new Float64Array(top + 1)
  for (let id = 0; id <= top; id++) if (df[id]! > 0) idfs[id] = Math.log(1 + n / df[id]!)
  const idf = (id: number) => idfs[id]!
  const weights = new Float64Array(top + 1)
  let queryNorm = 0
  query.ids.forEach((id, i) => {
    if (df[id] === 0) return
    const q = query.tf[i]! * idf(id)
    weights[id] = q
    queryNorm += q * q
  })
  return corpus.map((text) => {
    let dot = 0
    let norm = 0
    for (let i = 0; i < text.ids.length; i++) {
      const id = text.ids[i]!
      const w = text.tf[i]! * idf(id)
      norm += w * w
      dot += w * weights[id]!
    }
    return dot === 0 ? 0 : dot / Math.sqrt(norm * queryNorm)
  })
}
