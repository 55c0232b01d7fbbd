import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type BenchResult, fmt, median, nowMs, range, table, type Target, verdict } from "./stats.js"

const BIN = path.resolve("dist/bin.js")
const CACHE = path.resolve("dist/.cache")

/** A new node process running `args`, timed from spawn to exit; a failure stops the benchmark. */
export const time = (args: ReadonlyArray<string>) => {
  const a = nowMs()
  const r = spawnSync(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] })
  const b = nowMs()
  if (r.status !== 0) throw new Error(`${args.join(" ")} failed: ${r.stderr}`)
  return b - a
}

/** `tmem facts show` as a new process, against `node -e 0` measured alternately in the same run. */
export const runColdStartBench = (runs = 25): BenchResult => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-bench-cold-"))
  try {
    spawnSync(process.execPath, [BIN, "--dir", dir, "facts", "add", "user", "Prefers dark mode"])
    const node: Array<number> = []
    const warm: Array<number> = []
    const cold: Array<number> = []
    for (let i = 0; i < runs; i++) {
      node.push(time(["-e", "0"]))
      warm.push(time([BIN, "--dir", dir, "facts", "show"]))
    }
    for (let i = 0; i < 7; i++) {
      fs.rmSync(CACHE, { recursive: true, force: true })
      cold.push(time([BIN, "--dir", dir, "facts", "show"]))
    }
    time([BIN, "--dir", dir, "facts", "show"]) // leave a cache behind
    const base = median(node)
    const target: Target = {
      name: "`tmem facts show` as a new process (code cache present) against `node -e 0`",
      measured: fmt(median(warm)),
      baseline: `node -e 0: ${fmt(base)}`,
      ratio: median(warm) / base,
      target: "≤ 4×",
      met: median(warm) / base <= 4
    }
    const row = (name: string, xs: ReadonlyArray<number>, targetCell: string) => [
      name,
      fmt(median(xs)),
      range(xs),
      `${(median(xs) / base).toFixed(2)}×`,
      targetCell
    ]
    const markdown = table(
      `Cold start: a new process running \`tmem facts show\` (${runs} runs each, alternating; ` +
        "7 runs without a code cache; medians)",
      ["command", "median", "min – max", "ratio to node -e 0", "target"],
      [
        row("node -e 0 (baseline)", node, ""),
        row("tmem facts show (code cache present, the usual case)", warm, verdict(target)),
        row("tmem facts show (first run after install: no code cache)", cold, "")
      ]
    )
    return { markdown, targets: [target] }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(runColdStartBench().markdown)
