/**
 * Byte and rune helpers. Caps and field bounds are specified in UTF-8 bytes and previews in runes (code points);
 * `string.length` counts UTF-16 code units, which is neither.
 */

/** UTF-8 byte length. A lone surrogate counts as the 3 bytes of U+FFFD, as every UTF-8 encoder writes it. */
export const utf8Bytes = (s: string): number => Buffer.byteLength(s, "utf8")

/** Number of code points. */
export const runeCount = (s: string): number => {
  let n = 0
  for (const _ of s) n++
  return n
}

const LONE_SURROGATE = /\p{Surrogate}/u

/** True when the string cannot be encoded as UTF-8 without loss (it holds a lone surrogate). */
export const hasLoneSurrogate = (s: string): boolean => LONE_SURROGATE.test(s)

/** Longest prefix of `s` whose UTF-8 encoding fits in `maxBytes`, never splitting a rune. */
export const truncateBytes = (s: string, maxBytes: number): string => {
  let used = 0
  let end = 0
  for (const ch of s) {
    const b = utf8Bytes(ch)
    if (used + b > maxBytes) break
    used += b
    end += ch.length
  }
  return s.slice(0, end)
}

// Control characters would break the one-line-per-entry renderings (cap errors, stats, terminal events).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/gu

/** At most `maxRunes` leading runes with control characters shown as spaces, plus `…` when cut. */
export const preview = (s: string, maxRunes = 60): string => {
  const runes = Array.from(s.replace(CONTROL, " "))
  return runes.length <= maxRunes ? runes.join("") : `${runes.slice(0, maxRunes).join("")}…`
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, "0")

/**
 * Go's `%q` quoting, which the spec's messages use: double quotes, the usual backslash escapes, other
 * non-printable runes as \xNN / \uNNNN / \UNNNNNNNN, printable non-ASCII kept as is.
 */
export const goQuote = (s: string): string => {
  let out = '"'
  for (const ch of s) {
    const cp = ch.codePointAt(0)!
    switch (ch) {
      case '"':
        out += '\\"'
        continue
      case "\\":
        out += "\\\\"
        continue
      case "\n":
        out += "\\n"
        continue
      case "\t":
        out += "\\t"
        continue
      case "\r":
        out += "\\r"
        continue
      case "\x07":
        out += "\\a"
        continue
      case "\b":
        out += "\\b"
        continue
      case "\f":
        out += "\\f"
        continue
      case "\v":
        out += "\\v"
        continue
    }
    if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`
    else if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}]/u.test(ch))
      out += cp > 0xffff ? `\\U${hex(cp, 8)}` : `\\u${hex(cp, 4)}`
    else out += ch
  }
  return `${out}"`
}

// Go's unicode.IsSpace: JS `\s` minus U+FEFF, plus U+0085. All are single UTF-16 code units.
const isGoSpace = (c: number): boolean =>
  c === 0x20 ||
  (c >= 0x09 && c <= 0x0d) ||
  c === 0x85 ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000

/** Unicode whitespace trim exactly as Go's strings.TrimSpace, which odek applies to fact files and contents. */
export const trimSpace = (s: string): string => {
  let start = 0
  let end = s.length
  while (start < end && isGoSpace(s.charCodeAt(start))) start++
  while (end > start && isGoSpace(s.charCodeAt(end - 1))) end--
  return start === 0 && end === s.length ? s : s.slice(start, end)
}

/** `1 entry`, `3 entries`. */
export const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`
