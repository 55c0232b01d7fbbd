import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import * as DiskEventStore from "../../src/adapters/disk/DiskEventStore.js"
import type { Episode, EpisodeEvent } from "../../src/domain/episodes/store.js"
import { EPISODES_STREAM, episodeCodec } from "../../src/domain/episodes/stream.js"
import { foldStream, type StreamCodec } from "../../src/domain/kernel/Stream.js"
import { counterCodec, type CounterEvent, inc, tempDir } from "../support/stores.js"

/** The counter of the store tests, with a state schema: a stream that keeps snapshots. */
const snapshotted: StreamCodec<{ readonly total: number; readonly notes: ReadonlyArray<string> }, CounterEvent> = {
  ...counterCodec,
  snapshot: Schema.Struct({ total: Schema.Number, notes: Schema.Array(Schema.String) })
}
const at = "2026-01-01T00:00:00.000Z"
const snapshotFile = (dir: string, stream: string) => path.join(dir, "journal", `${stream}.snapshot.json`)
const storeAt = (dir: string, snapshotEvery = 3) => Effect.runSync(DiskEventStore.make({ dir, snapshotEvery }))

describe("snapshots of long streams (disk store)", () => {
  it.scopedLive("property: a new reader's state is the full fold, whether it starts from a snapshot or not", () =>
    Effect.gen(function* () {
      const root = yield* tempDir
      let run = 0
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.array(fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 4 }), {
              minLength: 1,
              maxLength: 14
            }),
            fc.integer({ min: 1, max: 6 }),
            // long notes make journals past the snapshot's hashed window (64 KB), short ones journals within it
            fc.constantFrom(0, 9_000),
            async (batches, every, padding) => {
              const dir = path.join(root, `r${run++}`)
              let version = 0
              const all: Array<CounterEvent> = []
              for (const [i, batch] of batches.entries()) {
                const events = batch.map((by, j) => inc(by, `${i}.${j}${"·".repeat(padding)}`))
                await Effect.runPromise(storeAt(dir, every).append("counter/a", snapshotted, version, events, at))
                version += events.length
                all.push(...events)
                // a new process after every batch: some start from a snapshot taken by an earlier one
                const loaded = await Effect.runPromise(storeAt(dir, every).load("counter/a", snapshotted))
                expect(loaded.state).toStrictEqual(foldStream(counterCodec, counterCodec.initialState, all))
                expect(loaded.version).toBe(version)
              }
              if (all.length >= every) expect(fs.existsSync(snapshotFile(dir, "counter/a"))).toBe(true)
            }
          ),
          { numRuns: 60 }
        )
      )
    })
  )

  it.scopedLive(
    "a snapshot of other bytes than the journal, a damaged one, or one past a journal cut back is not used",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const store = storeAt(dir)
        yield* store.append("counter/a", snapshotted, 0, [inc(1, "a"), inc(2, "b"), inc(3, "c")], at)
        yield* store.append("counter/a", snapshotted, 3, [inc(4, "d")], at)
        yield* storeAt(dir).load("counter/a", snapshotted)
        const snap = snapshotFile(dir, "counter/a")
        const taken = JSON.parse(fs.readFileSync(snap, "utf8"))
        expect(taken).toMatchObject({ version: 4, state: { total: 10, notes: ["a", "b", "c", "d"] } })
        const loadTotal = () =>
          Effect.map(storeAt(dir).load("counter/a", snapshotted), (l) => [l.state.total, l.version])
        // a snapshot taken of other bytes than this journal's
        fs.writeFileSync(snap, JSON.stringify({ ...taken, tailHash: "0".repeat(64), state: { total: 999, notes: [] } }))
        expect(yield* loadTotal()).toEqual([10, 4])
        // one of the first snapshots, bound to the hash of the whole prefix: taken again, never trusted
        const { tailHash: _, ...first } = taken
        fs.writeFileSync(
          snap,
          JSON.stringify({ ...first, prefixHash: "0".repeat(64), state: { total: 999, notes: [] } })
        )
        expect(yield* loadTotal()).toEqual([10, 4])
        fs.writeFileSync(snap, JSON.stringify({ ...taken, offset: taken.offset - 1, state: { total: 999, notes: [] } }))
        expect(yield* loadTotal()).toEqual([10, 4])
        // damaged or of the wrong shape
        fs.writeFileSync(snap, "{not json")
        expect(yield* loadTotal()).toEqual([10, 4])
        // the journal cut back below the snapshot (restored from an older backup)
        yield* storeAt(dir).load("counter/a", snapshotted)
        const journalFile = path.join(dir, "journal/counter/a.jsonl")
        const firstLine = fs.readFileSync(journalFile, "utf8").split("\n")[0]!
        fs.writeFileSync(journalFile, `${firstLine}\n`)
        expect(yield* loadTotal()).toEqual([6, 3])
        // the journal replaced by another history: the old snapshot's prefix no longer matches
        yield* storeAt(dir).load("counter/a", snapshotted)
        const journal = path.join(dir, "journal/counter/a.jsonl")
        fs.rmSync(journal)
        fs.rmSync(path.join(dir, "journal/feed.log"))
        yield* storeAt(dir).append("counter/a", snapshotted, 0, [inc(7, "x")], at)
        expect(yield* loadTotal()).toEqual([7, 1])
      })
  )

  it.scopedLive("a reader of a journal far longer than the hashed window starts from the snapshot", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const store = storeAt(dir)
      const long = (n: number) => inc(n, `${n}${"·".repeat(40_000)}`)
      yield* store.append("counter/a", snapshotted, 0, [long(1), long(2), long(3)], at)
      yield* storeAt(dir).load("counter/a", snapshotted)
      const snap = snapshotFile(dir, "counter/a")
      const taken = JSON.parse(fs.readFileSync(snap, "utf8"))
      expect(taken.offset).toBeGreaterThan(3 * 64 * 1024)
      yield* storeAt(dir).append("counter/a", snapshotted, 3, [inc(4, "d")], at)
      // a marked state under the same binding: a reader that used the snapshot shows the mark
      fs.writeFileSync(snap, JSON.stringify({ ...taken, state: { total: 1000, notes: [] } }))
      const loaded = yield* storeAt(dir, 1000).load("counter/a", snapshotted)
      expect([loaded.state.total, loaded.version]).toEqual([1004, 4])
      // the window's bytes changed under it (the same length): the journal decides
      const journalFile = path.join(dir, "journal/counter/a.jsonl")
      const bytes = fs.readFileSync(journalFile)
      const dot = bytes.lastIndexOf(Buffer.from("·"), taken.offset - 10)
      bytes.set(Buffer.from("•"), dot)
      fs.writeFileSync(journalFile, bytes)
      const again = yield* Effect.either(storeAt(dir, 1000).load("counter/a", snapshotted))
      // the line no longer matches its checksum: the full read reports it rather than trusting the snapshot
      expect(again._tag).toBe("Left")
    })
  )

  it.scopedLive("the episode store's state survives its snapshot unchanged, trust and pending work included", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const episode = (i: number): Episode => ({
        sessionId: `20260101-${i.toString(16).padStart(8, "0")}`,
        turns: 3 + (i % 4),
        createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
        summary: `Session ${i}: the agent fixed the parser.`,
        provenance: i % 3 === 0 ? { untrusted: true, sources: ["browser"] } : {},
        source: i % 2 === 0 ? "llm" : "extractive"
      })
      const events: Array<EpisodeEvent> = []
      for (let i = 0; i < 40; i++) {
        events.push({ _tag: "ExtractionPending", sessionId: episode(i).sessionId, at })
        if (i % 5 !== 4) events.push({ _tag: "EpisodeStored", episode: episode(i), at })
      }
      events.push({ _tag: "EpisodePromoted", sessionId: episode(3).sessionId, at })
      const store = storeAt(dir, 10)
      yield* store.append(EPISODES_STREAM, episodeCodec, 0, events.slice(0, 50), at)
      yield* store.append(EPISODES_STREAM, episodeCodec, 50, events.slice(50), at)
      const expected = foldStream(episodeCodec, episodeCodec.initialState, events)
      expect((yield* storeAt(dir, 10).load(EPISODES_STREAM, episodeCodec)).state).toStrictEqual(expected)
      expect(fs.existsSync(snapshotFile(dir, EPISODES_STREAM))).toBe(true)
      // read back from the snapshot by a new reader
      expect((yield* storeAt(dir, 10).load(EPISODES_STREAM, episodeCodec)).state).toStrictEqual(expected)
    })
  )
})
