/** The human form of a recall evaluation: one line of what was run, a compact table, latency and ingest lines. */
import { plural } from "../text/utf8.js"
import type { Rates, RecallSummary } from "./metrics.js"

/** `21.6 %`, or `–` for a rate of nothing. */
export const percent = (r: number | null): string => (r === null || Number.isNaN(r) ? "–" : `${(100 * r).toFixed(1)} %`)

/** Milliseconds for people: `412 µs`, `3.21 ms`, `1.52 s`. */
export const millis = (ms: number): string =>
  Number.isNaN(ms)
    ? "–"
    : ms < 1
      ? `${Math.round(ms * 1000)} µs`
      : ms < 1000
        ? `${ms.toFixed(2)} ms`
        : `${(ms / 1000).toFixed(2)} s`

/** Columns padded to their widest cell (at least `min`); the first left-aligned, the others right-aligned. */
export const alignColumns = (rows: ReadonlyArray<ReadonlyArray<string>>, min: ReadonlyArray<number> = []): string => {
  const widths = rows[0]!.map((_, i) => Math.max(min[i] ?? 0, ...rows.map((r) => [...(r[i] ?? "")].length)))
  const pad = (s: string, w: number, left: boolean) =>
    left ? s + " ".repeat(w - [...s].length) : " ".repeat(w - [...s].length) + s
  return rows
    .map((r) =>
      r
        .map((c, i) => pad(c, widths[i]!, i === 0))
        .join("  ")
        .trimEnd()
    )
    .join("\n")
}

export const RATE_HEADERS = [
  "",
  "questions",
  "hit@1",
  "hit@3",
  "hit@5",
  "answer in block",
  "of answerable",
  "empty"
] as const
// wide enough for `100.0 %` and `100.0 % of 999`, so the header stays put from run to run
const RATE_WIDTHS = [0, 0, 7, 7, 7, 15, 14, 7]

/** One table row: a name, then the rates of RATE_HEADERS. */
export const rateRow = (name: string, r: Rates): ReadonlyArray<string> => [
  name,
  String(r.questions),
  percent(r.hit1),
  percent(r.hit3),
  percent(r.hit5),
  `${percent(r.answerInBlock.rate)} of ${r.answerInBlock.questions}`,
  `${percent(r.answerableInBlock.rate)} of ${r.answerableInBlock.questions}`,
  percent(r.empty)
]

export interface EvaluationFigures {
  readonly conversations: number
  readonly sessions: number
  readonly questions: number
  readonly ingest: {
    readonly episodes: number
    /** Sessions that left no recallable episode, by reason (`3 user turns, fewer than …`, `declined`, …). */
    readonly withoutEpisode: Readonly<Record<string, number>>
    readonly msPerSession: { readonly p50: number; readonly p90: number }
  }
  readonly recall: RecallSummary
}

/** The report `tmem eval recall` prints. */
export const renderEvaluation = (source: string, e: EvaluationFigures): string => {
  const missing = Object.entries(e.ingest.withoutEpisode)
  const s = e.recall
  return [
    `recall on ${source}: ${plural(e.conversations, "conversation", "conversations")}, ` +
      `${plural(e.sessions, "session", "sessions")} → ${plural(e.ingest.episodes, "episode", "episodes")}, ` +
      `${plural(e.questions, "question", "questions")}`,
    ...(missing.length === 0
      ? []
      : [`sessions without a recallable episode: ${missing.map(([why, n]) => `${n} (${why})`).join(", ")}`]),
    "",
    alignColumns(
      [RATE_HEADERS, rateRow("all", s.all), ...s.categories.map((c) => rateRow(`category ${c.category}`, c))],
      RATE_WIDTHS
    ),
    "",
    ...(s.unrelated.queries === 0
      ? []
      : [`unrelated queries: nothing recalled for ${percent(s.unrelated.empty)} of ${s.unrelated.queries}`]),
    `recall latency: p50 ${millis(s.latencyMs.p50)}, p90 ${millis(s.latencyMs.p90)}, p99 ${millis(s.latencyMs.p99)}; ` +
      `block p50 ${Number.isNaN(s.blockBytes.p50) ? "–" : s.blockBytes.p50} bytes ` +
      `(max ${Number.isNaN(s.blockBytes.max) ? "–" : s.blockBytes.max})`,
    `ingest: p50 ${millis(e.ingest.msPerSession.p50)} per session (p90 ${millis(e.ingest.msPerSession.p90)})`
  ].join("\n")
}
