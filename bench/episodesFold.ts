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
import { type BenchResult, fmt, median, nowMs, range, table, type Target, verdict } from "./stats.js"

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

/** Each run's time. */
const timeIt = (runs: number, f: () => unknown): ReadonlyArray<number> => {
  const xs: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const a = nowMs()
    f()
    xs.push(nowMs() - a)
  }
  return xs
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
export const runEpisodesFoldBench = async (): Promise<BenchResult> => {
  const rows: Array<Array<string>> = []
  const targets: Array<Target> = []
  for (const n of [1_000, 10_000]) {
    const events = grownHistory(n)
    const folds = timeIt(15, () => foldStream(episodeCodec, initialEpisodeStore, events))
    const copyings = timeIt(n > 1_000 ? 3 : 9, () => events.reduce(copyingEvolve, initialEpisodeStore))
    const fold = median(folds)
    const copying = median(copyings)
    const label = `${n.toLocaleString("en")} sessions (${events.length.toLocaleString("en")} events)`
    const target: Target | undefined =
      n === 10_000
        ? {
            name: `episodes fold, a store grown one session at a time to ${label}`,
            measured: fmt(fold),
            baseline: `the list-copying fold it replaced: ${fmt(copying)}`,
            ratio: fold / copying,
            target: "fold < 100 ms",
            met: fold < 100
          }
        : undefined
    if (target !== undefined) targets.push(target)
    rows.push([
      label,
      `${copyings.length}`,
      fmt(copying),
      range(copyings),
      fmt(fold),
      range(folds),
      `${(fold / copying).toFixed(3)}×`,
      target === undefined ? "" : verdict(target)
    ])
  }
  const disk = await diskLoad(10_000)
  const ms = (xs: ReadonlyArray<number>) => fmt(median(xs))
  const markdown = [
    table(
      "Episodes fold (a store grown one session at a time; the one-pass fold 15 runs; medians; " +
        "the baseline copies the list per event, as the fold did before)",
      [
        "history",
        "baseline runs",
        "baseline: copying fold",
        "min – max",
        "one-pass fold",
        "min – max",
        "ratio",
        "target"
      ],
      rows
    ),
    table(
      "Cold load of the episodes stream from disk at 10,000 sessions (new store instance; 9 runs, medians)",
      ["operation", "median", "min – max", "ratio"],
      [
        ["baseline: read the journal and JSON.parse every line", ms(disk.parse), range(disk.parse), "1.00×"],
        [
          "DiskEventStore.load without a snapshot (decode, verify the chain, fold, check index.json)",
          ms(disk.load),
          range(disk.load),
          `${(median(disk.load) / median(disk.parse)).toFixed(2)}×`
        ],
        [
          "DiskEventStore.load from the stream's snapshot (check its journal prefix, decode the state, fold the rest)",
          ms(disk.fromSnapshot),
          range(disk.fromSnapshot),
          `${(median(disk.fromSnapshot) / median(disk.parse)).toFixed(2)}× ` +
            `(${(median(disk.fromSnapshot) / median(disk.load)).toFixed(2)}× without)`
        ]
      ]
    )
  ].join("\n")
  return { markdown, targets }
}
