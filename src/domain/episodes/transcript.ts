/**
 * The transcript the episode summariser reads (spec episodes §3.3). It never sees the raw history: system content
 * (the prompt, injected memory) is dropped and tool output is reduced to its size, so neither can steer the summary,
 * and the byte caps keep one huge session from filling the model's context.
 */
import type { ChatMessage } from "../sessions/message.js"
import { trimSpace, truncateBytes, utf8Bytes } from "../text/utf8.js"

/** Per-message content cap (§3.3.3). */
export const MESSAGE_CAP_BYTES = 4096
/** Whole-transcript cap, elision marker included (§3.3.4). */
export const TRANSCRIPT_CAP_BYTES = 32768
/** How much of the start (the original task) survives elision (§3.3.4). */
export const TRANSCRIPT_HEAD_BYTES = 8192
/** Appended to a message cut at MESSAGE_CAP_BYTES (§3.3.3). */
export const TRUNCATION_MARKER = " …[truncated]"

/** The single marker between head and tail; `omitted` is the number of transcript bytes dropped (§3.3.4). */
export const elisionMarker = (omitted: number): string => `\n[… ${omitted} bytes of the session omitted …]\n`

// The transcript is untrusted session data; a lone surrogate would otherwise survive into the prompt as invalid UTF-8.
const wellFormed = (s: string): string => s.replace(/\p{Surrogate}/gu, "\uFFFD")

const capContent = (content: string): string => {
  const s = wellFormed(content)
  return utf8Bytes(s) > MESSAGE_CAP_BYTES ? `${truncateBytes(s, MESSAGE_CAP_BYTES)}${TRUNCATION_MARKER}` : s
}

const lineOf = (m: ChatMessage): ReadonlyArray<string> => {
  switch (m.role) {
    case "system":
      return []
    case "tool":
      return [`tool: [output omitted, ${utf8Bytes(m.content)} bytes]`]
    case "assistant":
      // a tool-call-only turn has nothing to say; its arguments are not rendered either
      return trimSpace(m.content) === "" ? [] : [`assistant: ${capContent(m.content)}`]
    case "user":
      return [`user: ${capContent(m.content)}`]
  }
}

const NEWLINE = 0x0a
const isContinuation = (b: number | undefined): boolean => b !== undefined && (b & 0xc0) === 0x80
const runeFloor = (bytes: Uint8Array, i: number): number => {
  while (i > 0 && isContinuation(bytes[i])) i--
  return i
}
const runeCeil = (bytes: Uint8Array, i: number): number => {
  while (i < bytes.length && isContinuation(bytes[i])) i++
  return i
}
const digits = (n: number): number => String(n).length

const encoder = new TextEncoder()
const decoder = new TextDecoder()

// Head (the task) + marker + tail (the outcome). Both cuts prefer line boundaries so neither end starts or stops
// mid-line when a boundary is close enough; all offsets are byte offsets into the UTF-8 encoding.
const elide = (bytes: Uint8Array): string => {
  const total = bytes.length
  let head = runeFloor(bytes, TRANSCRIPT_HEAD_BYTES)
  if (bytes[head] !== NEWLINE) {
    const lastBreak = bytes.lastIndexOf(NEWLINE, head - 1)
    if (lastBreak >= head / 2) head = lastBreak
  }
  // The marker's length depends on the omitted count, which depends on the tail: try the fewest digits first.
  let start = total
  for (let d = 1; d <= 16; d++) {
    const budget = TRANSCRIPT_CAP_BYTES - head - utf8Bytes(elisionMarker(10 ** (d - 1)))
    // with lines capped near 4 KiB the line-start step below always moves past this; the ceil keeps the cut valid
    // regardless
    start = runeCeil(bytes, total - budget)
    if (digits(start - head) <= d) break
  }
  if (bytes[start - 1] !== NEWLINE) {
    const nextBreak = bytes.indexOf(NEWLINE, start)
    // moving the start only shrinks the tail, so the marker's possible extra digit still fits
    if (nextBreak !== -1 && nextBreak + 1 - start <= (total - start) / 2) start = nextBreak + 1
  }
  return (
    `${decoder.decode(bytes.subarray(0, head))}${elisionMarker(start - head)}` +
    `${decoder.decode(bytes.subarray(start))}`
  )
}

/**
 * The summariser's view of a session: one `user: …` / `assistant: …` / `tool: [output omitted, N bytes]` line per
 * kept message, each ending in `\n` (as v1.15 wrote them). Each message is capped first, then the whole transcript.
 */
export const buildExtractionTranscript = (messages: ReadonlyArray<ChatMessage>): string => {
  const text = messages
    .flatMap(lineOf)
    .map((line) => `${line}\n`)
    .join("")
  if (utf8Bytes(text) <= TRANSCRIPT_CAP_BYTES) return text
  return elide(encoder.encode(text))
}
