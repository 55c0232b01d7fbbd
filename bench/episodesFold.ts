import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as DiskEventStore from "../src/adapters/disk/DiskEventStore.js"
import {
  type Episode,
  type EpisodeEvent,
  type EpisodeStoreState,
  initialEpisodeStore
} from "../src/domain/episodes/store.js"
import { EPISODES_STREAM, episodeCodec } from "../src/domain/episodes/stream.js"
import { foldStream } from "../src/domain/kernel/Stream.js"
import { fmt, median, nowMs, table } from "./stats.js"

const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString()
const episodeOf = (i: number): Episode => ({
  sessionId: `20260101-${i.toString(16).padStart(8, "0")}`,
  turns: 3 + (i % 7),
  createdAt: at(i),
  summary: `Session ${i}: the agent fixed the parser, wrote tests and updated the changelog.`,
  provenance: i % 10 === 0 ? { untrusted: true, sources: ["browser"] } : {},
  source: "llm"
})

/** A store grown one session at a time: each session end owes its work, then its episode arrives. */
const grownHistory = (n: number): ReadonlyArray<EpisodeEvent> =>
  Array.from({ length: n }, (_, i): ReadonlyArray<EpisodeEvent> => [
    { _tag: "ExtractionPending", sessionId: episodeOf(i).sessionId, at: at(i) },
    { _tag: "EpisodeStored", episode: episodeOf(i), at: at(i) }
  ]).flat()

/** The fold as it was: every event copies the whole list (the same-run baseline). */
const copyingEvolve = (state: EpisodeStoreState, event: EpisodeEvent): EpisodeStoreState =>
  event._tag === "EpisodeStored"
    ? { episodes: [...state.episodes.filter((e) => e.sessionId !== event.episode.sessionId), event.episode] }
    : state

const timeIt = (runs: number, f: () => unknown) => {
  const xs: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const a = nowMs()
    f()
    xs.push(nowMs() - a)
  }
  return median(xs)
}

/**
 * A cold load (a new store instance, as a new process has) of a journal holding `n` sessions, against reading its
 * lines.
 */
const diskLoad = async (n: number) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-bench-fold-"))
  try {
    const writer = Effect.runSync(DiskEventStore.make({ dir }))
    const events = grownHistory(n)
    let version = 0
    for (let i = 0; i < events.length; i += 1000) {
      const batch = events.slice(i, i + 1000)
      await Effect.runPromise(writer.append(EPISODES_STREAM, episodeCodec, version, batch, at(i)))
      version += batch.length
    }
    const journal = path.join(dir, "journal", `${EPISODES_STREAM}.jsonl`)
    const loadWith = (snapshotEvery: number) => () =>
      Effect.runSync(
        Effect.flatMap(DiskEventStore.make({ dir, snapshotEvery }), (s) => s.load(EPISODES_STREAM, episodeCodec))
      )
    const snapshot = path.join(dir, "journal", `${EPISODES_STREAM}.snapshot.json`)
    // without a snapshot: none is taken (a fold must go through more events than the journal has)
    fs.rmSync(snapshot, { force: true })
    const load = timeIt(9, loadWith(Number.MAX_SAFE_INTEGER))
    // the first load takes the snapshot; the timed ones start from it
    loadWith(1_000)()
    if (!fs.existsSync(snapshot)) throw new Error("no snapshot was taken")
    const fromSnapshot = timeIt(9, loadWith(1_000))
    const parse = timeIt(9, () =>
      fs
        .readFileSync(journal, "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l))
    )
    return { load, fromSnapshot, parse }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** Folding the episodes stream: the one-pass fold against the list-copying fold it replaced, and a cold disk load. */
export const runEpisodesFoldBench = async (): Promise<string> => {
  const rows: Array<Array<string>> = []
  for (const n of [1_000, 10_000]) {
    const events = grownHistory(n)
    const fold = timeIt(15, () => foldStream(episodeCodec, initialEpisodeStore, events))
    const copying = timeIt(n > 1_000 ? 3 : 9, () => events.reduce(copyingEvolve, initialEpisodeStore))
    rows.push([
      `${n.toLocaleString("en")} sessions (${events.length.toLocaleString("en")} events)`,
      fmt(copying),
      fmt(fold),
      `${(fold / copying).toFixed(3)}×`,
      n === 10_000 ? `fold < 100 ms: ${fold < 100 ? "met" : "NOT met"}` : ""
    ])
  }
  const disk = await diskLoad(10_000)
  return [
    table(
      "Episodes fold (a store grown one session at a time; medians; " +
        "the baseline copies the list per event, as the fold did before)",
      ["history", "baseline: copying fold", "one-pass fold", "ratio", "target"],
      rows
    ),
    table(
      "Cold load of the episodes stream from disk at 10,000 sessions (new store instance; 9 runs, medians)",
      ["operation", "median", "ratio"],
      [
        ["baseline: read the journal and JSON.parse every line", fmt(disk.parse), "1.00×"],
        [
          "DiskEventStore.load without a snapshot (decode, verify the chain, fold, check index.json)",
          fmt(disk.load),
          `${(disk.load / disk.parse).toFixed(2)}×`
        ],
        [
          "DiskEventStore.load from the stream's snapshot (check its journal prefix, decode the state, fold the rest)",
          fmt(disk.fromSnapshot),
          `${(disk.fromSnapshot / disk.parse).toFixed(2)}× (${(disk.fromSnapshot / disk.load).toFixed(2)}× without)`
        ]
      ]
    )
  ].join("\n")
}
