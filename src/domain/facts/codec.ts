import { goQuote, preview, trimSpace, utf8Bytes } from "../text/utf8.js"

/** odek's entry separator: LF, U+00A7, LF — four UTF-8 bytes, counted toward the cap. */
export const SEPARATOR = "\n§\n"
export const SEPARATOR_BYTES = 4

/** Reads a fact file as odek does: trim the whole text, then split on the exact separator. */
export const parseEntries = (text: string): ReadonlyArray<string> => {
  const trimmed = trimSpace(text)
  return trimmed === "" ? [] : trimmed.split(SEPARATOR)
}

/** The file bytes for a list of entries: no header, no trailing newline, zero entries is the empty file. */
export const renderEntries = (entries: ReadonlyArray<string>): string => entries.join(SEPARATOR)

/**
 * What a reader of the rendered file sees, in a form that later writes cannot disturb. Entries from a hand edit may
 * start or end with blanks (a re-read trims them once they are first or last) or end in a dangling `\n§` (which
 * would fuse with the next separator and swallow the following entry's start): both are settled here, so the
 * state is always exactly what a re-read of its own file gives, and appending never changes earlier entries.
 */
export const canonicalEntries = (entries: ReadonlyArray<string>): ReadonlyArray<string> => {
  let current = parseEntries(renderEntries(entries))
  for (;;) {
    const settled = current.map((e) => (DANGLING_SEPARATOR.test(e) ? e.replace(DANGLING_SEPARATOR, "") : e))
    const next = parseEntries(renderEntries(settled))
    if (next.length === current.length && next.every((e, i) => e === current[i])) return current
    current = next
  }
}

const DANGLING_SEPARATOR = /(\n§)+$/u

/** Bytes the file takes: entries plus one separator between each pair. */
export const usedBytes = (entries: ReadonlyArray<string>): number => {
  if (entries.length === 0) return 0
  let n = SEPARATOR_BYTES * (entries.length - 1)
  for (const e of entries) n += utf8Bytes(e)
  return n
}

// C0 and C1 controls except tab, LF and CR: they corrupt one-line renderings and terminals.
const FORBIDDEN_CONTROL = /[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/u
const LONE_SURROGATE = /\p{Surrogate}/u

/** The characters no entry may hold (NUL, C0/C1 controls but tab, LF and CR, a lone surrogate), or undefined. */
export const characterProblem = (text: string): string | undefined => {
  if (text.includes("\u0000")) return "content contains a NUL byte"
  if (LONE_SURROGATE.test(text)) return "content is not valid UTF-8 (unpaired surrogate)"
  const control = FORBIDDEN_CONTROL.exec(text)
  if (control === null) return undefined
  return (
    `content contains control character ` +
    `U+${control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`
  )
}

/**
 * Why `text` (already trimmed) cannot be stored as one entry, or undefined. The separator rules keep the codec
 * lossless: an entry holding the separator, or ending in `\n§` (which fuses with the next separator), would come
 * back as different entries.
 */
export const entryProblem = (text: string): string | undefined => {
  const characters = characterProblem(text)
  if (characters !== undefined)
    return `${characters}; ${LONE_SURROGATE.test(text) ? "re-encode" : "remove"} it and retry`
  if (text.includes(SEPARATOR)) return `entry must not contain the entry separator ${goQuote(SEPARATOR)}`
  if (text.startsWith("§\n") || text.endsWith("\n§"))
    return (
      `entry must not start with ${goQuote("§\n")} or end with ${goQuote("\n§")}: ` +
      `beside another entry it reads as a separator`
    )
  return undefined
}

/** `[i] <bytes>c "<preview>"` lines, one-based, oldest first, one line per entry whatever the entry holds. */
export const entryIndex = (entries: ReadonlyArray<string>): string =>
  entries.length === 0
    ? "Entries (oldest first): (file is empty)"
    : ["Entries (oldest first):", ...entries.map((e, i) => `[${i + 1}] ${utf8Bytes(e)}c ${goQuote(preview(e))}`)].join(
        "\n"
      )

export const EVICTION_GUIDANCE = "Free space by removing or replacing older entries (memory remove/replace), then retry"

/** Entry statistics as the `stats` action reports them. */
export interface EntryStat {
  readonly index: number
  readonly chars: number
  readonly preview: string
}

export const entryStats = (entries: ReadonlyArray<string>): ReadonlyArray<EntryStat> =>
  entries.map((e, i) => ({ index: i + 1, chars: utf8Bytes(e), preview: preview(e) }))
