/**
 * What recall shows of an episode besides its preview: the sentences of its text that best answer the query
 * (DESIGN §7 "Retrieval"), best first, within a byte budget. Pure; weights come from the lexical index.
 */
import { truncateBytes, utf8Bytes } from "../text/utf8.js"
import { searchTerms } from "./terms.js"

/** Longest sentence shown; a longer one is cut around its first matching term. */
export const PASSAGE_MAX_BYTES = 320
const ELLIPSIS = "…"
/** A query term weighing less than this share of the query's rarest term does not make a sentence match. */
const MIN_SHARE = 0.1
// a sentence ends at . ! ? (or their full-width forms) followed by a space, or at a line end
const SENTENCE_END = /(?<=[.!?。！？])\s+|\n+/u
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

/** The sentences of a text, each trimmed and on one line, blanks dropped. */
export const sentencesOf = (text: string): Array<string> =>
  text
    .replace(CONTROL, " ")
    .split(SENTENCE_END)
    .map((s) => s.replace(/\s+/gu, " ").trim())
    .filter((s) => s !== "")

/** A sentence cut to `max` bytes, keeping the part around `focus` (a term it contains) when that is past the cut. */
const fit = (sentence: string, focus: string | undefined, max: number): string => {
  if (utf8Bytes(sentence) <= max) return sentence
  const at = focus === undefined ? -1 : sentence.toLowerCase().indexOf(focus)
  const room = max - 2 * utf8Bytes(ELLIPSIS)
  if (at <= 0 || utf8Bytes(sentence.slice(0, at)) < room / 2)
    return `${truncateBytes(sentence, max - utf8Bytes(ELLIPSIS))}${ELLIPSIS}`
  // start a little before the focus term, at a word break
  let start = at
  for (let back = 0; start > 0 && back < room / 3; back++) start--
  const space = sentence.indexOf(" ", start)
  if (space !== -1 && space < at) start = space + 1
  const rest = sentence.slice(start)
  const cut = truncateBytes(rest, room)
  return cut.length === rest.length ? `${ELLIPSIS}${rest}` : `${ELLIPSIS}${cut}${ELLIPSIS}`
}

const normalised = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, " ")
    .trim()

/**
 * The sentences of `text` that match the query, best first: each scores the summed weight of the distinct query
 * terms it holds (`weights`: rare terms weigh most; one under a tenth of the rarest does not count). Each is shown
 * with the sentence after it, which in a chat usually completes it (a question always; otherwise while both fit).
 * Taken while they fit `budget` bytes (one line each, the newline counted), at most `max`; a sentence matching
 * nothing is never shown, nor one already shown.
 */
export const bestPassages = (
  text: string,
  weights: ReadonlyMap<string, number>,
  budget: number,
  max = 3
): Array<string> => {
  if (weights.size === 0 || budget <= 0) return []
  const sentences = sentencesOf(text)
  // a term found nearly everywhere (the speakers' names) cannot say which sentence answers
  const strongest = Math.max(...weights.values())
  const least = strongest * MIN_SHARE
  const scored = sentences
    .map((s, i) => {
      let score = 0
      let focus: string | undefined
      const seen = new Set<string>()
      for (const t of searchTerms(s)) {
        const w = weights.get(t)
        if (w === undefined || w < least || seen.has(t)) continue
        seen.add(t)
        score += w
        if (focus === undefined) focus = t
      }
      return { i, score, focus }
    })
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
  const out: Array<string> = []
  const shown: Array<string> = []
  let left = budget
  for (const x of scored) {
    if (out.length >= max) break
    const sentence = sentences[x.i]!
    const next = sentences[x.i + 1]
    const own = normalised(sentence)
    if (own === "" || shown.some((s) => s.includes(own))) continue
    // what follows a matching sentence in a chat usually completes it (the answer to a question, the detail after a
    // mention): shown with it while both fit one passage
    const joined = next === undefined ? sentence : `${sentence} ${next}`
    const text =
      next !== undefined && (/[?？]$/u.test(sentence) || utf8Bytes(joined) <= PASSAGE_MAX_BYTES) ? joined : sentence
    const line = fit(text, x.focus, Math.min(PASSAGE_MAX_BYTES, left - 1))
    if (line === "" || utf8Bytes(line) + 1 > left) continue
    out.push(line)
    shown.push(normalised(line))
    left -= utf8Bytes(line) + 1
  }
  return out
}
