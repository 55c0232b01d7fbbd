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
