import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, type Layer, Schema } from "effect"
import * as fc from "fast-check"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Feed from "../../src/adapters/disk/feed.js"
import * as Lock from "../../src/adapters/disk/lock.js"
import type { CodecOf, FeedEntry } from "../../src/domain/kernel/Stream.js"
import { EventStore } from "../../src/ports/EventStore.js"
import { counterCodec, diskLayer, inc, tempDir } from "../support/stores.js"

const codecOf: CodecOf = (stream) => (stream.startsWith("counter/") ? (counterCodec as never) : undefined)
const feedFile = (dir: string) => path.join(dir, "journal/feed.log")
const feedLines = (dir: string) =>
  fs
    .readFileSync(feedFile(dir), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { position: number; stream: string; version: number; checksum: string })
const shape = (entries: ReadonlyArray<FeedEntry>) => entries.map((e) => `${e.position}:${e.stream}@${e.batch.version}`)

const withStore = <A, E>(
  dir: string,
  f: (store: EventStore["Type"]) => Effect.Effect<A, E>,
  layer: Layer.Layer<EventStore> = diskLayer(dir)
) => Effect.flatMap(EventStore, f).pipe(Effect.provide(layer))

/** A line a crashed writer could leave in the feed: a position for a batch that never reached its journal. */
const danglingLine = (position: number, stream: string, version: number) =>
  `${JSON.stringify({ position, stream, version, checksum: "0".repeat(64) })}\n`

