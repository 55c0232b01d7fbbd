/**
 * Shell transcripts in the docs (`sh` blocks with `$ ` prompts), as the convention at the top of docs/CLI.md
 * describes them: commands, the output shown under each, expected exit statuses, continuation and skip markers.
 * Pure: reading the files and running the commands is test/support/transcriptRunner.ts.
 */

export interface ShownCommand {
  /** 1-based line of the `$ ` line in its file. */
  readonly line: number
  /** The command as written, without `$ ` (bash parses its own `# comment`). */
  readonly text: string
  /** The lines shown under the command, `# exit N` stripped; empty: the output is not compared. */
  readonly output: ReadonlyArray<string>
  readonly exit: number
  /** Ends in `&`: runs in the background until the block ends. */
  readonly background: boolean
  /** `# not run: <reason>` on the command line. */
  readonly notRun?: string
}

export interface Transcript {
  readonly file: string
  /** 1-based line of the opening fence. */
  readonly line: number
  /**
   * First line `# continues …`: runs after the previous transcript of the file, in its directory and shell variables.
   */
  readonly continues: boolean
  /** First line `# not run: <reason>`. */
  readonly notRun?: string
  readonly commands: ReadonlyArray<ShownCommand>
}

/** A `sh` block without prompts: commands to type, with no output to check, so not run. */
export interface CommandSummary {
  readonly file: string
  readonly line: number
}

export interface ParsedDoc {
  readonly transcripts: ReadonlyArray<Transcript>
  readonly summaries: ReadonlyArray<CommandSummary>
  /** Text a transcript cannot hold (e.g. prose before the first prompt); the test fails on any. */
  readonly problems: ReadonlyArray<string>
}

const SHELL_FENCE = /^```(sh|bash|shell|console)\s*$/
const PROMPT = "$ "
const OUTPUT_EXIT = /\s{2,}#\s*exit (\d+)\b.*$/
const COMMAND_EXIT = /\s#.*\bexit (\d+)\b/
const NOT_RUN = /(?:^|\s)#\s*not run:\s*(.+)$/
const CONTINUES = /^#\s*continues\b/
const BACKGROUND = /(?:^|[^&])&\s*(?:#.*)?$/

interface Block {
  readonly line: number
  readonly lines: Array<string>
  readonly shell: boolean
}

const fencedBlocks = (text: string): ReadonlyArray<Block> => {
  const blocks: Array<Block> = []
  let open: Block | undefined
  text.split("\n").forEach((raw, i) => {
    if (open === undefined) {
      if (raw.startsWith("```")) open = { line: i + 1, lines: [], shell: SHELL_FENCE.test(raw) }
    } else if (/^```\s*$/.test(raw)) {
      blocks.push(open)
      open = undefined
    } else open.lines.push(raw)
  })
  return blocks
}

const command = (line: number, text: string, shown: ReadonlyArray<string>): ShownCommand => {
  let exit = Number(COMMAND_EXIT.exec(text)?.[1] ?? 0)
  const output = shown.map((l) => {
    const marked = OUTPUT_EXIT.exec(l)
    if (marked === null) return l.trimEnd()
    exit = Number(marked[1])
    return l.slice(0, marked.index).trimEnd()
  })
  while (output.length > 0 && output[output.length - 1] === "") output.pop()
  const notRun = NOT_RUN.exec(text)?.[1]
  return { line, text, output, exit, background: BACKGROUND.test(text), ...(notRun === undefined ? {} : { notRun }) }
}

export const parseDoc = (file: string, text: string): ParsedDoc => {
  const transcripts: Array<Transcript> = []
  const summaries: Array<CommandSummary> = []
  const problems: Array<string> = []
  for (const block of fencedBlocks(text)) {
    const first = block.lines.findIndex((l) => l.startsWith(PROMPT))
    if (!block.shell) {
      // A transcript in a block of another language would silently never run.
      if (first >= 0) problems.push(`${file}:${block.line + 1 + first}: a \`$ \` prompt in a block that is not \`sh\``)
      continue
    }
    if (first < 0) {
      summaries.push({ file, line: block.line })
      continue
    }
    const head = block.lines.slice(0, first).filter((l) => l.trim() !== "")
    const stray = head.filter((l) => !CONTINUES.test(l) && !NOT_RUN.test(l))
    for (const l of stray)
      problems.push(`${file}:${block.line + 1 + block.lines.indexOf(l)}: text before the first prompt: ${l}`)
    const notRun = head.map((l) => NOT_RUN.exec(l)?.[1]).find((r) => r !== undefined)
    const commands: Array<ShownCommand> = []
    for (let i = first; i < block.lines.length;) {
      let next = i + 1
      while (next < block.lines.length && !block.lines[next]!.startsWith(PROMPT)) next++
      commands.push(command(block.line + 1 + i, block.lines[i]!.slice(PROMPT.length), block.lines.slice(i + 1, next)))
      i = next
    }
    transcripts.push({
      file,
      line: block.line,
      continues: head.some((l) => CONTINUES.test(l)),
      ...(notRun === undefined ? {} : { notRun }),
      commands
    })
  }
  return { transcripts, summaries, problems }
}

/** Runs of transcripts that share one directory: a transcript and the ones that continue it. */
export const chains = (transcripts: ReadonlyArray<Transcript>): ReadonlyArray<ReadonlyArray<Transcript>> =>
  transcripts.reduce<Array<Array<Transcript>>>((acc, t) => {
    const last = acc[acc.length - 1]
    if (t.continues && last !== undefined && last[0]!.file === t.file) last.push(t)
    else acc.push([t])
    return acc
  }, [])

const TIMESTAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z|\d{4}-\d\d-\d\d \d\d:\d\d/g
const ANY = "[..]"

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** A shown line as a pattern: `[..]` is any text within the line, a timestamp any timestamp of the same form. */
const linePattern = (shown: string): RegExp =>
  new RegExp(
    `^${shown
      .split(ANY)
      .map((part) => {
        const literal: Array<string> = []
        let at = 0
        for (const m of part.matchAll(TIMESTAMP)) {
          literal.push(
            escape(part.slice(at, m.index)),
            m[0].includes("T")
              ? "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(?:\\.\\d+)?Z"
              : "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d"
          )
          at = m.index + m[0].length
        }
        literal.push(escape(part.slice(at)))
        return literal.join("")
      })
      .join(".*")}$`,
    "u"
  )

export const outputLines = (printed: string): ReadonlyArray<string> => {
  const lines = printed.split("\n").map((l) => l.trimEnd())
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop()
  return lines
}

/**
 * The printed output with every line that matches its shown line replaced by the shown line, so comparing the
 * result with the shown text fails exactly where they differ and the diff shows only real differences.
 */
export const alignToShown = (shown: ReadonlyArray<string>, printed: string): string =>
  outputLines(printed)
    .map((line, i) => (i < shown.length && linePattern(shown[i]!).test(line) ? shown[i]! : line))
    .join("\n")

/** A fixed port in a transcript (`--port 41234`) stands for a free one the runner picks. */
export const DOC_PORT = "41234"

export const withPort = (text: string, port: number) => text.split(DOC_PORT).join(String(port))
