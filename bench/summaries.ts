/**
 * How much of a session the extractive summary (no model) keeps, measured by retrieval: each session of a dataset in
 * the dev set's neutral format becomes one recorded session (speaker A as `user`, speaker B as `assistant`, each turn
 * prefixed `[Name] `, the date in a first message), is summarised, and a plain BM25 over the summaries of a
 * conversation's sessions answers each question; a hit@k is an evidence session in the top k. Baselines in the same
 * run: the summary as it was before content-rich summaries, the whole session text, and its first 2,048 bytes.
 *
 *   node --import tsx bench/summaries.ts <dataset.json>
 *
 * The dataset is read from the path given and never copied; nothing is written.
 */
import * as fs from "node:fs"
import { extractiveSummary } from "../src/domain/episodes/extractive.js"
import { capSummary, indexPreview, SUMMARY_CAP_BYTES } from "../src/domain/episodes/summary.js"
import type { ChatMessage } from "../src/domain/sessions/message.js"
import { plural, trimSpace, truncateBytes, utf8Bytes } from "../src/domain/text/utf8.js"
import { bm25 } from "./bm25.js"
import { normalise } from "../src/domain/eval/metrics.js"
import { median, nowMs, table } from "./stats.js"

interface Turn {
  readonly speaker: string
  readonly text: string
}
interface Session {
  readonly n: number
  readonly date: string
  readonly turns: ReadonlyArray<Turn>
}
interface Question {
  readonly q: string
  readonly answer: string | number
  readonly category: number
  readonly sessions: ReadonlyArray<number>
}
interface Conversation {
  readonly id: string
  readonly speakers: ReadonlyArray<string>
  readonly sessions: ReadonlyArray<Session>
  readonly questions: ReadonlyArray<Question>
}

const file = process.argv[2]
if (file === undefined) {
  console.error("usage: node --import tsx bench/summaries.ts <dataset.json>  (the dev set's neutral format)")
  process.exit(2)
}
const data = JSON.parse(fs.readFileSync(file, "utf8")) as { conversations: ReadonlyArray<Conversation> }

/** The protocol's recorded session: the date first, then each turn as its speaker's role, tagged with the name. */
const messagesOf = (c: Conversation, s: Session): ReadonlyArray<ChatMessage> => [
  { role: "user", content: `[Session date] ${s.date}` },
  ...s.turns.map((t): ChatMessage => ({
    role: t.speaker === c.speakers[0] ? "user" : "assistant",
    content: `[${t.speaker}] ${t.text}`
  }))
]
const wholeText = (_: Conversation, s: Session): string =>
  [s.date, ...s.turns.map((t) => `${t.speaker} ${t.text}`)].join("\n")

// The summary as it was written before (kept here verbatim as the same-run baseline).
const oldSummary = (messages: ReadonlyArray<ChatMessage>): string => {
  const excerpt = (s: string, maxBytes: number): string =>
    utf8Bytes(s) <= maxBytes ? s : `${truncateBytes(s, maxBytes - 3)}…`
  const quoted = (content: string): string => `"${excerpt(trimSpace(content.replace(/\s+/gu, " ")), 800)}"`
  const turns = messages.filter((m) => m.role === "user").length
  const firstAsk = messages.find((m) => m.role === "user" && trimSpace(m.content) !== "")
  const lastReply = messages.findLast((m) => m.role === "assistant" && trimSpace(m.content) !== "")
  const out = [`Extractive summary (no LLM): the session had ${plural(turns, "user turn", "user turns")}.`]
  if (firstAsk !== undefined) out.push(`The user asked: ${quoted(firstAsk.content)}.`)
  out.push(
    lastReply === undefined
      ? "The agent gave no written reply."
      : `The agent's last reply was: ${quoted(lastReply.content)}.`
  )
  return out.join(" ")
}