describe("the disk store's feed (journal/feed.log)", () => {
  it.scopedLive("one line per batch, positions 1, 2, 3…, naming the stream, version and journal checksum", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      yield* withStore(dir, (s) =>
        Effect.gen(function* () {
          yield* s.append("counter/a", counterCodec, 0, [inc(1), inc(2)], "2026-01-01T00:00:00.000Z")
          yield* s.append("counter/b", counterCodec, 0, [inc(3)], "2026-01-01T00:00:01.000Z")
        })
      )
      const lines = feedLines(dir)
      expect(lines.map((l) => `${l.position}:${l.stream}@${l.version}`)).toEqual(["1:counter/a@2", "2:counter/b@1"])
      const journal = JSON.parse(fs.readFileSync(path.join(dir, "journal/counter/a.jsonl"), "utf8").split("\n")[0]!)
      expect(lines[0]!.checksum).toBe(journal.checksum)
      expect(fs.statSync(feedFile(dir)).mode & 0o777).toBe(0o600)
    })
  )

  it.scopedLive(
    "a directory written before the feed existed: readers see its batches in time order, the first writer keeps it",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        yield* withStore(dir, (s) =>
          Effect.gen(function* () {
            yield* s.append("counter/b", counterCodec, 0, [inc(1)], "2026-01-01T00:00:02.000Z")
            yield* s.append("counter/a", counterCodec, 0, [inc(1)], "2026-01-01T00:00:01.000Z")
            yield* s.append("counter/a", counterCodec, 1, [inc(1)], "2026-01-01T00:00:03.000Z")
          })
        )
        fs.rmSync(feedFile(dir))
        const before = yield* withStore(dir, (s) => s.readAll(0, codecOf))
        expect(shape(before)).toEqual(["1:counter/a@1", "2:counter/b@1", "3:counter/a@2"])
        expect(fs.existsSync(feedFile(dir))).toBe(false)
        const appended = yield* withStore(dir, (s) =>
          s.append("counter/b", counterCodec, 1, [inc(1)], "2026-01-01T00:00:04.000Z")
        )
        expect(appended.position).toBe(4)
        const after = yield* withStore(dir, (s) => s.readAll(0, codecOf))
        expect(shape(after)).toEqual([...shape(before), "4:counter/b@2"])
        expect(feedLines(dir)).toHaveLength(4)
      })
  )

  it.scopedLive(
    "a feed built again from compacted journals passes over their base lines, as the feed it replaces",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const snapshots = {
          ...counterCodec,
          snapshot: Schema.Struct({ total: Schema.Number, notes: Schema.Array(Schema.String) })
        }
        const at = (s: number) => `2026-01-01T00:00:0${s}.000Z`
        yield* withStore(dir, (s) =>
          Effect.gen(function* () {
            yield* s.append("counter/a", snapshots, 0, [inc(1)], at(1))
            yield* s.append("counter/a", snapshots, 1, [inc(1)], at(2))
            yield* s.append("counter/a", snapshots, 2, [inc(1)], at(3))
            expect(yield* s.compact("counter/a", snapshots, 2)).toBe(2)
          })
        )
        fs.rmSync(feedFile(dir))
        const snapshotsOf: CodecOf = (stream) => (stream === "counter/a" ? (snapshots as never) : undefined)
        expect(shape(yield* withStore(dir, (s) => s.readAll(0, snapshotsOf)))).toEqual(["1:counter/a@3"])
        const appended = yield* withStore(dir, (s) => s.append("counter/a", snapshots, 3, [inc(1)], at(4)))
        expect(appended.position).toBe(2)
        expect(feedLines(dir).map((l) => l.version)).toEqual([3, 4])
      })
  )

  it.scopedLive("a line whose batch never reached its journal (a crash between the two) is passed over", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const at = "2026-01-01T00:00:00.000Z"
      yield* withStore(dir, (s) => s.append("counter/a", counterCodec, 0, [inc(1)], at))
      fs.appendFileSync(feedFile(dir), danglingLine(2, "counter/a", 2))
      const entries = yield* withStore(dir, (s) =>
        Effect.gen(function* () {
          const next = yield* s.append("counter/a", counterCodec, 1, [inc(5)], at)
          expect(next.position).toBe(3)
          return yield* s.readAll(0, codecOf)
        })
      )
      expect(shape(entries)).toEqual(["1:counter/a@1", "3:counter/a@2"])
      expect(entries[1]!.batch.events).toStrictEqual([inc(5)])
    })
  )

  it.scopedLive("a line whose batch is still being written (the feed lock is held) ends the read there", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const at = "2026-01-01T00:00:00.000Z"
      yield* withStore(dir, (s) => s.append("counter/a", counterCodec, 0, [inc(1)], at))
      fs.appendFileSync(feedFile(dir), danglingLine(2, "counter/a", 2))
      yield* Lock.ready
      const held = Lock.tryTake(`${feedFile(dir)}.lock`)!
      try {
        expect(shape(yield* withStore(dir, (s) => s.readAll(0, codecOf)))).toEqual(["1:counter/a@1"])
      } finally {
        Lock.release(held)
      }
      // the writer is gone and its batch never came: the line is a leftover
      expect(shape(yield* withStore(dir, (s) => s.readAll(0, codecOf)))).toEqual(["1:counter/a@1"])
      expect(yield* withStore(dir, (s) => s.head)).toBe(2)
    })
  )

  it.scopedLive("an append whose journal write fails takes its feed line back", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const at = "2026-01-01T00:00:00.000Z"
      yield* withStore(dir, (s) => s.append("counter/a", counterCodec, 0, [inc(1)], at))
      const journal = path.join(dir, "journal/counter/a.jsonl")
      let once = true
      const failing = diskLayer(dir, {
        // another writer got past the lock and left half a line: the append refuses to write after it
        beforeJournalAppend: () => {
          if (once) fs.appendFileSync(journal, '{"version":')
          once = false
        }
      })
      const r = yield* Effect.either(
        withStore(dir, (s) => s.append("counter/a", counterCodec, 1, [inc(2)], at), failing)
      )
      expect(Either.isLeft(r)).toBe(true)
      expect(feedLines(dir)).toHaveLength(1)
      fs.truncateSync(journal, fs.statSync(journal).size - '{"version":'.length)
      const next = yield* withStore(dir, (s) => s.append("counter/a", counterCodec, 1, [inc(2)], at))
      expect(next.position).toBe(2)
      expect(feedLines(dir).map((l) => l.position)).toEqual([1, 2])
    })
  )

  it.scopedLive("a torn last feed line (a crash mid-write) is cut off by the next writer; readers never see it", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const at = "2026-01-01T00:00:00.000Z"
      yield* withStore(dir, (s) => s.append("counter/a", counterCodec, 0, [inc(1)], at))
      fs.appendFileSync(feedFile(dir), '{"position":2,"str')
      expect(shape(yield* withStore(dir, (s) => s.readAll(0, codecOf)))).toEqual(["1:counter/a@1"])
      const next = yield* withStore(dir, (s) => s.append("counter/b", counterCodec, 0, [inc(1)], at))
      expect(next.position).toBe(2)
      expect(shape(yield* withStore(dir, (s) => s.readAll(0, codecOf)))).toEqual(["1:counter/a@1", "2:counter/b@1"])
    })
  )

  it.scopedLive("a damaged feed is a corrupt StoreError saying which line and what to do; nothing is appended", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const at = "2026-01-01T00:00:00.000Z"
      yield* withStore(dir, (s) => s.append("counter/a", counterCodec, 0, [inc(1)], at))
      fs.appendFileSync(feedFile(dir), "not a feed line\n")
      const read = yield* Effect.either(withStore(dir, (s) => s.readAll(0, codecOf)))
      expect(
        Either.isLeft(read) && read.left._tag === "StoreError" ? [read.left.reason, read.left.text] : read
      ).toEqual([
        "corrupt",
        `memory: ${feedFile(dir)} line 2 is not a feed entry; move it aside and tmem builds it again from the journals`
      ])
      const write = yield* Effect.either(withStore(dir, (s) => s.append("counter/a", counterCodec, 1, [inc(1)], at)))
      expect(Either.isLeft(write) && write.left._tag === "StoreError" ? write.left.reason : write).toBe("corrupt")
      expect(fs.readFileSync(path.join(dir, "journal/counter/a.jsonl"), "utf8").split("\n")).toHaveLength(2)
      // moved aside, it is built again from the journals
      fs.renameSync(feedFile(dir), `${feedFile(dir)}.damaged`)
      const again = yield* withStore(dir, (s) => s.append("counter/a", counterCodec, 1, [inc(1)], at))
      expect(again.position).toBe(2)
    })
  )
})

