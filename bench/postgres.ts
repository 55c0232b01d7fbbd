import { Context, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import * as DiskEventStore from "../src/adapters/disk/DiskEventStore.js"
import { NodeFiles } from "../src/adapters/live.js"
import * as PgEventStore from "../src/adapters/postgres/PgEventStore.js"
import { EPISODES_STREAM, episodeCodec } from "../src/domain/episodes/stream.js"
import type { StreamCodec } from "../src/domain/kernel/Stream.js"
import { EventStore } from "../src/ports/EventStore.js"
import { Schema } from "effect"
import { history } from "./coldRecall.js"
import { time } from "./coldStart.js"
import { type BenchResult, fmt, median, nowMs, percentile, range, table } from "./stats.js"

const URL = process.env["TMEM_BENCH_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const SCHEMA = "tmem_bench"
const BIN = path.resolve("dist/bin.js")

const Noted = Schema.TaggedStruct("Noted", { note: Schema.String })
type Noted = typeof Noted.Type
const codec: StreamCodec<number, Noted> = { initialState: 0, evolve: (n) => n + 1, events: Noted }

const reachable = async () => {
  const c = new pg.Client({ connectionString: URL, connectionTimeoutMillis: 2_000 })
  try {
    await c.connect()
    return true
  } catch {
    return false
  } finally {
    await c.end().catch(() => undefined)
  }
}

const dropMemory = async (memory: string) => {
  const c = new pg.Client({ connectionString: URL })
  await c.connect()
  for (const t of ["batches", "streams", "snapshots", "checkpoints", "memories"])
    await c.query(`DELETE FROM ${SCHEMA}.${t} WHERE memory = $1`, [memory]).catch(() => undefined)
  await c.end()
}

/** Sequential appends of one event by one writer: each latency, and appends per second. */
const oneWriter = (store: EventStore["Type"], stream: string, n: number) =>
  Effect.gen(function* () {
    const times: Array<number> = []
    const start = nowMs()
    for (let v = 0; v < n; v++) {
      const a = nowMs()
      yield* store.append(stream, codec, v, [Noted.make({ note: `note ${v}` })], "2026-01-01T00:00:00.000Z")
      times.push(nowMs() - a)
    }
    return { times: times.slice(20), perSecond: (n / (nowMs() - start)) * 1000 }
  })

/** `writers` store instances (as separate processes would hold), each appending to its own stream of one memory. */
const manyWriters = (stores: ReadonlyArray<EventStore["Type"]>, n: number) =>
  Effect.gen(function* () {
    const start = nowMs()
    yield* Effect.forEach(stores, (s, w) => oneWriter(s, `bench/w${w}`, n), { concurrency: "unbounded" })
    return ((stores.length * n) / (nowMs() - start)) * 1000
  })

const perSecond = (x: number) => `${x.toFixed(0)}/s`

export const runPostgresBench = async (): Promise<BenchResult> => {
  if (!(await reachable())) {
    const skipped = `no server at ${URL.replace(/\/\/[^@]*@/, "//")}`
    return { markdown: `### PostgreSQL store\n\nskipped: ${skipped}\n`, targets: [], skipped }
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-bench-pg-"))
  const memory = `bench-${process.pid}`
  const disk = (d: string) => DiskEventStore.layer({ dir: d }).pipe(Layer.provide(NodeFiles))
  const pgLayer = (m: string) => PgEventStore.layer({ url: URL, schema: SCHEMA, memory: m })
  try {
    const rows = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const build = (l: Layer.Layer<EventStore>) => Effect.map(Layer.build(l), (c) => Context.get(c, EventStore))
          const d1 = yield* build(disk(path.join(dir, "one")))
          const p1 = yield* build(pgLayer(memory))
          // alternated rounds, so both meet the same machine noise
          const disk1: Array<number> = []
          const pg1: Array<number> = []
          const diskRate: Array<number> = []
          const pgRate: Array<number> = []
          for (let round = 0; round < 3; round++) {
            const a = yield* oneWriter(d1, `bench/one${round}`, 200)
            const b = yield* oneWriter(p1, `bench/one${round}`, 200)
            disk1.push(...a.times)
            pg1.push(...b.times)
            diskRate.push(a.perSecond)
            pgRate.push(b.perSecond)
          }
          const d8 = yield* Effect.forEach(Array.from({ length: 8 }), () => build(disk(path.join(dir, "many"))))
          const p8 = yield* Effect.forEach(Array.from({ length: 8 }), () => build(pgLayer(`${memory}-8`)))
          const disk8 = yield* manyWriters(d8, 100)
          const pg8 = yield* manyWriters(p8, 100)
          return [
            [
              "1 writer, disk: append latency",
              fmt(median(disk1)),
              range(disk1),
              fmt(percentile(disk1, 90)),
              `${perSecond(median(diskRate))} (${range(diskRate, perSecond)})`,
              "1.00×"
            ],
            [
              "1 writer, PostgreSQL: append latency",
              fmt(median(pg1)),
              range(pg1),
              fmt(percentile(pg1, 90)),
              `${perSecond(median(pgRate))} (${range(pgRate, perSecond)})`,
              `${(median(pg1) / median(disk1)).toFixed(2)}×`
            ],
            ["8 writers (own streams, one memory), disk", "", "", "", perSecond(disk8), "1.00×"],
            [
              "8 writers (own streams, one memory), PostgreSQL",
              "",
              "",
              "",
              perSecond(pg8),
              `${(disk8 / pg8).toFixed(2)}× (time per append)`
            ]
          ]
        })
      )
    )
    // a memory of 10,000 episodes in each store, then new `tmem recall` and `tmem prompt` processes on each
    const episodes = history(10_000)
    const diskDir = path.join(dir, "episodes")
    const recallMemory = `${memory}-recall`
    fs.mkdirSync(diskDir)
    fs.writeFileSync(path.join(diskDir, "config.json"), JSON.stringify({ memory: { max_episodes: 20_000 } }))
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          for (const l of [disk(diskDir), pgLayer(recallMemory)]) {
            const s = Context.get(yield* Layer.build(l), EventStore)
            for (let i = 0; i < episodes.length; i += 1000)
              yield* s.append(EPISODES_STREAM, episodeCodec, i, episodes.slice(i, i + 1000), "2026-02-01T00:00:00.000Z")
          }
        })
      )
    )
    const pgArgs = ["--dir", path.join(dir, "pg-cache"), "--store", URL, "--memory", recallMemory]
    const config = ["--config", path.join(diskDir, "config.json")]
    const query = "Which port did the deploy script use for svc79190?"
    const cold = (args: ReadonlyArray<string>) => {
      time([BIN, ...args])
      const out: Array<number> = []
      for (let i = 0; i < 7; i++) out.push(time([BIN, ...args]))
      return out
    }
    const recallDisk = cold(["--dir", diskDir, "recall", query])
    const recallPg = cold([...pgArgs, ...config, "recall", query])
    const promptDisk = cold(["--dir", diskDir, "prompt"])
    const promptPg = cold([...pgArgs, ...config, "prompt"])
    const ratio = (a: Array<number>, b: Array<number>) => `${(median(a) / median(b)).toFixed(2)}×`
    const row = (name: string, xs: Array<number>, ratioCell: string) => [
      name,
      fmt(median(xs)),
      range(xs),
      fmt(percentile(xs, 90)),
      "",
      ratioCell
    ]
    rows.push(
      row("new `tmem recall` process, 10,000 episodes, directory", recallDisk, "1.00×"),
      row("the same on PostgreSQL", recallPg, ratio(recallPg, recallDisk)),
      row("new `tmem prompt` process, directory", promptDisk, "1.00×"),
      row("the same on PostgreSQL", promptPg, ratio(promptPg, promptDisk))
    )
    await dropMemory(recallMemory)
    const markdown = table(
      "PostgreSQL store against the disk store, same run (appends of one event; 3 alternated rounds of 200 for one " +
        "writer, the first 20 of each round untimed, 8 store instances × 100 for eight; cold processes: 7 after one " +
        "untimed; episodes from seed 42)",
      ["operation", "p50", "min – max", "p90", "throughput (median of rounds, min – max)", "ratio to disk"],
      rows
    )
    return { markdown, targets: [] }
  } finally {
    await dropMemory(memory).catch(() => undefined)
    await dropMemory(`${memory}-8`).catch(() => undefined)
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log((await runPostgresBench()).markdown)
