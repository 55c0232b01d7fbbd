/**
 * Tier 2 — the session buffer (spec facts §8): a ring of one-line turn summaries kept on the session, so the
 * agent sees what was just said without an LLM call. Pure: the caller supplies the UTC time and the capacity.
 */
import { trimSpace } from "../text/utf8.js"

/** Who a buffer line speaks for; the agent loop appends the user's input and the final assistant message. */
export type BufferRole = "user" | "agent"

// A summary keeps a sentence end only if that still leaves half of the allowed length.
const MAX_RUNES = 200
const MIN_SENTENCE_RUNES = 100
const ELLIPSIS = "\u2026"

// An unclosed fence is not a block: its backticks fall to step 2 and its contents stay.
const FENCE = /```[\s\S]*?```/gu
const INLINE_CODE = /`([^`]*)`/gu
const BACKTICK = /`/gu
const IMAGE = /!\[([^\]]*)\]\([^)]*\)/gu
const LINK = /\[([^\]]*)\]\([^)]*\)/gu
// Indented markers count too (nested list items). One pass, so `> - x` keeps its `- `.
const LINE_MARKER = /^[ \t]*(?:#{1,6}|>|-|\*|\+|\d+\.)[ \t]/gmu
// Emphasis does not pair across lines, so a stray `**` cannot unwrap everything up to one lines later.
const BOLD_STARS = /\*\*([^\n]+?)\*\*/gu
const BOLD_UNDERSCORES = /__([^\n]+?)__/gu
// Go's unicode.IsSpace set, which the rest of the domain trims by (see text/utf8.ts).
const WHITESPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/gu
// The opener must end at a word boundary (`Surely` is not `sure`); after step 5 the only whitespace is " ".
const FILLER_CLAUSE = new RegExp(
  String.raw`^(?:sure|okay|ok|got it|certainly|of course|alright|no problem|sounds good|absolutely|great` +
    String.raw`|happy to help|glad to help|i'll help|ill help|i can help)(?![\p{L}\p{M}\p{N}_])[^.!?]*[.!?] ?`,
  "iu"
)
// One space per character, not collapsed: restore promises the saved line otherwise verbatim.
const LINE_BREAKING = /[\n\r\t]/gu

const sanitise = (s: string): string => s.replace(LINE_BREAKING, " ")

const isSentenceEnd = (rune: string): boolean => rune === "." || rune === "!" || rune === "?"

// Step 7: a lone filler clause is the whole message, so it is kept.
const dropFillerClause = (text: string): string => {
  const clause = FILLER_CLAUSE.exec(text)
  if (clause === null) return text
  const rest = text.slice(clause[0].length)
  return rest === "" ? text : rest
}

// Step 8, in runes so that a cut never splits a code point.
const cutToLength = (text: string): string => {
  const runes = Array.from(text)
  if (runes.length <= MAX_RUNES) return text
  const head = runes.slice(0, MAX_RUNES)
  const afterSentence = head.findLastIndex(isSentenceEnd) + 1
  const lastSpace = head.lastIndexOf(" ")
  const end = afterSentence >= MIN_SENTENCE_RUNES ? afterSentence : lastSpace !== -1 ? lastSpace : MAX_RUNES
  return `${trimSpace(head.slice(0, end).join(""))}${ELLIPSIS}`
}

/** The deterministic one-line summary of a turn's message (spec facts §8 steps 1–8, then line sanitisation). */
export const summariseForBuffer = (message: string): string => {
  const withoutFences = message.replace(FENCE, "")
  const sawFence = withoutFences !== message
  const plain = withoutFences
    .replace(INLINE_CODE, "$1")
    .replace(BACKTICK, "")
    .replace(IMAGE, "$1")
    .replace(LINK, "$1")
    .replace(LINE_MARKER, "")
    .replace(BOLD_STARS, "$1")
    .replace(BOLD_UNDERSCORES, "$1")
  const collapsed = trimSpace(plain.replace(WHITESPACE, " "))
  if (collapsed === "") return sawFence ? "[code]" : ""
  return sanitise(cutToLength(dropFillerClause(collapsed)))
}

const twoDigits = (n: number): string => String(n).padStart(2, "0")

/** `HH:MM␠␠<role>␠␠<summary>`; `at` is the current UTC hour and minute, read by the caller. */
export const bufferLine = (
  at: { readonly hours: number; readonly minutes: number },
  role: BufferRole,
  message: string
): string => `${twoDigits(at.hours)}:${twoDigits(at.minutes)}  ${role}  ${summariseForBuffer(message)}`

// A fractional capacity rounds down; zero or less keeps nothing.
const newest = (lines: ReadonlyArray<string>, capacity: number): ReadonlyArray<string> => {
  const keep = Math.floor(capacity)
  return keep > 0 ? lines.slice(Math.max(0, lines.length - keep)) : []
}

/** Appends a line to the ring, evicting the oldest beyond `capacity`; capacity ≤ 0 discards every append. */
export const pushLine = (lines: ReadonlyArray<string>, line: string, capacity: number): ReadonlyArray<string> =>
  newest([...lines, sanitise(line)], capacity)

/** The buffer rebuilt from a saved session: lines verbatim (no re-summarising), only sanitised and capped. */
export const restoreLines = (saved: ReadonlyArray<string>, capacity: number): ReadonlyArray<string> =>
  newest(saved, capacity).map(sanitise)
