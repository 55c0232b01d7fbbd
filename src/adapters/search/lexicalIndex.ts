import { COVERAGE_MIN_WEIGHT, idf, termCeiling, termScore } from "../../domain/search/bm25.js"
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

const utf8 = new TextEncoder()
/** The first line of a persisted index, format 2. */
const MAGIC = utf8.encode("tmem-lexical-index 2\n")

interface Persisted {
  readonly mark: string | undefined
  readonly terms: ReadonlyArray<string>
  readonly ids: ReadonlyArray<string>
  readonly stamps: ReadonlyArray<string>
  readonly lengths: Uint32Array
  readonly counts: Uint32Array
  readonly termNumbers: Int32Array
  readonly tfs: Uint16Array
}

const isStrings = (x: unknown): x is Array<string> => Array.isArray(x) && x.every((s) => typeof s === "string")

/**
 * A persisted index's parts, each checked against the others (a damaged, cut or foreign file is undefined: the
 * caller rebuilds); the typed arrays are views of one aligned copy of the bytes.
 */
const readPersisted = (bytes: Uint8Array): Persisted | undefined => {
  if (bytes.length < MAGIC.length || !MAGIC.every((b, i) => bytes[i] === b)) return undefined
  const eol = bytes.indexOf(10, MAGIC.length)
  if (eol < 0) return undefined
  let header: {
    analyzer?: unknown
    mark?: unknown
    terms?: unknown
    ids?: unknown
    stamps?: unknown
    postings?: unknown
  }
  try {
    header = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(MAGIC.length, eol)))
  } catch {
    return undefined
  }
  const { analyzer, mark, terms, ids, stamps, postings } = header ?? {}
  if (mark !== undefined && typeof mark !== "string") return undefined
  // terms of another analyzer would never meet a query's: such an index is rebuilt, not read
  if (analyzer !== ANALYZER || !isStrings(terms) || !isStrings(ids) || !isStrings(stamps)) return undefined
  if (ids.length !== stamps.length || new Set(ids).size !== ids.length) return undefined
  // the terms in strictly increasing order: sorted (they are searched by bisection) and each listed once
  for (let i = 1; i < terms.length; i++) if (!(terms[i - 1]! < terms[i]!)) return undefined
  if (typeof postings !== "number" || !Number.isInteger(postings) || postings < 0) return undefined
  const n = ids.length
  const head = eol + 1
  const start = head + ((4 - (head % 4)) % 4)
  const size = 8 * n + 6 * postings
  if (bytes.length !== start + size) return undefined
  const aligned = new Uint8Array(size)
  aligned.set(bytes.subarray(start))
  const buffer = aligned.buffer
  const lengths = new Uint32Array(buffer, 0, n)
  const counts = new Uint32Array(buffer, 4 * n, n)
  const termNumbers = new Int32Array(buffer, 8 * n, postings)
  const tfs = new Uint16Array(buffer, 8 * n + 4 * postings, postings)
  // indexed loops, one pass: this runs once per process, before the engine has optimised anything
  let sum = 0
  for (let i = 0; i < n; i++) sum += counts[i]!
  if (sum !== postings) return undefined
  // every term number names a listed term, counted once per document (lastDoc holds the document's number + 1), and
  // no frequency is 0
  const m = terms.length
  const lastDoc = new Int32Array(m)
  let at = 0
  for (let i = 0; i < n; i++) {
    const end = at + counts[i]!
    for (; at < end; at++) {
      const t = termNumbers[at]!
      if (t < 0 || t >= m || lastDoc[t] === i + 1 || tfs[at] === 0) return undefined
      lastDoc[t] = i + 1
    }
  }
  return { mark, terms, ids, stamps, lengths, counts, termNumbers, tfs }
}

