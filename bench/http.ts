import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, ManagedRuntime } from "effect"
import { Agent, request } from "undici"
import { type RecordedRequest, startScriptedServer } from "../src/adapters/dev/ScriptedServer.js"
import * as HttpEmbedder from "../src/adapters/http/HttpEmbedder.js"
import * as OpenAiLlm from "../src/adapters/http/OpenAiLlm.js"
import { DEFAULT_EMBEDDING, DEFAULT_LLM } from "../src/domain/config/MemoryConfig.js"
import { Llm, type LlmRequest } from "../src/ports/Llm.js"
import { type BenchResult, fmt, median, nowMs, percentile, range, table } from "./stats.js"

const CALLS = 1000
const WARMUP = 100

/** A small deterministic PRNG (mulberry32), so every run draws the same workload. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** Zipf(s = 1) over n ranks: a few recall queries recur often, most rarely, as in real sessions. */
const zipf = (n: number, random: () => number) => {
  const cumulative: Array<number> = []
  let total = 0
  for (let k = 1; k <= n; k++) cumulative.push((total += 1 / k))
  return () => {
    const u = random() * total
    let lo = 0
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cumulative[mid]! < u) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

/** A stable 768-dimensional vector per text (the size of nomic-embed-text), so responses have realistic weight. */
const vectorOf = (text: string): ReadonlyArray<number> => {
  const random = seeded(Array.from(text).reduce((h, c) => (Math.imul(h, 31) + c.codePointAt(0)!) | 0, 7))
  return Array.from({ length: 768 }, () => Number((random() * 2 - 1).toFixed(6)))
}

const inputsOf = (req: RecordedRequest): ReadonlyArray<string> =>
  ((req.body ?? {}) as { input?: ReadonlyArray<string> }).input ?? []

const row = (name: string, xs: ReadonlyArray<number>, base: number) => [
  name,
  fmt(median(xs)),
  range(xs),
  fmt(percentile(xs, 90)),
  `${(median(xs) / base).toFixed(2)}×`
]

const llmOverhead = async (): Promise<string> => {
  const server = await startScriptedServer({
    handler: () => ({ kind: "chat", content: '{"facts":["The API service runs on Node 22"]}' })
  })
  const config = { ...DEFAULT_LLM, provider: "openai" as const, baseUrl: server.url, model: "bench" }
  const ask: LlmRequest = {
    system: "Extract durable facts as JSON.",
    messages: [{ role: "user", content: "The API service now runs on Node 22." }],
    maxTokens: 256
  }
  const body = JSON.stringify({
    model: config.model,
    messages: [{ role: "system", content: ask.system }, ...ask.messages],
    max_tokens: ask.maxTokens,
    temperature: config.temperature,
    stream: false
  })
  const runtime = ManagedRuntime.make(OpenAiLlm.layer(config))
  const agent = new Agent()
  try {
    const complete = Effect.flatMap(Llm, (l) => l.complete(ask))
    const bare = async () => {
      const r = await request(`${server.url}/chat/completions`, {
        dispatcher: agent,
        method: "POST",
        headers: { "content-type": "application/json" },
        body
      })
      return (JSON.parse(await r.body.text()) as { choices: Array<{ message: { content: string } }> }).choices[0]!
        .message.content
    }
    const adapterTimes: Array<number> = []
    const bareTimes: Array<number> = []
    // interleaved, so drift on a noisy machine hits both sides alike
    for (let i = 0; i < CALLS + WARMUP; i++) {
      const a = nowMs()
      await runtime.runPromise(complete)
      const b = nowMs()
      await bare()
      const c = nowMs()
      if (i >= WARMUP) {
        adapterTimes.push(b - a)
        bareTimes.push(c - b)
      }
    }
    const base = median(bareTimes)
    return table(
      "LLM adapter overhead per call: OpenAiLlm.complete vs a bare undici POST + JSON.parse, same body, " +
        `same scripted server (${CALLS} calls each after ${WARMUP} warm-up, interleaved; ` +
        `${server.connections} TCP connections in all)`,
      ["operation", "p50", "min – max", "p90", "ratio to baseline (p50)"],
      [
        row("baseline: undici request() + JSON.parse", bareTimes, base),
        row("OpenAiLlm.complete (Effect HttpClient, timeout, bounded read, validation)", adapterTimes, base)
      ]
    ).concat(
      `\nOverhead at the median: ${fmt(median(adapterTimes) - base)} per call, ` +
        "against a model call that takes hundreds of milliseconds.\n"
    )
  } finally {
    await runtime.dispose()
    await agent.close()
    await server.close()
  }
}

const embeddingCache = async (): Promise<string> => {
  const server = await startScriptedServer({
    handler: (req) => ({ kind: "embeddings", vectors: inputsOf(req).map(vectorOf) })
  })
  const runtime = ManagedRuntime.make(NodeHttpClient.layerUndici)
  try {
    const embedder = await runtime.runPromise(
      HttpEmbedder.make({ ...DEFAULT_EMBEDDING, provider: "http", baseUrl: server.url, model: "bench" })
    )
    const distinct = Array.from(
      { length: 300 },
      (_, i) => `what did we decide about topic ${i} in the ${["api", "worker", "billing", "docs"][i % 4]} service?`
    )
    const draw = zipf(distinct.length, seeded(42))
    const hitTimes: Array<number> = []
    const missTimes: Array<number> = []
    for (let i = 0; i < 2000; i++) {
      const query = distinct[draw()]!
      const before = embedder.stats().requests
      const a = nowMs()
      await Effect.runPromise(embedder.embed([], [query]))
      const took = nowMs() - a
      ;(embedder.stats().requests > before ? missTimes : hitTimes).push(took)
    }
    const s = embedder.stats()
    const base = median(missTimes)
    return table(
      "Embedding cache on a repeated recall workload: 2,000 queries drawn Zipf(1) from 300 distinct texts (seed 42), " +
        "768-dim vectors from the scripted server",
      ["measure", "value"],
      [
        ["hit rate", `${((100 * s.hits) / (s.hits + s.misses)).toFixed(1)} % (${s.hits} hits, ${s.misses} misses)`],
        ["requests sent", `${s.requests} (${server.requests.length} seen by the server; ${s.entries} cached texts)`],
        [
          "latency of a miss (p50 / p90; min – max)",
          `${fmt(base)} / ${fmt(percentile(missTimes, 90))}; ${range(missTimes)}`
        ],
        [
          "latency of a hit (p50 / p90; min – max)",
          `${fmt(median(hitTimes))} / ${fmt(percentile(hitTimes, 90))}; ${range(hitTimes)}`
        ],
        ["miss / hit (p50)", `${(base / median(hitTimes)).toFixed(0)}×`]
      ]
    )
  } finally {
    await runtime.dispose()
    await server.close()
  }
}

/** Both HTTP benchmarks as markdown tables. */
export const runHttpBench = async (): Promise<BenchResult> => ({
  markdown: [await llmOverhead(), await embeddingCache()].join("\n"),
  targets: []
})

if (import.meta.url === `file://${process.argv[1]}`) console.log((await runHttpBench()).markdown)
