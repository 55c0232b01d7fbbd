/**
 * BM25 ranking (Robertson–Spärck Jones weights with document-length normalisation), the scoring half of the
 * lexical index: pure functions of the collection's statistics. The index that keeps those statistics lives in an
 * adapter; the passage picker scores sentences with the same weights.
 */

/**
 * Term-frequency saturation (the usual 1.2) and how strongly long documents are discounted. A session that ran long
 * covered more, and is more often the one a question is about: the usual 0.75 discounted it so much that a short
 * session sharing one common word came first. On the dev set every b from 0.3 to 0.6 gave 2 points more top-3
 * recall than 0.75 (with any k1 from 0.6 to 1.6); 0.5 sits in the middle of that plateau.
 */
export const BM25_K1 = 1.2
export const BM25_B = 0.5

/** The collection a query is scored against. */
export interface CollectionStats {
  /** Documents in the collection. */
  readonly documents: number
  /** Mean document length, in terms. */
  readonly meanLength: number
  /** Documents containing `term` (0 when none). */
  readonly frequency: (term: string) => number
}

/** How rare a term is: BM25's non-negative IDF (a term in every document still weighs a little, never less than 0). */
export const idf = (documents: number, frequency: number): number =>
  Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5))

/** One term's contribution to a document of `length` terms in which it occurs `tf` times. */
export const termScore = (weight: number, tf: number, length: number, meanLength: number): number =>
  (weight * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / Math.max(meanLength, 1)))

/**
 * The least a query term weighs when judging how much of the query a document covers: a name found in every episode
 * still says the question is about this memory, though it cannot say which episode.
 */
export const COVERAGE_MIN_WEIGHT = 1

/** The most one term can add, whatever the document: the ceiling the relevance floor measures against. */
export const termCeiling = (weight: number): number => weight * (BM25_K1 + 1)

/** The query's distinct terms with their weights in this collection (terms of no document weigh as the rarest). */
export const queryWeights = (
  terms: ReadonlyArray<string>,
  stats: CollectionStats
): Array<{ readonly term: string; readonly weight: number }> =>
  [...new Set(terms)].map((term) => ({ term, weight: idf(stats.documents, stats.frequency(term)) }))
