const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu

const escape = (c: string) =>
  c === "\n" ? "\\n" : c === "\r" ? "\\r" : c === "\t" ? "\\t" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`

/**
 * Text fit for one line of a terminal: control characters (C0, DEL, C1), line and paragraph separators and the
 * bidirectional overrides become visible escapes (`\n`, `\u001b`), so an echoed query or a damaged file can
 * neither split a message over lines nor send escape sequences to the terminal. Everything else is kept.
 */
export const printable = (text: string): string => text.replace(UNPRINTABLE, escape)

/**
 * The same for a message of ours that is several lines by design (the cap refusal lists the entries one a line):
 * its line breaks stay, every other control character is escaped. User text inside it went through `printable`.
 */
export const printableLines = (text: string): string => text.split("\n").map(printable).join("\n")
