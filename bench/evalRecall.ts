import { Effect, Either } from "effect"
import * as ScratchMemories from "../src/adapters/disk/ScratchMemories.js"
import { evaluateRecall } from "../src/app/eval.js"
import { recallDetailed } from "../src/app/recall.js"
import { DEFAULT_CONFIG } from "../src/domain/config/MemoryConfig.js"
import { type Dataset, decodeDataset } from "../src/domain/eval/dataset.js"
import { type QuestionResult, scoreQuestion, sessionText, summariseRecall } from "../src/domain/eval/metrics.js"
import { millis, percent, renderEvaluation } from "../src/domain/eval/report.js"
import { bm25 } from "./bm25.js"
import { type BenchResult, nowMs, range, table } from "./stats.js"
import { syntheticDialogues } from "./syntheticDialogues.js"

/** The synthetic dataset's seed (its default): every run recalls the same conversations. */
const SEED = 10

/** The same protocol with BM25 over each session's whole text standing in for recall; it shows no block. */
const bm25Run = (dataset: Dataset) => {
  const results: Array<QuestionResult> = []
  const latencies: Array<number> = []
  for (const c of dataset.conversations) {
    const index = bm25(c.sessions.map(sessionText))
    for (const q of c.questions) {
      const start = nowMs()
      const found = index.search(q.q, 5).map((i) => c.sessions[i]!.n)
      const ms = nowMs() - start
      latencies.push(ms)
      results.push(scoreQuestion(q, c, found, "", ms))
    }
  }
  return { ...summariseRecall(results), latencies }
}

/**
 * `tmem eval recall` on the project's own synthetic dataset (bench/syntheticDialogues.ts, seeded) with the default
 * configuration (local embedder, no model), next to BM25 over whole sessions on the same questions in the same run.
 */
export const runEvalRecallBench = async (): Promise<BenchResult> => {
  const decoded = decodeDataset(syntheticDialogues({ seed: SEED }))
  if (Either.isLeft(decoded)) throw new Error(`the synthetic dataset does not decode: ${decoded.left.message}`)
  const dataset = decoded.right
  // each recall's own time too, for the range: the evaluation reports percentiles only
  const latencies: Array<number> = []
  const recall = (query: string) =>
    Effect.suspend(() => {
      const start = nowMs()
      return Effect.ensuring(
        recallDetailed(query),
        Effect.sync(() => void latencies.push(nowMs() - start))
      )
    })
  const evaluation = await Effect.runPromise(
    evaluateRecall(dataset, { recall }).pipe(Effect.provide(ScratchMemories.layer(DEFAULT_CONFIG)))
  )
  const base = bm25Run(dataset)
  const r = evaluation.recall
  const rows = [
    [
      "tmem recall (default: local embedder, no model)",
      percent(r.all.hit1),
      percent(r.all.hit3),
      percent(r.all.hit5),
      `${percent(r.all.answerableInBlock.rate)} of ${r.all.answerableInBlock.questions}`,
      `${percent(r.unrelated.empty)} of ${r.unrelated.queries}`,
      millis(r.latencyMs.p50),
      range(latencies, millis),
      millis(r.latencyMs.p90),
      `${(r.latencyMs.p50 / base.latencyMs.p50).toFixed(1)}×`
    ],
    [
      "baseline: BM25 over whole session text",
      percent(base.all.hit1),
      percent(base.all.hit3),
      percent(base.all.hit5),
      "(no block)",
      "(no floor)",
      millis(base.latencyMs.p50),
      range(base.latencies, millis),
      millis(base.latencyMs.p90),
      "1.0×"
    ]
  ]
  const markdown = [
    table(
      `Recall quality on the synthetic dataset (${evaluation.conversations} conversations, ` +
        `${evaluation.sessions} sessions, ${evaluation.questions} questions; dataset seed ${SEED}; ` +
        "quality is deterministic, latency per query in the same run)",
      [
        "retrieval",
        "hit@1",
        "hit@3",
        "hit@5",
        "answer in block (answerable)",
        "unrelated: nothing recalled",
        "p50",
        "min – max",
        "p90",
        "p50 ratio"
      ],
      rows
    ),
    "```",
    renderEvaluation("the synthetic dataset", evaluation),
    "```",
    ""
  ].join("\n")
  return { markdown, targets: [] }
}
