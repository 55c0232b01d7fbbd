import { Effect } from "effect"
import * as RpEmbedder from "../src/adapters/rp/RpEmbedder.js"
import { probeMerge } from "../src/app/facts.js"
import { parseEntries, renderEntries, usedBytes } from "../src/domain/facts/codec.js"
import { Embedder } from "../src/ports/Embedder.js"
import { type BenchResult, fmt, median, nowMs, percentile, range, table, type Target, verdict } from "./stats.js"

/** A realistic env file filled to its 8,000-byte cap. */
export const fullEnvFile = (): ReadonlyArray<string> => {
  const subjects = [
    "The API service",
    "The worker pool",
    "CI",
    "Staging",
    "The billing module",
    "Local Postgres",
    "Redis",
    "The frontend",
    "Terraform",
    "The auth proxy",
    "Kafka",
    "The docs site"
  ]
  const facts = [
    "runs on Node 20 with pnpm 9 workspaces and strict TypeScript settings",
    "listens on port 5433 locally; migrations live in db/migrations and run with make migrate",
    "deploys through Argo CD from the infra repository after a green main build",
    "uses feature flags from LaunchDarkly; stale flags are removed every quarter",
    "logs JSON to stdout; Loki keeps fourteen days and Grafana dashboards live in ops/",
    "tests with vitest in forks mode; flaky tests are quarantined under test/flaky",
    "caches sessions for thirty minutes with a sliding expiry and a 5 MB value limit"
  ]
  const entries: Array<string> = []
  for (let i = 0; ; i++) {
    const next = `${subjects[i % subjects.length]} ${facts[(i * 5) % facts.length]} (note ${i})`
    if (usedBytes([...entries, next]) > 8000) break
    entries.push(next)
  }
  return entries
}

export const runRpBench = async (): Promise<BenchResult> => {
  const entries = fullEnvFile()
  const embedder = RpEmbedder.make(256)
  const incoming = "The API service runs on Node 22 with pnpm 10 workspaces"
  const probe = probeMerge(entries, incoming).pipe(Effect.provideService(Embedder, embedder))
  const text = renderEntries(entries)
  const timesProbe: Array<number> = []
  const timesCold: Array<number> = []
  const timesBase: Array<number> = []
  for (let i = 0; i < 600; i++) {
    // cold: a fresh embedder (no token or vector cache), as in a one-shot CLI process
    const z = nowMs()
    Effect.runSync(probeMerge(entries, incoming).pipe(Effect.provideService(Embedder, RpEmbedder.make(256))))
    const a = nowMs()
    Effect.runSync(probe)
    const b = nowMs()
    // baseline: what every add costs anyway — reading the file's entries and the exact-duplicate check
    const parsed = parseEntries(text)
    void parsed.includes(incoming)
    const c = nowMs()
    if (i >= 100) {
      timesCold.push(a - z)
      timesProbe.push(b - a)
      timesBase.push(c - b)
    }
  }
  const base = median(timesBase)
  const probeTarget = (name: string, xs: ReadonlyArray<number>): Target => ({
    name,
    measured: fmt(median(xs)),
    baseline: `parse entries + duplicate check: ${fmt(base)}`,
    ratio: median(xs) / base,
    target: "p50 < 1 ms",
    met: median(xs) < 1
  })
  const warm = probeTarget("RP merge probe against a full env file, long-lived embedder", timesProbe)
  const cold = probeTarget("RP merge probe against a full env file, fresh embedder (a one-shot process)", timesCold)
  const row = (name: string, xs: ReadonlyArray<number>, ratio: string, targetCell: string) => [
    name,
    fmt(median(xs)),
    range(xs),
    fmt(percentile(xs, 99)),
    ratio,
    targetCell
  ]
  const markdown = table(
    `RP embed + classify against a full env file (${entries.length} entries, ${usedBytes(entries)} bytes; ` +
      "500 runs after 100 warm-up)",
    ["operation", "p50", "min – max", "p99", "ratio to baseline (p50)", "target"],
    [
      row("baseline: parse entries + duplicate check", timesBase, "1.0×", ""),
      row("merge probe, long-lived embedder (caches warm)", timesProbe, `${warm.ratio.toFixed(1)}×`, verdict(warm)),
      row("merge probe, fresh embedder (no cache)", timesCold, `${cold.ratio.toFixed(1)}×`, verdict(cold))
    ]
  )
  return { markdown, targets: [warm, cold] }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log((await runRpBench()).markdown)
