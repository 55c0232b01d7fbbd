/**
 * The judge-free recall protocol's measures (docs/CLI.md `eval recall`): whether an evidence session is among the
 * first k episodes recalled, whether the gold answer stands in the block the agent sees, and their rates.
 */
import { runeCount, utf8Bytes } from "../text/utf8.js"
import type { Conversation, DatasetSession, Question } from "./dataset.js"

/** Lower-cased, every run of characters other than letters and digits as one space, trimmed. */
export const normalise = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()

/**
 * Answers shorter than this are too likely to match by chance (`no`, `5`); longer ones are sentences, never verbatim.
 */
export const SHORT_ANSWER_MIN = 3
export const SHORT_ANSWER_MAX = 40

/** Whether the answer is short enough (and long enough) for answer-in-block to mean something. */
export const isShortAnswer = (answer: string): boolean => {
  const n = runeCount(answer.trim())
  return n >= SHORT_ANSWER_MIN && n <= SHORT_ANSWER_MAX
}

/**
 * Whether `answer` stands in `text`, both normalised, on word boundaries: "2022" is not found in "20223", and
 * "York" is found in "New York!".
 */
export const appearsIn = (answer: string, text: string): boolean => {
  const a = normalise(answer)
  return a !== "" && ` ${normalise(text)} `.includes(` ${a} `)
}

/** A session's whole text as the protocol reads it: its date, then every turn with its speaker's name. */
export const sessionText = (s: DatasetSession): string =>
  [s.date, ...s.turns.map((t) => `${t.speaker}: ${t.text}`)].join("\n")

/** Whether the question's answer stands verbatim in one of its evidence sessions (so recall could show it). */
export const isAnswerable = (q: Question, c: Conversation): boolean =>
  c.sessions.some((s) => q.sessions.includes(s.n) && appearsIn(q.answer, sessionText(s)))

/** 1-based position of the first evidence session among the recalled ones; undefined when none was recalled. */
export const firstEvidenceRank = (
  recalled: ReadonlyArray<number | undefined>,
  evidence: ReadonlyArray<number>
): number | undefined => {
  const i = recalled.findIndex((n) => n !== undefined && evidence.includes(n))
  return i < 0 ? undefined : i + 1
}

/** What one question's recall found, as the rates need it. */
export interface QuestionResult {
  readonly category: string
  /** No evidence sessions: nothing should be recalled. */
  readonly unrelated: boolean
  readonly rank: number | undefined
  readonly empty: boolean
  readonly short: boolean
  readonly answerable: boolean
  readonly answerInBlock: boolean
  readonly blockBytes: number
  readonly latencyMs: number
}

/** Scores one question against the session numbers of the episodes recalled (best first) and the block shown. */
export const scoreQuestion = (
  q: Question,
  c: Conversation,
  recalled: ReadonlyArray<number | undefined>,
  block: string,
  latencyMs: number
): QuestionResult => {
  const short = isShortAnswer(q.answer)
  return {
    category: q.category === undefined ? "" : String(q.category),
    unrelated: q.sessions.length === 0,
    rank: firstEvidenceRank(recalled, q.sessions),
    empty: block === "",
    short,
    answerable: short && isAnswerable(q, c),
    answerInBlock: short && appearsIn(q.answer, block),
    blockBytes: utf8Bytes(block),
    latencyMs
  }
}

/** `part / whole`, or null when there is nothing to divide (a rate of no questions is not 0 %). */
export const rate = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole)

/** Nearest-rank percentile; NaN of nothing. */
export const percentile = (xs: ReadonlyArray<number>, p: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  if (s.length === 0) return Number.NaN
  return s[Math.min(s.length - 1, Math.max(0, Math.round((p / 100) * (s.length - 1))))]!
}

/** The rates of a set of questions with evidence. */
export interface Rates {
  readonly questions: number
  readonly hit1: number | null
  readonly hit3: number | null
  readonly hit5: number | null
  /** Share of questions for which nothing was recalled. */
  readonly empty: number | null
  /** Answer-in-block over the questions with a short answer (`questions` of them). */
  readonly answerInBlock: { readonly questions: number; readonly rate: number | null }
  /** Answer-in-block over the short answers that stand verbatim in an evidence session. */
  readonly answerableInBlock: { readonly questions: number; readonly rate: number | null }
}

export const ratesOf = (results: ReadonlyArray<QuestionResult>): Rates => {
  const n = results.length
  const hits = (k: number) => rate(results.filter((r) => r.rank !== undefined && r.rank <= k).length, n)
  const short = results.filter((r) => r.short)
  const answerable = short.filter((r) => r.answerable)
  return {
    questions: n,
    hit1: hits(1),
    hit3: hits(3),
    hit5: hits(5),
    empty: rate(results.filter((r) => r.empty).length, n),
    answerInBlock: { questions: short.length, rate: rate(short.filter((r) => r.answerInBlock).length, short.length) },
    answerableInBlock: {
      questions: answerable.length,
      rate: rate(answerable.filter((r) => r.answerInBlock).length, answerable.length)
    }
  }
}

export interface RecallSummary {
  readonly all: Rates
  /** Per category, in the order categories first appear (numbers in numeric order). */
  readonly categories: ReadonlyArray<Rates & { readonly category: string }>
  /** Queries with no evidence session: how often nothing was recalled for them. */
  readonly unrelated: { readonly queries: number; readonly empty: number | null }
  readonly latencyMs: { readonly p50: number; readonly p90: number; readonly p99: number }
  readonly blockBytes: { readonly p50: number; readonly max: number }
}

const byCategory = (a: string, b: string) => {
  const [x, y] = [Number(a), Number(b)]
  return a !== "" && b !== "" && Number.isFinite(x) && Number.isFinite(y) ? x - y : a < b ? -1 : a > b ? 1 : 0
}

/** Every rate of a run: all questions with evidence, per category, the unrelated queries, latency and block size. */
export const summariseRecall = (results: ReadonlyArray<QuestionResult>): RecallSummary => {
  const related = results.filter((r) => !r.unrelated)
  const unrelated = results.filter((r) => r.unrelated)
  const categories = [...new Set(related.map((r) => r.category))].filter((c) => c !== "").sort(byCategory)
  const latencies = results.map((r) => r.latencyMs)
  const bytes = results.map((r) => r.blockBytes)
  return {
    all: ratesOf(related),
    categories: categories.map((category) => ({
      category,
      ...ratesOf(related.filter((r) => r.category === category))
    })),
    unrelated: { queries: unrelated.length, empty: rate(unrelated.filter((r) => r.empty).length, unrelated.length) },
    latencyMs: { p50: percentile(latencies, 50), p90: percentile(latencies, 90), p99: percentile(latencies, 99) },
    blockBytes: { p50: percentile(bytes, 50), max: bytes.length === 0 ? Number.NaN : Math.max(...bytes) }
  }
}
