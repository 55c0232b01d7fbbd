import { idf, termCeiling, termScore } from "../../domain/search/bm25.js"
import { ANALYZER, searchTerms } from "../../domain/search/terms.js"

/**
 * An in-memory inverted index with BM25 ranking (docs/adr/0006). Postings are typed arrays, a removed document is a
 * tombstone until a quarter of the slots are dead and everything is re-slotted; every statistic a score uses (live
 * documents, their mean length, each term's live document count) counts live documents only, so an index that saw
 * any sequence of adds and removals ranks exactly like one built from its current documents.
 */

/** What one document is indexed from. */
export interface IndexedText {
  readonly id: string
  /** Changes whenever the indexed text does; the caller compares it to decide what to re-index. */
  readonly stamp: string
  readonly text: string
}

export interface LexicalMatch {
  readonly id: string
  readonly score: number
  /** The share of the query's weight this document matched (0–1): its BM25 score over the query's ceiling. */
  readonly coverage: number
}

interface Doc {
  readonly slot: number
  readonly stamp: string
  readonly length: number
  readonly termIds: Int32Array
  readonly tfs: Uint16Array
}

interface Postings {
  slots: Int32Array
  tfs: Uint16Array
  used: number
  /** Live documents holding the term: its document frequency. */
  live: number
}

const MAX_TF = 0xffff
/** The least a query term weighs when judging how much of the query a document covers. */
const COVERAGE_MIN_WEIGHT = 1

/** Term ids and frequencies of a text, distinct terms in first-seen order. */
const countTerms = (text: string, idOf: (term: string) => number) => {
  const counts = new Map<number, number>()
  const terms = searchTerms(text)
  for (const t of terms) {
    const id = idOf(t)
    counts.set(id, Math.min(MAX_TF, (counts.get(id) ?? 0) + 1))
  }
  return { length: terms.length, termIds: Int32Array.from(counts.keys()), tfs: Uint16Array.from(counts.values()) }
}

