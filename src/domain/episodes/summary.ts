/**
 * Episode text rules (spec episodes §3.5, §4.3, §4.4): which model replies count as an episode, how a stored
 * summary and its index preview are bounded. The summary written when no LLM is available is in extractive.ts.
 */
import { trimSpace, truncateBytes, utf8Bytes } from "../text/utf8.js"

/** Largest stored summary (§4.3). */
export const SUMMARY_CAP_BYTES = 2048
/** Largest index preview (§4.4). */
export const PREVIEW_CAP_BYTES = 120

// A sentence end or whitespace cut must lie beyond this, or an early "e.g." would collapse the summary.
const HALF_SUMMARY = SUMMARY_CAP_BYTES / 2
const ELLIPSIS = "…"
const PREVIEW_DOTS = "..."

// Go's unicode.IsSpace, like trimSpace, so "followed by whitespace" agrees with how replies are trimmed.
const SPACE = /^[\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/
const isSpace = (ch: string | undefined): boolean => ch !== undefined && SPACE.test(ch)

// What reaches disk is UTF-8: a lone surrogate would be written as U+FFFD anyway, so make that explicit up front.
const wellFormed = (s: string): string => s.replace(/\p{Surrogate}/gu, "\uFFFD")

/** Index just past the last `.`/`!`/`?` before `limit` that is followed (in the full text) by whitespace or the end. */
const lastSentenceEnd = (s: string, limit: number): number => {
  for (let i = limit - 1; i >= 0; i--) {
    const ch = s[i]
    if ((ch === "." || ch === "!" || ch === "?") && (i + 1 === s.length || isSpace(s[i + 1]))) return i + 1
  }
  return -1
}

/** `s` cut before its last whitespace run, when that cut keeps more than `minBytes`; else undefined. */
const cutAtLastSpace = (s: string, minBytes: number): string | undefined => {
  let i = s.length - 1
  while (i >= 0 && !isSpace(s[i])) i--
  if (i < 0) return undefined
  while (i > 0 && isSpace(s[i - 1])) i--
  const cut = s.slice(0, i)
  return utf8Bytes(cut) > minBytes ? cut : undefined
}

/**
 * The stored form of a summary (§4.3): unchanged up to 2,048 bytes; otherwise cut after the last sentence end in
 * the window when that keeps more than half of it, else at the last word break past half (or a hard rune-safe cut)
 * followed by `…`. Always ≤ 2,048 bytes and a prefix of the input apart from the `…` (lone surrogates read as U+FFFD).
 */
export const capSummary = (text: string): string => {
  const s = wellFormed(text)
  if (utf8Bytes(s) <= SUMMARY_CAP_BYTES) return s
  const end = lastSentenceEnd(s, truncateBytes(s, SUMMARY_CAP_BYTES).length)
  if (end !== -1 && utf8Bytes(s.slice(0, end)) > HALF_SUMMARY) return s.slice(0, end)
  const room = truncateBytes(s, SUMMARY_CAP_BYTES - utf8Bytes(ELLIPSIS))
  return `${cutAtLastSpace(room, HALF_SUMMARY) ?? room}${ELLIPSIS}`
}

/**
 * The ≤120-byte preview kept in index.json and shown by recall and search (§4.4): first ≤117 bytes + `...` when
 * longer.
 */
export const indexPreview = (text: string): string => {
  // Only the head can show: a code unit is at least one byte, so past the first 121 units the text is over the cap
  // whatever follows, and the cut to 117 bytes never reaches beyond unit 117. index.json previews every episode on
  // each write; encoding each whole summary for that was a tenth of an ingest at 10,000 episodes.
  const s = wellFormed(text.length > PREVIEW_CAP_BYTES + 1 ? text.slice(0, PREVIEW_CAP_BYTES + 1) : text)
  return utf8Bytes(s) <= PREVIEW_CAP_BYTES
    ? s
    : `${truncateBytes(s, PREVIEW_CAP_BYTES - PREVIEW_DOTS.length)}${PREVIEW_DOTS}`
}

/**
 * The model's "nothing worth remembering" answer (§3.5.2): `NONE`/`none.` alone, or a reply opening with the
 * word `NONE`.
 */
export const isDecline = (reply: string): boolean => {
  const t = trimSpace(reply)
  return /^none\.?$/i.test(t) || /^NONE(?:$|[\s\p{P}])/u.test(t)
}

/** Openings of a refusal (§3.5.3). */
export const DECLINE_OPENINGS: ReadonlyArray<string> = [
  "I can't",
  "I cannot",
  "I can not",
  "I'm sorry",
  "I am sorry",
  "Sorry",
  "I'm unable",
  "I am unable",
  "Unfortunately",
  "As an AI",
  "I won't",
  "I will not",
  "There is nothing",
  "Nothing to",
  "No summary"
]

/** Openings of a reply that is a turn in the conversation rather than a record of it (§3.5.3). */
export const CONVERSATIONAL_OPENINGS: ReadonlyArray<string> = [
  "Picking this back up",
  "Picking up",
  "Let me",
  "Let's",
  "Sure",
  "Okay",
  "OK,",
  "Got it",
  "Certainly",
  "Of course",
  "Absolutely",
  "Here's",
  "Here is",
  "Happy to",
  "Glad to",
  "Thanks",
  "Thank you",
  "Welcome back",
  "Hi",
  "Hello",
  "Hey",
  "Great",
  "I'll",
  "Would you",
  "Do you",
  "Should I",
  "Shall we"
]

const OPENING_BYTES = 200
const LETTER = /^\p{L}$/u
const OPENING_PHRASES = [...DECLINE_OPENINGS, ...CONVERSATIONAL_OPENINGS].map((p) => p.toLowerCase())
// Addressing the reader; "you're", "you've", "you'll" are "you" followed by a non-letter.
const SECOND_PERSON = /(?<!\p{L})(?:you|your|yourself)(?!\p{L})/iu

// Models write "I’m" as often as "I'm"; both spellings must hit the same phrase.
const normalizeApostrophes = (s: string): string => s.replace(/[\u2018\u2019\u02bc]/g, "'")

/** The first sentence (through its `.`/`!`/`?` when followed by whitespace or the end), within the first 200 bytes. */
const openingOf = (t: string): string => {
  const window = truncateBytes(t, OPENING_BYTES)
  for (let i = 0; i < window.length; i++) {
    const ch = window[i]
    if ((ch === "." || ch === "!" || ch === "?") && (i + 1 === t.length || isSpace(t[i + 1])))
      return window.slice(0, i + 1)
  }
  return window
}

// A phrase ending in a letter must end a word ("Sure" is not "Surefire"); "OK," already ends in punctuation.
const startsWithPhrase = (opening: string, phrase: string): boolean => {
  if (!opening.startsWith(phrase)) return false
  if (!LETTER.test(phrase.slice(-1))) return true
  const next = opening.codePointAt(phrase.length)
  return next === undefined || !LETTER.test(String.fromCodePoint(next))
}

/**
 * True when the reply reads as a record of the session (§3.5.3): not empty, not a decline, and its opening neither
 * starts like a refusal or a conversational turn nor addresses the reader as "you".
 */
export const looksLikeEpisode = (reply: string): boolean => {
  const t = trimSpace(reply)
  if (t === "" || isDecline(t)) return false
  const opening = normalizeApostrophes(openingOf(t)).toLowerCase()
  return !OPENING_PHRASES.some((p) => startsWithPhrase(opening, p)) && !SECOND_PERSON.test(opening)
}
