/**
 * The documentation runs verbatim: every shell transcript in README.md and docs/*.md (the `sh` blocks with `$ `
 * prompts) is run as written, in a new directory, and what each command prints and its exit status are compared
 * with what the doc shows. The conventions (placeholders, `# exit N`, `# continues`, `# not run:`) are at the top
 * of docs/CLI.md. Needs the built CLI (`npm test` builds first).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { BIN } from "../support/cli.js"
import { pool, runChain, type TranscriptRun } from "../support/transcriptRunner.js"
import { alignToShown, chains, parseDoc, type ShownCommand, type Transcript, withPort } from "../support/transcripts.js"

const DOCS = [
  "README.md",
  ...fs
    .readdirSync("docs")
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`)
]
const parsed = DOCS.map((file) => parseDoc(file, fs.readFileSync(file, "utf8")))
const transcripts = parsed.flatMap((p) => p.transcripts)
const runnable = chains(transcripts.filter((t) => t.notRun === undefined))
/** Chains run side by side, each in its own directory; a chain's commands run one after another. */
const PARALLEL_CHAINS = 3

const runs = new Map<Transcript, TranscriptRun>()

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
  // The whole printed text as well as the diff, so a doc that drifted can be fixed by pasting it.
  expect
    .soft(alignToShown(shown, ran.printed), `${where}\n  output; it printed:\n${indent(ran.printed)}\n`)
    .toBe(shown.join("\n"))
}

describe("the documentation runs verbatim", () => {
  beforeAll(async () => {
    const results = await pool(
      runnable.map((chain) => () => runChain(chain, path.resolve("docs/examples"))),
      PARALLEL_CHAINS
    )
    runnable.forEach((chain, i) => chain.forEach((t, j) => runs.set(t, results[i]![j]!)))
  }, 240_000)

  it("finds the built CLI and the transcripts, and every one parses", () => {
    expect(fs.existsSync(BIN), `${BIN} is missing: run \`npm run build\` first (npm test builds before it tests)`).toBe(
      true
    )
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
    for (const c of t.commands.filter((c) => c.notRun !== undefined))
      it.skip(`${t.file}:${c.line}  $ ${c.text}  (not run: ${c.notRun})`, () => {})
  }

  for (const s of parsed.flatMap((p) => p.summaries))
    it.skip(`${s.file}:${s.line}  commands without prompts or output: not a transcript, not run`, () => {})
})

/** Every `ts` block, named after its doc and the doc line of its first line, so a type error points at the doc. */
const tsExamples = DOCS.flatMap((file) =>
  [...fs.readFileSync(file, "utf8").matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => ({
    name: `${file.replace(/[/.]/g, "_")}_L${fs.readFileSync(file, "utf8").slice(0, m.index).split("\n").length + 1}.ts`,
    code: m[1]!
  }))
)

describe("the documentation's TypeScript examples", () => {
  it("typecheck against the built package, as a user's program importing tiered-memory would", () => {
    expect(tsExamples.length).toBeGreaterThanOrEqual(3)
    // Inside the package, so "tiered-memory" resolves to this package's dist/ by its own name.
    const dir = fs.mkdtempSync(path.resolve(".doc-ts-"))
    try {
      for (const e of tsExamples) fs.writeFileSync(path.join(dir, e.name), `${e.code}\nexport {}\n`)
      const config = {
        extends: "../tsconfig.base.json",
        compilerOptions: { noEmit: true, noUnusedLocals: false },
        include: ["*.ts"]
      }
      fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(config))
      const tsc = spawnSync(path.resolve("node_modules/.bin/tsc"), ["-p", path.join(dir, "tsconfig.json")], {
        encoding: "utf8"
      })
      expect(tsc.stdout + tsc.stderr).toBe("")
      expect(tsc.status).toBe(0)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