export const makeLexicalIndex = () => {
  const termIds = new Map<string, number>()
  const termNames: Array<string> = []
  let postings: Array<Postings | undefined> = []
  let docs = new Map<string, Doc>()
  let slotIds: Array<string | undefined> = []
  let slotLengths = new Float64Array(16)
  let totalLength = 0
  let dead = 0

  const idOf = (term: string) => {
    let id = termIds.get(term)
    if (id === undefined) {
      id = termNames.length
      termIds.set(term, id)
      termNames.push(term)
    }
    return id
  }

  const addPosting = (termId: number, slot: number, tf: number) => {
    let p = postings[termId]
    if (p === undefined) {
      p = { slots: new Int32Array(4), tfs: new Uint16Array(4), used: 0, live: 0 }
      postings[termId] = p
    }
    if (p.used === p.slots.length) {
      const slots = new Int32Array(p.slots.length * 2)
      slots.set(p.slots)
      const tfs = new Uint16Array(p.tfs.length * 2)
      tfs.set(p.tfs)
      p.slots = slots
      p.tfs = tfs
    }
    p.slots[p.used] = slot
    p.tfs[p.used] = tf
    p.used++
    p.live++
  }

  const place = (id: string, stamp: string, length: number, ids: Int32Array, tfs: Uint16Array) => {
    const slot = slotIds.length
    slotIds.push(id)
    if (slot >= slotLengths.length) {
      const grown = new Float64Array(slotLengths.length * 2)
      grown.set(slotLengths)
      slotLengths = grown
    }
    slotLengths[slot] = length
    totalLength += length
    for (let i = 0; i < ids.length; i++) addPosting(ids[i]!, slot, tfs[i]!)
    docs.set(id, { slot, stamp, length, termIds: ids, tfs })
  }

  /** Re-slots the live documents once tombstones pile up, so postings stay short. */
  const compact = () => {
    const live = [...docs.entries()].sort((a, b) => a[1].slot - b[1].slot)
    postings = []
    docs = new Map()
    slotIds = []
    slotLengths = new Float64Array(Math.max(16, live.length))
    totalLength = 0
    dead = 0
    for (const [id, d] of live) place(id, d.stamp, d.length, d.termIds, d.tfs)
  }

  const remove = (id: string) => {
    const d = docs.get(id)
    if (d === undefined) return
    docs.delete(id)
    slotIds[d.slot] = undefined
    totalLength -= d.length
    for (const t of d.termIds) postings[t]!.live--
    dead++
    if (dead > 64 && dead * 4 > slotIds.length) compact()
  }

  const put = (doc: IndexedText) => {
    const known = docs.get(doc.id)
    if (known !== undefined && known.stamp === doc.stamp) return
    remove(doc.id)
    const counted = countTerms(doc.text, idOf)
    place(doc.id, doc.stamp, counted.length, counted.termIds, counted.tfs)
  }

  const frequency = (term: string) => {
    const id = termIds.get(term)
    return id === undefined ? 0 : (postings[id]?.live ?? 0)
  }

  /** The best `limit` documents for `query`, best first; ties by id so the order never depends on history. */
  const search = (query: string, limit: number): Array<LexicalMatch> => {
    const n = docs.size
    if (n === 0 || limit <= 0) return []
    const mean = totalLength / n
    const weights = [...new Set(searchTerms(query))].map((term) => ({ term, weight: idf(n, frequency(term)) }))
    // coverage counts every term at least COVERAGE_MIN_WEIGHT: a name found in every episode still says the
    // question is about this memory, though it cannot say which episode
    const ceiling = weights.reduce((s, w) => s + termCeiling(Math.max(w.weight, COVERAGE_MIN_WEIGHT)), 0)
    if (weights.length === 0) return []
    const scores = new Float64Array(slotIds.length)
    const covered = new Float64Array(slotIds.length)
    const touched: Array<number> = []
    for (const { term, weight } of weights) {
      const id = termIds.get(term)
      const p = id === undefined ? undefined : postings[id]
      if (p === undefined || p.live === 0) continue
      const coverWeight = Math.max(weight, COVERAGE_MIN_WEIGHT)
      for (let i = 0; i < p.used; i++) {
        const slot = p.slots[i]!
        if (slotIds[slot] === undefined) continue
        if (covered[slot] === 0) touched.push(slot)
        scores[slot]! += termScore(weight, p.tfs[i]!, slotLengths[slot]!, mean)
        covered[slot]! += termScore(coverWeight, p.tfs[i]!, slotLengths[slot]!, mean)
      }
    }
    // the best `limit` by insertion into a short sorted list: sorting every touched document cost more than
    // scoring them at 10,000 episodes
    const before = (a: number, b: number) =>
      scores[a]! > scores[b]! || (scores[a] === scores[b] && slotIds[a]! < slotIds[b]!)
    const best: Array<number> = []
    for (const slot of touched) {
      if (best.length === limit && !before(slot, best[limit - 1]!)) continue
      let i = best.length === limit ? limit - 1 : best.length
      if (best.length < limit) best.push(slot)
      while (i > 0 && before(slot, best[i - 1]!)) {
        best[i] = best[i - 1]!
        i--
      }
      best[i] = slot
    }
    return best.map((slot) => ({ id: slotIds[slot]!, score: scores[slot]!, coverage: covered[slot]! / ceiling }))
  }

  /** The weight of each of the query's terms here (rare terms weigh most), for picking the sentences to show. */
  const termWeights = (query: string): Map<string, number> => {
    const n = docs.size
    return new Map([...new Set(searchTerms(query))].map((t) => [t, idf(Math.max(n, 1), frequency(t))] as const))
  }

  /** The indexed documents and their stamps. */
  const stamps = (): Map<string, string> => new Map([...docs].map(([id, d]) => [id, d.stamp] as const))

  /** A compact JSON form: the live documents with their term ids into a term list holding only live terms. */
  const serialize = (): string => {
    const used = new Map<number, number>()
    const terms: Array<string> = []
    const rows = [...docs.entries()]
      .sort((a, b) => a[1].slot - b[1].slot)
      .map(([id, d]) => {
        const ids = Array.from(d.termIds, (t) => {
          let k = used.get(t)
          if (k === undefined) {
            k = terms.length
            used.set(t, k)
            terms.push(termNames[t]!)
          }
          return k
        })
        return [id, d.stamp, d.length, ids, Array.from(d.tfs)]
      })
    return JSON.stringify({ v: 1, analyzer: ANALYZER, terms, docs: rows })
  }

  /** Replaces the contents with a serialized index; false (contents untouched) when the text is not one. */
  const restore = (text: string): boolean => {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return false
    }
    const p = parsed as { v?: unknown; analyzer?: unknown; terms?: unknown; docs?: unknown }
    // terms of another analyzer would never meet a query's: such an index is rebuilt, not read
    if (
      p.v !== 1 ||
      p.analyzer !== ANALYZER ||
      !Array.isArray(p.terms) ||
      !Array.isArray(p.docs) ||
      !p.terms.every((t) => typeof t === "string")
    )
      return false
    const terms = p.terms as Array<string>
    const rows: Array<[string, string, number, Array<number>, Array<number>]> = []
    for (const r of p.docs as Array<unknown>) {
      if (!Array.isArray(r) || r.length !== 5) return false
      const [id, stamp, length, ids, tfs] = r as [unknown, unknown, unknown, unknown, unknown]
      if (
        typeof id !== "string" ||
        typeof stamp !== "string" ||
        typeof length !== "number" ||
        !Array.isArray(ids) ||
        !Array.isArray(tfs) ||
        ids.length !== tfs.length
      )
        return false
      if (
        !ids.every((i) => Number.isInteger(i) && i >= 0 && i < terms.length) ||
        !tfs.every((f) => Number.isInteger(f) && f > 0 && f <= MAX_TF)
      )
        return false
      rows.push([id, stamp, length, ids as Array<number>, tfs as Array<number>])
    }
    clear()
    for (const [id, stamp, length, ids, tfs] of rows) {
      if (docs.has(id)) continue
      place(
        id,
        stamp,
        length,
        Int32Array.from(ids, (i) => idOf(terms[i]!)),
        Uint16Array.from(tfs)
      )
    }
    return true
  }

  const clear = () => {
    postings = []
    docs = new Map()
    slotIds = []
    slotLengths = new Float64Array(16)
    totalLength = 0
    dead = 0
  }

  return { put, remove, search, termWeights, stamps, serialize, restore, size: () => docs.size }
}

export type LexicalIndex = ReturnType<typeof makeLexicalIndex>