interface Variant {
  readonly name: string
  readonly text: (c: Conversation, s: Session) => string
  readonly isSummary: boolean
}
const variants: ReadonlyArray<Variant> = [
  { name: "old extractive summary", text: (c, s) => capSummary(oldSummary(messagesOf(c, s))), isSummary: true },
  { name: "new extractive summary", text: (c, s) => capSummary(extractiveSummary(messagesOf(c, s))), isSummary: true },
  { name: "whole session (baseline)", text: wholeText, isSummary: false },
  {
    name: "first 2,048 bytes (baseline)",
    text: (c, s) => truncateBytes(wholeText(c, s), SUMMARY_CAP_BYTES),
    isSummary: false
  }
]

const rows: Array<Array<string>> = []
const pct = (x: number, n: number) => `${((100 * x) / Math.max(1, n)).toFixed(1)} %`
for (const v of variants) {
  const hits = [0, 0, 0]
  let questions = 0
  let answerable = 0
  let answerIn = 0
  const sizes: Array<number> = []
  let ms = 0
  for (const c of data.conversations) {
    const t0 = nowMs()
    const texts = c.sessions.map((s) => v.text(c, s))
    ms += nowMs() - t0
    sizes.push(...texts.map(utf8Bytes))
    // the same plain BM25 the eval bench compares recall with (bench/bm25.ts)
    const index = bm25(texts)
    for (const q of c.questions) {
      const evidence = new Set(q.sessions.map((n) => c.sessions.findIndex((s) => s.n === n)))
      const order = index.search(q.q, 5)
      questions++
      ;[1, 3, 5].forEach((k, j) => {
        if (order.slice(0, k).some((i) => evidence.has(i))) hits[j]!++
      })
      const ans = normalise(String(q.answer))
      if (ans.length >= 3 && ans.length <= 40) {
        answerable++
        if ([...evidence].some((i) => i >= 0 && ` ${normalise(texts[i]!)} `.includes(` ${ans} `))) answerIn++
      }
    }
  }
  rows.push([
    v.name,
    ...hits.map((h) => pct(h, questions)),
    `${median(sizes)}`,
    pct(answerIn, answerable),
    v.isSummary ? `${ms.toFixed(0)} ms` : "–"
  ])
}

console.log(
  table(
    `BM25 over each session's text form (${data.conversations.length} conversations, ` +
      `${data.conversations.reduce((n, c) => n + c.questions.length, 0)} questions)`,
    ["text indexed", "hit@1", "hit@3", "hit@5", "median bytes", "answer in evidence text (3–40 chars)", "build time"],
    rows
  )
)

// a few previews, to see what recall would show
const c0 = data.conversations[0]
if (c0 !== undefined)
  for (const s of c0.sessions.slice(0, 3))
    console.log(`preview: ${indexPreview(capSummary(extractiveSummary(messagesOf(c0, s))))}`)

// --- speed on a huge session: a synthetic 10 MB transcript, against tokenising the same text once (a floor for any
// summary that reads every word) ------------------------------------------------------------------------------------
{
  let seed = 7
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff
  const vocab = (
    "the and a we deploy staging Berlin Mary port 3306 failed decided release cache timeout " +
    "kiln pottery thanks hey great"
  ).split(" ")
  const sentence = () =>
    `${Array.from({ length: 4 + Math.floor(rnd() * 16) }, () => vocab[Math.floor(rnd() * vocab.length)]).join(" ")}.`
  const turn = () => Array.from({ length: 1 + Math.floor(rnd() * 4) }, sentence).join(" ")
  const huge: Array<ChatMessage> = []
  let bytes = 0
  while (bytes < 10_000_000) {
    const content = turn()
    bytes += content.length
    huge.push({ role: huge.length % 2 === 0 ? "user" : "assistant", content })
  }
  const time = (f: () => unknown) => {
    const t0 = nowMs()
    f()
    return nowMs() - t0
  }
  const tokenise = () => huge.map((m) => m.content.toLowerCase().match(/[\p{L}\p{N}]+/gu)?.length ?? 0)
  const base = median([1, 2, 3].map(() => time(tokenise)))
  const ours = median([1, 2, 3].map(() => time(() => extractiveSummary(huge))))
  console.log(
    `\n10 MB session (${huge.length} turns): extractive summary ${ours.toFixed(0)} ms, ` +
      `tokenising it once ${base.toFixed(0)} ms, ratio ${(ours / base).toFixed(1)}×`
  )
}
