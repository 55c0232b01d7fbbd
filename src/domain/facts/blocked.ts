import { bounded } from "../kernel/memo.js"
import { scanForWrite } from "../scan/index.js"

/** An entry the current scanner refuses, found in a file it had let in (an import, an older version's write). */
export interface BlockedEntry {
  /** 0-based position in the file. */
  readonly index: number
  readonly entry: string
  /** The scanner's label, as a refused write names it. */
  readonly label: string
}

// A session's prompt, `read` and `facts show` ask about the same entries again and again.
const labelOf = bounded<string, string | null>()

/** The label the current scanner refuses `text` with, or undefined when it passes (the write path's check). */
export const blockedLabel = (text: string): string | undefined =>
  labelOf(text, () => scanForWrite(text)?.label ?? null) ?? undefined

/** The entries of a file that fail the current scanner, in file order. */
export const blockedEntries = (entries: ReadonlyArray<string>): ReadonlyArray<BlockedEntry> =>
  entries.flatMap((entry, index) => {
    const label = blockedLabel(entry)
    return label === undefined ? [] : [{ index, entry, label }]
  })

/** What the model is shown in place of a blocked entry: its label, never its text. */
export const blockedLine = (label: string): string => `[BLOCKED: ${label}]`

/** The entries as the prompt and `read` show them: each blocked one replaced by its BLOCKED line. */
export const screenedEntries = (entries: ReadonlyArray<string>): ReadonlyArray<string> =>
  entries.map((entry) => {
    const label = blockedLabel(entry)
    return label === undefined ? entry : blockedLine(label)
  })

// `HH:MM  role  text`, as sessions/buffer.ts writes a Tier 2 line
const BUFFER_LINE = /^(\d{2}:\d{2} {2}\S+ {2})([\s\S]*)$/u

/**
 * A Tier 2 line as the prompt shows it: its text replaced by the BLOCKED line when the scanner refuses it. The
 * buffer sits in the system prompt, where an agent reply that echoed an injection would speak with its authority;
 * the conversation itself still holds the message.
 */
export const screenedBufferLine = (line: string): string => {
  const m = BUFFER_LINE.exec(line)
  const head = m?.[1] ?? ""
  const label = blockedLabel(m?.[2] ?? line)
  return label === undefined ? line : `${head}${blockedLine(label)}`
}
