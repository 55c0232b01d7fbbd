// `npm run bench`: every benchmark, each a table with ratios against a baseline measured in the same run.
// The machine is small and noisy, so every figure is a median (or a stated percentile) of many runs, with the
// range over the same runs. The tables are printed as each benchmark ends, and all of them go to bench/REPORT.md.
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import { fileURLToPath } from "node:url"
import { runAtomsBench } from "./atoms.js"
import { runColdRecallBench } from "./coldRecall.js"
import { runColdStartBench } from "./coldStart.js"
import { runConsolidationBench } from "./consolidation.js"
import { runDurableAddBench } from "./durableAdd.js"
import { runEpisodesFoldBench } from "./episodesFold.js"
import { runEvalRecallBench } from "./evalRecall.js"
import { runHttpBench } from "./http.js"
import { runPostgresBench } from "./postgres.js"
import { runRecallBench } from "./recall.js"
import { runRpBench } from "./rp.js"
import { runScannerBench } from "./scanner.js"
import { type BenchResult, nowMs, table, type Target, times } from "./stats.js"

const REPORT = fileURLToPath(new URL("./REPORT.md", import.meta.url))

/** The benchmarks in the order they run and appear in the report. */
const BENCHES: ReadonlyArray<{ readonly name: string; readonly run: () => BenchResult | Promise<BenchResult> }> = [
  { name: "Durable add", run: () => runDurableAddBench() },
  // next to the durable add: what the scan costs a write, and what it refuses
  { name: "Scanner", run: () => runScannerBench() },
  { name: "Cold start", run: () => runColdStartBench() },
  { name: "Merge probe (RP embedder)", run: () => runRpBench() },
  { name: "Consolidation", run: () => runConsolidationBench() },
  { name: "HTTP adapters", run: () => runHttpBench() },
  { name: "Episode recall", run: () => runRecallBench() },
  { name: "Extended Memory atoms", run: () => runAtomsBench() },
  { name: "Episodes fold", run: () => runEpisodesFoldBench() },
  { name: "Cold recall", run: () => runColdRecallBench() },
  { name: "Recall quality (tmem eval recall)", run: () => runEvalRecallBench() },
  { name: "PostgreSQL store", run: () => runPostgresBench() }
]

/** How one benchmark went: its result, or why it has none. */
interface Outcome {
  readonly name: string
  readonly seconds: number
  readonly result: BenchResult | undefined
  readonly failure: string | undefined
}

const commit = () => {
  try {
    return execFileSync("git", ["rev-parse", "--short=12", "HEAD"], { encoding: "utf8", stdio: "pipe" }).trim()
  } catch {
    return "unknown (not a git checkout)"
  }
}

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" / ")

const started = new Date()
const machine: ReadonlyArray<readonly [string, string]> = [
  ["CPU", os.cpus()[0]?.model ?? "unknown"],
  ["cores", String(os.cpus().length)],
  ["memory", `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`],
  ["OS", `${os.type()} ${os.release()} (${os.platform()}, ${os.arch()})`],
  ["Node", process.version],
  ["date", started.toISOString()],
  ["commit", commit()],
  ["load average at start (1 / 5 / 15 min)", loadAverage()]
]

console.log(
  `# tiered-memory benchmarks (${started.toISOString()}, node ${process.version}, ${os.cpus().length} cores)\n`
)

const outcomes: Array<Outcome> = []
const t0 = nowMs()
for (const bench of BENCHES) {
  const a = nowMs()
  try {
    const result = await bench.run()
    console.log(result.markdown)
    outcomes.push({ name: bench.name, seconds: (nowMs() - a) / 1000, result, failure: undefined })
  } catch (error) {
    // one benchmark that cannot run leaves the others and the report standing
    const failure = error instanceof Error ? error.message : String(error)
    console.error(`${bench.name}: failed: ${failure}`)
    outcomes.push({ name: bench.name, seconds: (nowMs() - a) / 1000, result: undefined, failure })
  }
}
const totalSeconds = (nowMs() - t0) / 1000

/** A table cell's text: one line, no column separator. */
const cell = (text: string) => text.split("\n")[0]!.replaceAll("|", "\\|")

const statusOf = (o: Outcome) =>
  o.failure !== undefined
    ? `failed: ${cell(o.failure)}`
    : o.result?.skipped !== undefined
      ? `skipped: ${o.result.skipped}`
      : "ran"

const targetRow = (bench: string, t: Target) => [
  bench,
  t.name,
  t.target,
  t.measured,
  t.baseline,
  times(t.ratio),
  t.met ? "met" : "**NOT met**"
]

const targets = outcomes.flatMap((o) => (o.result?.targets ?? []).map((t) => targetRow(o.name, t)))
const met = outcomes.flatMap((o) => o.result?.targets ?? []).filter((t) => t.met).length
const notRun = outcomes.filter((o) => o.result === undefined || o.result.skipped !== undefined)

const report = [
  "# tiered-memory benchmark report",
  "",
  "Written by `npm run bench` (bench/run.ts); every figure below comes from that one run. Each figure is a median",
  "over the runs its table states, with the smallest and largest run beside it (min – max); every ratio is",
  "against a baseline measured in the same run, interleaved with it where the table says so. Absolute times move",
  "with the machine and its load; the ratios are what carries from one machine to another.",
  "",
  "## Machine and run",
  "",
  "| | |",
  "|---|---|",
  ...machine.map(([k, v]) => `| ${k} | ${v} |`),
  `| load average at end (1 / 5 / 15 min) | ${loadAverage()} |`,
  `| whole run | ${totalSeconds.toFixed(0)} s |`,
  "",
  "## Reproducing",
  "",
  "`npm ci && npm run bench` builds the CLI (the cold-process benchmarks run `dist/bin.js`), runs every",
  "benchmark below in this order and rewrites this file. The workloads are fixed in the bench files: sizes, run",
  "counts, warm-ups and the seeds of the generated corpora are stated in each table's title, so two runs measure",
  "the same work. The PostgreSQL benchmark uses `TMEM_BENCH_PG_URL` (default",
  "`postgres://postgres@127.0.0.1:5432/test`) and is skipped without a server. One benchmark alone:",
  "`npm run build && node --import tsx bench/<name>.ts` (most of them print their tables when run directly).",
  "",
  "## Targets",
  "",
  `${met} of ${targets.length} targets met.` +
    (notRun.length === 0 ? "" : ` Not run: ${notRun.map((o) => `${o.name} (${statusOf(o)})`).join("; ")}.`),
  "",
  table(
    "Every target, from the table that measured it",
    ["benchmark", "measure", "target", "measured", "same-run baseline", "ratio", "result"],
    targets
  ),
  table(
    "Benchmarks",
    ["benchmark", "status", "wall time"],
    outcomes.map((o) => [o.name, statusOf(o), `${o.seconds.toFixed(1)} s`])
  ),
  ...outcomes.flatMap((o) => [
    `## ${o.name}`,
    "",
    o.result === undefined ? `Not run: the benchmark failed: ${o.failure}\n` : o.result.markdown
  ])
]
  .join("\n")
  .replace(/\n*$/, "\n")

fs.writeFileSync(REPORT, report)
console.log(`wrote ${REPORT} (${totalSeconds.toFixed(0)} s)`)
// a benchmark that failed still fails the run, after the report says which
if (outcomes.some((o) => o.failure !== undefined)) process.exitCode = 1