export const makeLexicalIndex = () => {
  // A term's number: a restored file's terms are numbered in their sorted order and found by binary search (no table
  // of tens of thousands of entries to build before the first search); terms met since are in `termIds`.
  let sortedTerms: ReadonlyArray<string> = []
  let termIds = new Map<string, number>()
  let termNames: Array<string> = []
  const numberOf = (term: string): number | undefined => {
    const added = termIds.get(term)
    if (added !== undefined) return added
    let lo = 0
    let hi = sortedTerms.length - 1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      const t = sortedTerms[mid]!
      if (t === term) return mid
      if (t < term) lo = mid + 1
      else hi = mid - 1
    }
    return undefined
  }
  let postings: Array<Postings | undefined> = []
  let docs = new Map<string, Doc>()
  let slotIds: Array<string | undefined> = []
  let slotLengths = new Float64Array(16)
  let totalLength = 0
  let dead = 0

  const idOf = (term: string) => {
    let id = numberOf(term)
    if (id === undefined) {
      id = termNames.length
      termIds.set(term, id)
      termNames.push(term)
    }
    return id
  }

  // the caller's name for the collection this index was last brought in step with (EpisodeSearch.inStepWith)
  let mark: string | undefined

  /**
   * The postings a restored file holds, all terms' end to end (term t's are offsets[t] to offsets[t + 1]): a term's
   * list is made into its own object only when a search, an add or a removal first needs it. Restoring then allocates
   * four arrays instead of two per term (10,000 terms cost a cold recall tens of milliseconds that way).
   */
  let restored: { readonly offsets: Int32Array; readonly slots: Int32Array; readonly tfs: Uint16Array } | undefined

  const postingOf = (termId: number): Postings | undefined => {
    const p = postings[termId]
    if (p !== undefined || restored === undefined || termId + 1 >= restored.offsets.length) return p
    const from = restored.offsets[termId]!
    const to = restored.offsets[termId + 1]!
    if (to === from) return undefined
    const made = {
      slots: restored.slots.subarray(from, to),
      tfs: restored.tfs.subarray(from, to),
      used: to - from,
      live: to - from
    }
    postings[termId] = made
    return made
  }

  const addPosting = (termId: number, slot: number, tf: number) => {
    let p = postingOf(termId)
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
    // every list is built anew from the documents: none may come back from a restored file's
    restored = undefined
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
    for (const t of d.termIds) postingOf(t)!.live--
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
    const id = numberOf(term)
    return id === undefined ? 0 : (postingOf(id)?.live ?? 0)
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
      const id = numberOf(term)
      const p = id === undefined ? undefined : postingOf(id)
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

  /**
   * The persisted form (format 2): a magic line, one JSON line with the analyzer and every string (terms, ids,
   * stamps), then four little-endian typed arrays: each document's length and number of distinct terms, and all
   * documents' term numbers and frequencies end to end. A new process reads it with a few views and one pass that
   * sizes each posting list exactly: restoring a 10,000-session index from the JSON of format 1 (an array per
   * document, each posting grown one by one) was the largest part of a cold `tmem recall`.
   */
  const serialize = (): Uint8Array => {
    const live = [...docs.entries()].sort((a, b) => a[1].slot - b[1].slot)
    // the live terms, sorted (how a restoring index finds them), and each one's number in that order
    const usedIds = new Set<number>()
    for (const [, d] of live) for (const t of d.termIds) usedIds.add(t)
    const named = [...usedIds]
      .map((t) => [t, termNames[t]!] as const)
      .sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    const terms = named.map(([, term]) => term)
    const used = new Map(named.map(([t], n) => [t, n] as const))
    let total = 0
    for (const [, d] of live) total += d.termIds.length
    const lengths = new Uint32Array(live.length)
    const counts = new Uint32Array(live.length)
    const termNumbers = new Int32Array(total)
    const tfs = new Uint16Array(total)
    let at = 0
    live.forEach(([, d], i) => {
      lengths[i] = d.length
      counts[i] = d.termIds.length
      for (let k = 0; k < d.termIds.length; k++) {
        termNumbers[at] = used.get(d.termIds[k]!)!
        tfs[at] = d.tfs[k]!
        at++
      }
    })
    const header = utf8.encode(
      `${JSON.stringify({
        analyzer: ANALYZER,
        ...(mark === undefined ? {} : { mark }),
        terms,
        ids: live.map(([id]) => id),
        stamps: live.map(([, d]) => d.stamp),
        postings: total
      })}\n`
    )
    // the binary part starts on a multiple of 4 bytes, so its arrays can be read in place
    const head = MAGIC.length + header.length
    const pad = (4 - (head % 4)) % 4
    const out = new Uint8Array(
      head + pad + lengths.byteLength + counts.byteLength + termNumbers.byteLength + tfs.byteLength
    )
    out.set(MAGIC, 0)
    out.set(header, MAGIC.length)
    let offset = head + pad
    for (const a of [lengths, counts, termNumbers, tfs]) {
      out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), offset)
      offset += a.byteLength
    }
    return out
  }

  /** Replaces the contents with a persisted index; false (contents untouched) when the bytes are not one. */
  const restore = (bytes: Uint8Array): boolean => {
    const read = readPersisted(bytes)
    if (read === undefined) return false
    const { terms, ids, stamps, lengths, counts, termNumbers, tfs } = read
    clear()
    mark = read.mark
    // the file's terms, sorted, are numbered in that order: the file's term numbers are then the index's own
    sortedTerms = terms
    termIds = new Map()
    termNames = [...terms]
    const offsets = new Int32Array(terms.length + 1)
    for (let i = 0; i < termNumbers.length; i++) offsets[termNumbers[i]! + 1]!++
    for (let t = 0; t < terms.length; t++) offsets[t + 1]! += offsets[t]!
    const next = offsets.slice(0, terms.length)
    const slots = new Int32Array(termNumbers.length)
    const postingTfs = new Uint16Array(termNumbers.length)
    slotLengths = new Float64Array(Math.max(16, ids.length))
    let at = 0
    for (let slot = 0; slot < ids.length; slot++) {
      const n = counts[slot]!
      for (let k = at; k < at + n; k++) {
        const t = termNumbers[k]!
        slots[next[t]!] = slot
        postingTfs[next[t]!] = tfs[k]!
        next[t]!++
      }
      slotIds.push(ids[slot]!)
      slotLengths[slot] = lengths[slot]!
      totalLength += lengths[slot]!
      docs.set(ids[slot]!, {
        slot,
        stamp: stamps[slot]!,
        length: lengths[slot]!,
        termIds: termNumbers.subarray(at, at + n),
        tfs: tfs.subarray(at, at + n)
      })
      at += n
    }
    restored = { offsets, slots, tfs: postingTfs }
    return true
  }

  const clear = () => {
    mark = undefined
    postings = []
    restored = undefined
    docs = new Map()
    slotIds = []
    slotLengths = new Float64Array(16)
    totalLength = 0
    dead = 0
  }

  return {
    put,
    remove,
    search,
    termWeights,
    stamps,
    serialize,
    restore,
    size: () => docs.size,
    inStepWith: () => mark,
    markInStep: (m: string | undefined) => {
      mark = m
    }
  }
}

export type LexicalIndex = ReturnType<typeof makeLexicalIndex>
