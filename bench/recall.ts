import { Effect, Layer, ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as DiskEventStore from "../src/adapters/disk/DiskEventStore.js"
import * as NoneLlm from "../src/adapters/llm/NoneLlm.js"
import { NodeFiles } from "../src/adapters/live.js"
import * as MemoryDerivedFiles from "../src/adapters/memory/MemoryDerivedFiles.js"
import * as MemoryEventStore from "../src/adapters/memory/MemoryEventStore.js"
import * as Notifiers from "../src/adapters/notify/Notifiers.js"
import * as WeightedEmbedder from "../src/adapters/rp/WeightedEmbedder.js"
import * as LocalEpisodeSearch from "../src/adapters/search/LocalEpisodeSearch.js"
import { EpisodeIndex } from "../src/app/EpisodeIndex.js"
import { loadEpisodes } from "../src/app/episodes.js"
import { recallContext } from "../src/app/recall.js"
import { Settings } from "../src/app/Settings.js"
import { DEFAULT_CONFIG } from "../src/domain/config/MemoryConfig.js"
import { buildVectorIndex, searchVectorIndex } from "../src/domain/embedding/vector.js"
import { type Episode, EpisodesImported } from "../src/domain/episodes/store.js"
import { EPISODES_STREAM, episodeCodec } from "../src/domain/episodes/stream.js"
import { buildExtractionTranscript } from "../src/domain/episodes/transcript.js"
import type { ChatMessage } from "../src/domain/sessions/message.js"
import { EventStore } from "../src/ports/EventStore.js"
import { type BenchResult, fmt, median, nowMs, percentile, range, table, type Target, verdict } from "./stats.js"

/** A deterministic PRNG (mulberry32): every run sees the same corpus and queries. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const random = seeded(7)
const VOCAB = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}`)
const sentence = (n: number) =>
  Array.from({ length: n }, () => VOCAB[Math.floor(random() ** 2 * VOCAB.length)]!).join(" ")

const episodesOf = (n: number): ReadonlyArray<Episode> =>
  Array.from({ length: n }, (_, i) => ({
    sessionId: `20260101-${i.toString(16).padStart(8, "0")}`,
    turns: 3 + (i % 7),
    createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
    summary: `The user asked about ${sentence(12)}; the agent changed ${sentence(14)}.`,
    provenance: i % 10 === 0 ? { untrusted: true, sources: ["browser"] } : {},
    source: "llm" as const
  }))

const services = (store: Layer.Layer<EventStore>) =>
  Layer.merge(EpisodeIndex.layer, LocalEpisodeSearch.layer).pipe(
    Layer.provide(MemoryDerivedFiles.layer),
    Layer.provideMerge(
      Layer.mergeAll(
        store,
        WeightedEmbedder.layer(256),
        NoneLlm.layer,
        Settings.layer(DEFAULT_CONFIG),
        Notifiers.silent
      )
    )
  )

const recallRow = async (n: number, storeName: "memory" | "disk") => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-bench-recall-"))
  const store =
    storeName === "memory" ? MemoryEventStore.layer : DiskEventStore.layer({ dir }).pipe(Layer.provide(NodeFiles))
  const rt = ManagedRuntime.make(services(store))
  try {
    const episodes = episodesOf(n)
    await rt.runPromise(
      Effect.flatMap(EventStore, (s) =>
        s.append(
          EPISODES_STREAM,
          episodeCodec,
          0,
          [EpisodesImported.make({ episodes, at: "2026-01-01T00:00:00.000Z" })],
          "2026-01-01T00:00:00.000Z"
        )
      )
    )
    const queries = Array.from({ length: 60 }, () => sentence(8))
    const r0 = nowMs()
    await rt.runPromise(recallContext(queries[0]!)) // builds the index: the rebuild's cost
    const rebuild = nowMs() - r0
    const times: Array<number> = []
    for (let i = 0; i < 300; i++) {
      const a = nowMs()
      await rt.runPromise(recallContext(queries[i % queries.length]!))
      times.push(nowMs() - a)
    }
    // baseline: the exact nearest-neighbour scan alone, over the same vectors, with the query already embedded
    const embedder = WeightedEmbedder.make(256)
    const texts = episodes.map((e) => e.summary)
    const index = buildVectorIndex(Effect.runSync(embedder.embed(texts, texts)))
    const q = Effect.runSync(embedder.embed(texts, [queries[0]!]))[0]!
    const scan: Array<number> = []
    for (let i = 0; i < 300; i++) {
      const a = nowMs()
      searchVectorIndex(index, q, 29)
      scan.push(nowMs() - a)
    }
    await rt.runPromise(loadEpisodes())
    return { rebuild, times, scan }
  } finally {
    await rt.dispose()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** Per-turn recall with a warm index, the index rebuild, and the extraction transcript of 1 MB of history. */
export const runRecallBench = async (): Promise<BenchResult> => {
  const rows: Array<Array<string>> = []
  const targets: Array<Target> = []
  for (const [n, target] of [
    [500, 1],
    [10_000, 10]
  ] as const) {
    for (const store of ["memory", "disk"] as const) {
      const r = await recallRow(n, store)
      const p50 = median(r.times)
      const t: Target = {
        name: `per-turn recall, warm index, ${n.toLocaleString("en")} episodes, ${store} store`,
        measured: fmt(p50),
        baseline: `bare top-29 cosine scan: ${fmt(median(r.scan))}`,
        ratio: p50 / median(r.scan),
        target: `p50 ≤ ${target} ms`,
        met: p50 <= target
      }
      targets.push(t)
      rows.push([
        `${n.toLocaleString("en")} episodes, ${store} store`,
        fmt(p50),
        range(r.times),
        fmt(percentile(r.times, 90)),
        fmt(median(r.scan)),
        `${t.ratio.toFixed(1)}×`,
        fmt(r.rebuild),
        verdict(t)
      ])
    }
  }
  const recall = table(
    "Per-turn recall (hybrid: lexical index + weighted local embedder, warm; 300 queries; corpus and queries " +
      "from seed 7; the baseline is the bare top-29 cosine scan over the same vectors, 300 runs)",
    ["episodes", "recall p50", "min – max", "p90", "baseline scan p50", "ratio", "index rebuild (once)", "target"],
    rows
  )
  // 1 MB of history: many turns with long tool output, which the transcript replaces by a size note
  const messages: Array<ChatMessage> = []
  let bytes = 0
  while (bytes < 1024 * 1024) {
    const m: ChatMessage =
      messages.length % 3 === 0
        ? { role: "user", content: sentence(40) }
        : messages.length % 3 === 1
          ? { role: "tool", content: sentence(600), toolName: "shell" }
          : { role: "assistant", content: sentence(120) }
    bytes += m.content.length
    messages.push(m)
  }
  const build: Array<number> = []
  const base: Array<number> = []
  for (let i = 0; i < 40; i++) {
    const a = nowMs()
    buildExtractionTranscript(messages)
    const b = nowMs()
    messages.map((m) => `${m.role}: ${m.content}`).join("\n")
    base.push(nowMs() - b)
    build.push(b - a)
  }
  const transcript = table(
    `Extraction transcript of 1 MB of history (${messages.length} messages; 40 runs)`,
    ["operation", "p50", "min – max", "ratio"],
    [
      ["baseline: join every message as `role: content`", fmt(median(base)), range(base), "1.00×"],
      [
        "buildExtractionTranscript (caps, size notes, head + tail)",
        fmt(median(build)),
        range(build),
        `${(median(build) / median(base)).toFixed(2)}×`
      ]
    ]
  )
  return { markdown: `${recall}\n${transcript}`, targets }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log((await runRecallBench()).markdown)
