/** Small helpers shared by the benchmarks: medians, percentiles, ranges, targets and a plain-text table. */
export const percentile = (xs: ReadonlyArray<number>, p: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  if (s.length === 0) return Number.NaN
  const i = Math.min(s.length - 1, Math.max(0, Math.round((p / 100) * (s.length - 1))))
  return s[i]!
}
export const median = (xs: ReadonlyArray<number>) => percentile(xs, 50)

/** The smallest and the largest sample, as the report's "min–max" cell; "–" when there is none. */
export const range = (xs: ReadonlyArray<number>, format: (x: number) => string = fmt): string => {
  if (xs.length === 0) return "–"
  let min = xs[0]!
  let max = xs[0]!
  for (const x of xs) {
    if (x < min) min = x
    if (x > max) max = x
  }
  return `${format(min)} – ${format(max)}`
}

/** A median with the range around it, for cells that hold both: "1.42 ms (1.20 ms – 2.05 ms)". */
export const spread = (xs: ReadonlyArray<number>, format: (x: number) => string = fmt): string =>
  `${format(median(xs))} (${range(xs, format)})`

export const nowMs = () => Number(process.hrtime.bigint()) / 1e6

/** A benchmark's target, checked in the run that measured it: what the report's summary lists. */
export interface Target {
  /** What is measured, as the summary names it. */
  readonly name: string
  /** The figure the target is about, formatted ("1.42 ms", "2.31×"). */
  readonly measured: string
  /** The same-run baseline the ratio is against, formatted with what it is. */
  readonly baseline: string
  /** The measured figure over its baseline. */
  readonly ratio: number
  /** The target itself: "≤ 1.5×", "p50 < 1 ms". */
  readonly target: string
  readonly met: boolean
}

/** What a benchmark hands `bench/run.ts`: its tables, its targets, and why it did not run when it did not. */
export interface BenchResult {
  readonly markdown: string
  readonly targets: ReadonlyArray<Target>
  readonly skipped?: string
}

/** The table's target cell: "≤ 1.5×: met". */
export const verdict = (t: Target) => `${t.target}: ${t.met ? "met" : "NOT met"}`

/** A ratio with enough digits to tell small ones apart: 2.31×, 0.004×. */
export const times = (ratio: number) => `${ratio.toFixed(ratio !== 0 && Math.abs(ratio) < 0.1 ? 3 : 2)}×`

export const table = (
  title: string,
  headers: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string>>
): string => {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`
  return [
    `### ${title}`,
    "",
    line(headers),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...rows.map(line),
    ""
  ].join("\n")
}

export const fmt = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`)
