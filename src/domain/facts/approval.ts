import { sha256Hex } from "../text/sha256.js"
import { utf8Bytes } from "../text/utf8.js"

/** Longest text an approval shows in full (the same 2,048-byte bound every mutating field has). */
export const DISPLAY_BOUND = 2048
/** Bytes of excerpt shown for a longer (legacy) entry. */
export const EXCERPT_BYTES = 512

/**
 * One line for a person to read (spec facts §4.3): control characters escaped, quotes and backslashes escaped, so
 * a field cannot fake the end of the string or start a new line of the prompt.
 */
export const displayQuote = (s: string): string =>
  `"${[...s]
    .map((ch) => {
      const cp = ch.codePointAt(0)!
      if (ch === '"' || ch === "\\") return `\\${ch}`
      if (ch === "\n") return "\\n"
      if (ch === "\r") return "\\r"
      if (ch === "\t") return "\\t"
      return cp < 0x20 || cp === 0x7f || (cp >= 0x80 && cp < 0xa0) || cp === 0x2028 || cp === 0x2029
        ? `\\u{${cp.toString(16)}}`
        : ch
    })
    .join("")}"`

/** An entry as an approver sees it: whole, or — over the display bound — its length, hash and a marked excerpt. */
export const displayEntry = (entry: string): string => {
  const bytes = new TextEncoder().encode(entry)
  if (bytes.length <= DISPLAY_BOUND) return displayQuote(entry)
  // back to the start of the rune holding byte EXCERPT_BYTES, so the excerpt is valid UTF-8
  let k = EXCERPT_BYTES
  while (k > 0 && (bytes[k]! & 0xc0) === 0x80) k--
  const excerpt = new TextDecoder().decode(bytes.subarray(0, k))
  return (
    `[${bytes.length} bytes, sha256:${sha256Hex(bytes)} — longer than the ${DISPLAY_BOUND}-byte display bound, ` +
    `truncated: only the first ${k} bytes are shown] ${displayQuote(excerpt)}…`
  )
}

export type ApprovalSubject =
  | { readonly action: "add"; readonly target: string; readonly content: string }
  | {
      readonly action: "replace"
      readonly target: string
      readonly oldText: string
      readonly content: string
      readonly entry?: string | undefined
    }
  | {
      readonly action: "remove"
      readonly target: string
      readonly oldText: string
      readonly entry?: string | undefined
    }
  | { readonly action: "consolidate"; readonly target: string }
  | { readonly action: "add_atom"; readonly content: string }
  | { readonly action: "forget_atom" | "pin_atom" | "reject_pending_review"; readonly atomId: string }

/** The resource string of spec facts §4.3; `entry` is the entry old_text selected, when it was resolved. */
export const approvalResource = (s: ApprovalSubject): string => {
  switch (s.action) {
    case "add":
      return `memory add ${s.target}: ${displayQuote(s.content)}`
    case "replace":
      return s.entry === undefined
        ? `memory replace ${s.target}: ${displayQuote(s.oldText)} → ${displayQuote(s.content)} ` +
            `(matched entry shown at confirmation)`
        : `memory replace ${s.target}: entry ${displayEntry(s.entry)} ` +
            `(selected by ${displayQuote(s.oldText)}) → ${displayQuote(s.content)}`
    case "remove":
      return s.entry === undefined
        ? `memory remove ${s.target}: ${displayQuote(s.oldText)} (matched entry shown at confirmation)`
        : `memory remove ${s.target}: entry ${displayEntry(s.entry)} (selected by ${displayQuote(s.oldText)})`
    case "consolidate":
      return `memory consolidate ${s.target}`
    case "add_atom":
      return `memory add_atom: ${displayQuote(s.content)}`
    case "forget_atom":
    case "pin_atom":
    case "reject_pending_review":
      return `memory ${s.action}: ${displayQuote(s.atomId)}`
  }
}

export { utf8Bytes }
