/**
 * Okapi BM25 over whole documents, the baseline recall is measured against: no summary, no budget, every word of
 * every session. Tokens are the protocol's normalised words (docs/CLI.md `eval recall`).
 */
import { normalise } from "../src/domain/eval/metrics.js"

const K1 = 1.2
const B = 0.75

const tokens = (text: string) =>
  normalise(text)
    .split(" ")
    .filter((t) => t !== "")

/**
 * An index over `docs`; `search` returns document indices, best first, those sharing no word with the query left
 * out.
 */
export const bm25 = (docs: ReadonlyArray<string>) => {
  const terms = docs.map((d) => {
    const tf = new Map<string, number>()
    const ts = tokens(d)
    for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1)
    return { tf, length: ts.length }
  })
  const df = new Map<string, number>()
  for (const { tf } of terms) for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1)
  const avg = terms.reduce((a, d) => a + d.length, 0) / Math.max(1, terms.length)
  const idf = (t: string) => {
    const n = df.get(t) ?? 0
    return Math.log(1 + (docs.length - n + 0.5) / (n + 0.5))
  }
  return {
    search: (query: string, k: number): ReadonlyArray<number> => {
      const q = [...new Set(tokens(query))]
      return terms
        .map((d, i) => ({
          i,
          s: q.reduce((sum, t) => {
            const f = d.tf.get(t) ?? 0
            return f === 0 ? sum : sum + (idf(t) * f * (K1 + 1)) / (f + K1 * (1 - B + (B * d.length) / avg))
          }, 0)
        }))
        .filter((x) => x.s > 0)
        .sort((a, b) => b.s - a.s || a.i - b.i)
        .slice(0, k)
        .map((x) => x.i)
    }
  }
}