describe("reading the feed from a position (feed.ts)", () => {
  const line = (position: number) =>
    `${JSON.stringify({ position, stream: `counter/s${position % 7}`, version: position, checksum: "" })}\n`
  const feedOf = (n: number) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-feed-"))
    fs.writeFileSync(path.join(root, "feed.log"), Array.from({ length: n }, (_, i) => line(i + 1)).join(""))
    return root
  }

  it("finds the lines after any position by bisecting, and reads on as the feed grows", () => {
    const root = feedOf(20_000)
    try {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 20_050 }), fc.boolean(), (after, fresh) => {
          const feed = Feed.make(root, 1_000)
          const got = feed.linesAfter(after, fresh)
          const first = Math.min(after, 20_000) + 1
          expect(got.length).toBe(20_000 - first + 1)
          if (got.length > 0) expect([got[0]!.position, got[got.length - 1]!.position]).toEqual([first, 20_000])
          // a second read from the same reader, further on, continues from what it has
          expect(feed.linesAfter(after + 3).map((l) => l.position)).toEqual(got.slice(3).map((l) => l.position))
        }),
        { numRuns: 200 }
      )
      const feed = Feed.make(root, 1_000)
      expect(feed.linesAfter(19_990)).toHaveLength(10)
      fs.appendFileSync(path.join(root, "feed.log"), line(20_001) + line(20_002))
      expect(feed.linesAfter(19_999).map((l) => l.position)).toEqual([20_000, 20_001, 20_002])
      // going back before what it read: it seeks again
      expect(feed.linesAfter(5).map((l) => l.position)).toEqual(Array.from({ length: 19_997 }, (_, i) => i + 6))
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })

  it("a line out of place is reported with its line number, from wherever the read starts", () => {
    const root = feedOf(30_000)
    try {
      const file = path.join(root, "feed.log")
      const text = fs.readFileSync(file, "utf8").replace(line(25_000), line(25_007))
      fs.writeFileSync(file, text)
      expect(() => Feed.make(root, 1_000).linesAfter(24_000)).toThrow(
        "line 25000 has position 25007 where 25000 belongs"
      )
      expect(Feed.make(root, 1_000).linesAfter(26_000)).toHaveLength(4_000)
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })
})
