import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as DiskEventStore from "../src/adapters/disk/DiskEventStore.js"
import type { Episode, EpisodeEvent } from "../src/domain/episodes/store.js"
import { EPISODES_STREAM, episodeCodec } from "../src/domain/episodes/stream.js"
import { time } from "./coldStart.js"
import { type BenchResult, fmt, median, percentile, range, table, type Target, verdict } from "./stats.js"

const BIN = path.resolve("dist/bin.js")

/** A seeded generator (mulberry32), so every run builds the same memory. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const SUBJECTS = ["the parser", "the billing job", "the deploy script", "the auth proxy", "the search index"]
const VERBS = ["fixed", "profiled", "rewrote", "reviewed", "documented", "migrated"]

/**
 * `n` episodes as a memory grown one session at a time holds them, each summary about 1.5 KB of sentences over a
 * vocabulary of a few thousand rare words (names, hosts, numbers) among common ones.
 */
export const history = (n: number): ReadonlyArray<EpisodeEvent> => {
  const rnd = random(42)
  const pick = <A>(xs: ReadonlyArray<A>) => xs[Math.floor(rnd() * xs.length)]!
  const rare = Array.from({ length: 5000 }, (_, i) => `${pick(["svc", "host", "team", "ticket", "repo"])}${i * 7919}`)
  const sentence = () =>
    `The agent ${pick(VERBS)} ${pick(SUBJECTS)} for ${pick(rare)} and ${pick(rare)}, ` +
    `port ${1000 + Math.floor(rnd() * 9000)}.`
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString()
  return Array.from({ length: n }, (_, i): ReadonlyArray<EpisodeEvent> => {
    const episode: Episode = {
      sessionId: `20260101-${i.toString(16).padStart(8, "0")}`,
      turns: 4 + (i % 9),
      createdAt: at(i),
      summary: Array.from({ length: 18 }, sentence).join(" "),
      provenance: {},
      source: "llm"
    }
    return [
      { _tag: "ExtractionPending", sessionId: episode.sessionId, at: at(i) },
      { _tag: "EpisodeStored", episode, at: at(i) }
    ]
  }).flat()
}

/**
 * A new `tmem recall` process on a memory of `n` episodes (its lexical index and snapshot already on disk, as after
 * any earlier recall), against `node -e 0`, alternating in the same run.
 */
export const runColdRecallBench = async (n = 10_000, runs = 9): Promise<BenchResult> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-bench-cold-recall-"))
  try {
    fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify({ memory: { max_episodes: 2 * n } }))
    const writer = Effect.runSync(DiskEventStore.make({ dir }))
    const events = history(n)
    let version = 0
    for (let i = 0; i < events.length; i += 1000) {
      const batch = events.slice(i, i + 1000)
      await Effect.runPromise(writer.append(EPISODES_STREAM, episodeCodec, version, batch, "2026-02-01T00:00:00.000Z"))
      version += batch.length
    }
    const recall = [BIN, "--dir", dir, "recall", "Which port did the deploy script use for svc79190?"]
    const first = time(recall)
    const node: Array<number> = []
    const cold: Array<number> = []
    for (let i = 0; i < runs; i++) {
      node.push(time(["-e", "0"]))
      cold.push(time(recall))
    }
    const base = median(node)
    const target: Target = {
      name: `\`tmem recall\` as a new process on ${n.toLocaleString("en")} episodes against \`node -e 0\``,
      measured: fmt(median(cold)),
      baseline: `node -e 0: ${fmt(base)}`,
      ratio: median(cold) / base,
      target: "≤ 4×",
      met: median(cold) / base <= 4
    }
    const markdown = table(
      `Cold recall: a new \`tmem recall\` process on a memory of ${n.toLocaleString("en")} episodes ` +
        `(summaries from seed 42; ${runs} runs each, alternating; medians)`,
      ["command", "median", "min – max", "p90", "ratio to node -e 0", "target"],
      [
        ["node -e 0 (baseline)", fmt(base), range(node), fmt(percentile(node, 90)), "1.00×", ""],
        [
          "tmem recall (index and snapshot on disk)",
          fmt(median(cold)),
          range(cold),
          fmt(percentile(cold, 90)),
          `${target.ratio.toFixed(2)}×`,
          verdict(target)
        ],
        [
          "tmem recall, first (builds the index and the snapshot; once)",
          fmt(first),
          "",
          "",
          `${(first / base).toFixed(2)}×`,
          ""
        ]
      ]
    )
    return { markdown, targets: [target] }
  } finally {
    // TMEM_BENCH_KEEP=1 leaves the memory for a profiler
    if (process.env.TMEM_BENCH_KEEP === "1") console.error(`kept ${dir}`)
    else fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log((await runColdRecallBench()).markdown)
