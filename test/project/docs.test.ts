/**
 * The documentation runs verbatim: every shell transcript in README.md and docs/*.md (the `sh` blocks with `$ `
 * prompts) is run as written, in a new directory, and what each command prints and its exit status are compared
 * with what the doc shows. The conventions (placeholders, `# exit N`, `# continues`, `# not run:`) are at the top
 * of docs/CLI.md. Needs the built CLI (`npm test` builds first).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { pool, runChain, type TranscriptRun } from "../support/transcriptRunner.js"
import { alignToShown, chains, parseDoc, type ShownCommand, type Transcript, withPort } from "../support/transcripts.js"

const DOCS = ["README.md", ...fs.readdirSync("docs").filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)]
const parsed = DOCS.map((file) => parseDoc(file, fs.readFileSync(file, "utf8")))
const transcripts = parsed.flatMap((p) => p.transcripts)
const runnable = chains(transcripts.filter((t) => t.notRun === undefined))
/** Chains run side by side, each in its own directory; a chain's commands run one after another. */
const PARALLEL_CHAINS = 3

const runs = new Map<Transcript, TranscriptRun>()

beforeAll(async () => {
  const results = await pool(runnable.map((chain) => () => runChain(chain, path.resolve("docs/examples"))), PARALLEL_CHAINS)
  runnable.forEach((chain, i) => chain.forEach((t, j) => runs.set(t, results[i]![j]!)))
}, 240_000)

const title = (t: Transcript) => {
  const first = t.commands[0]!.text
  return `${t.file}:${t.line}  $ ${first.length > 70 ? `${first.slice(0, 69)}…` : first}`
}

const indent = (text: string) => text.replace(/\n$/, "").replace(/^/gm, "    ")

const check = (c: ShownCommand, ran: TranscriptRun["commands"][number], run: TranscriptRun, file: string) => {
  const where = `${file}:${c.line}  $ ${c.text}`
  if (ran.exit === undefined) {
    expect.soft(ran.exit, `${where}\n  did not run; the block's shell said:\n${indent(run.shell)}`).toBe(c.exit)
    return
  }
  expect.soft(ran.exit, `${where}\n  exit status (it printed:\n${indent(ran.printed)})`).toBe(c.exit)
  if (c.output.length === 0) return
  const shown = c.output.map((l) => withPort(l, run.port))
  expect.soft(alignToShown(shown, ran.printed), `${where}\n  output`).toBe(shown.join("\n"))
}

describe("the documentation runs verbatim", () => {
  it("finds the transcripts, and every one parses", () => {
    expect(parsed.flatMap((p) => p.problems)).toEqual([])
    expect(transcripts.filter((t) => t.file === "README.md").length).toBeGreaterThanOrEqual(3)
    expect(transcripts.filter((t) => t.file === "docs/CLI.md").length).toBeGreaterThanOrEqual(10)
  })

  for (const t of transcripts) {
    if (t.notRun !== undefined) {
      it.skip(`${title(t)}  (not run: ${t.notRun})`, () => {})
      continue
    }
    it(title(t), () => {
      const run = runs.get(t)!
      t.commands.forEach((c, i) => {
        if (c.notRun === undefined) check(c, run.commands[i]!, run, t.file)
      })
    })
    for (const c of t.commands.filter((c) => c.notRun !== undefined)) it.skip(`${t.file}:${c.line}  $ ${c.text}  (not run: ${c.notRun})`, () => {})
  }

  for (const s of parsed.flatMap((p) => p.summaries)) it.skip(`${s.file}:${s.line}  commands without prompts or output: not a transcript, not run`, () => {})
})
