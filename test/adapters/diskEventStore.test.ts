import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Logger, LogLevel } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { FactAdded, type FactEvent } from "../../src/domain/facts/schema.js"
import { factCodec } from "../../src/domain/facts/stream.js"
import { EventStore } from "../../src/ports/EventStore.js"
import { counterCodec, diskLayer, inc, tempDir } from "../support/stores.js"

const at = "2026-01-01T00:00:00.000Z"
const added = (content: string) => FactAdded.make({ target: "user", content, at })
const codec = factCodec("user")

const withStore = <A, E>(
  dir: string,
  f: (store: EventStore["Type"]) => Effect.Effect<A, E>,
  layer: Layer.Layer<EventStore> = diskLayer(dir)
) => Effect.flatMap(EventStore, f).pipe(Effect.provide(layer))

/** The batches of `facts/user` after `version`: what a load appended (a load hands back state and version only). */
const appendedAfter = (dir: string, version: number) => withStore(dir, (s) => s.read("facts/user", codec, version))

const journalLines = (dir: string) =>
  fs
    .readFileSync(path.join(dir, "journal/facts/user.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
const bumpMtime = (file: string) => {
  const later = new Date(Date.now() + 5_000)
  fs.utimesSync(file, later, later)
}

describe("DiskEventStore", () => {
  it.scopedLive(
    "writes odek-compatible files: entries joined by \\n§\\n, 0600 files, 0700 directories, no temp files",
    () =>
      Effect.gen(function* () {
        const dir = path.join(yield* tempDir, "mem")
        yield* withStore(dir, (s) =>
          s.append("facts/user", codec, 0, [added("Prefers dark mode"), added("Uses vim")], at)
        )
        expect(fs.readFileSync(path.join(dir, "user.md"), "utf8")).toBe("Prefers dark mode\n§\nUses vim")
        expect(fs.statSync(path.join(dir, "user.md")).mode & 0o777).toBe(0o600)
        expect(fs.statSync(path.join(dir, "journal/facts/user.jsonl")).mode & 0o777).toBe(0o600)
        expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
        expect(fs.statSync(path.join(dir, "journal")).mode & 0o777).toBe(0o700)
        expect(fs.readdirSync(dir).filter((n) => n.includes(".tmp-"))).toEqual([])
        const line = JSON.parse(journalLines(dir)[0]!)
        expect(Object.keys(line)).toEqual(["version", "at", "events", "projectionHash", "checksum"])
        expect(line.version).toBe(2)
      })
  )

  it.scopedLive("imports an existing odek directory as one snapshot batch and keeps its content", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      fs.writeFileSync(path.join(dir, "user.md"), "Prefers tabs\n§\n  Uses § as delimiter\n")
      const loaded = yield* withStore(dir, (s) => s.load("facts/user", codec))
      expect(loaded.state.entries).toEqual(["Prefers tabs", "  Uses § as delimiter"])
      expect(loaded.version).toBe(1)
      expect((yield* appendedAfter(dir, 0))[0]!.events[0]!._tag).toBe("FactsImported")
      expect(fs.readFileSync(path.join(dir, "user.md"), "utf8")).toBe("Prefers tabs\n§\n  Uses § as delimiter")
      const again = yield* withStore(dir, (s) => s.load("facts/user", codec))
      expect(again.version).toBe(1)
      expect(yield* appendedAfter(dir, 1)).toEqual([])
    })
  )

  it.scopedLive("(g) a crash between journal append and projection rename is repaired on the next load", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      yield* withStore(dir, (s) => s.append("facts/user", codec, 0, [added("one")], at))
      const crashing = diskLayer(dir, {
        beforeProjectionRename: () => {
          throw new Error("simulated crash")
        }
      })
      const crashed = yield* Effect.exit(
        withStore(dir, (s) => s.append("facts/user", codec, 1, [added("two")], at), crashing)
      )
      expect(crashed._tag).toBe("Failure")
      expect(fs.readFileSync(path.join(dir, "user.md"), "utf8")).toBe("one")
      const loaded = yield* withStore(dir, (s) => s.load("facts/user", codec))
      expect(loaded.state.entries).toEqual(["one", "two"])
      expect(loaded.version).toBe(2)
      expect(yield* appendedAfter(dir, 2)).toEqual([])
      expect(fs.readFileSync(path.join(dir, "user.md"), "utf8")).toBe("one\n§\ntwo")
      expect(fs.readdirSync(dir).filter((n) => n.includes(".tmp-"))).toEqual([])
    })
  )

  it.scopedLive("(g) a hand edit is recorded as an event, not overwritten, and later writes build on it", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      yield* withStore(dir, (s) => s.append("facts/user", codec, 0, [added("one"), added("two")], at))
      fs.writeFileSync(path.join(dir, "user.md"), "one\n§\ntwo, edited by hand\n§\nthree")
      const loaded = yield* withStore(dir, (s) => s.load("facts/user", codec))
      expect(loaded.state.entries).toEqual(["one", "two, edited by hand", "three"])
      expect(loaded.version).toBe(3)
      const event = (yield* appendedAfter(dir, 2))[0]!.events[0] as Extract<
        FactEvent,
        { _tag: "FactsEditedExternally" }
      >
      expect(event._tag).toBe("FactsEditedExternally")
      expect(event.previous).toEqual(["one", "two"])
      yield* withStore(dir, (s) => s.append("facts/user", codec, 3, [added("four")], at))
      expect(fs.readFileSync(path.join(dir, "user.md"), "utf8")).toBe("one\n§\ntwo, edited by hand\n§\nthree\n§\nfour")
    })
  )

  it.scopedLive(
    "a hand edit made while a writer waited turns its append into a conflict instead of overwriting it",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        yield* withStore(dir, (s) => s.append("facts/user", codec, 0, [added("one")], at))
        fs.writeFileSync(path.join(dir, "user.md"), "one, edited")
        const r = yield* Effect.either(withStore(dir, (s) => s.append("facts/user", codec, 1, [added("two")], at)))
        expect(Either.isLeft(r) && r.left._tag === "VersionConflict").toBe(true)
        expect(fs.readFileSync(path.join(dir, "user.md"), "utf8")).toBe("one, edited")
      })
  )

  it.scopedLive("a person reverting the file to its previous content is recorded, not mistaken for a crash", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      yield* withStore(dir, (s) => s.append("facts/user", codec, 0, [added("one")], at))
      yield* withStore(dir, (s) => s.append("facts/user", codec, 1, [added("two")], at))
      const file = path.join(dir, "user.md")
      fs.writeFileSync(file, "one")
      bumpMtime(file)
      const loaded = yield* withStore(dir, (s) => s.load("facts/user", codec))
      expect(loaded.state.entries).toEqual(["one"])
      expect((yield* appendedAfter(dir, 2))[0]!.events[0]!._tag).toBe("FactsEditedExternally")
    })
  )

  it.scopedLive("a torn last journal line (crash during append) is moved aside and the journal cut back", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      yield* withStore(dir, (s) => s.append("facts/user", codec, 0, [added("one")], at))
      const jp = path.join(dir, "journal/facts/user.jsonl")
      fs.appendFileSync(jp, '{"version":2,"at":"2026-01-01T00:00:00.000Z","events":[{"_tag":"FactAdd')
      const loaded = yield* withStore(dir, (s) => s.load("facts/user", codec))
      expect(loaded.state.entries).toEqual(["one"])
      expect(loaded.version).toBe(1)
      expect(fs.readFileSync(jp, "utf8").endsWith("\n")).toBe(true)
      expect(fs.readFileSync(`${jp}.torn`, "utf8")).toContain('"FactAdd')
      const next = yield* withStore(dir, (s) => s.append("facts/user", codec, 1, [added("two")], at))
      expect(next.batch.version).toBe(2)
      expect(journalLines(dir).map((l) => JSON.parse(l).version)).toEqual([1, 2])
    })
  )

  it.scopedLive("a damaged line inside the journal is a one-line error, and nothing is written", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      yield* withStore(dir, (s) => s.append("facts/user", codec, 0, [added("one")], at))
      yield* withStore(dir, (s) => s.append("facts/user", codec, 1, [added("two")], at))
      const jp = path.join(dir, "journal/facts/user.jsonl")
      const lines = journalLines(dir)
      fs.writeFileSync(jp, `garbage\n${lines[1]}\n`)
      fs.writeFileSync(path.join(dir, "user.md"), "tampered")
      const before = fs.readFileSync(jp, "utf8")
      const r = yield* Effect.either(withStore(dir, (s) => s.load("facts/user", codec)))
      expect(Either.isLeft(r)).toBe(true)
      if (Either.isLeft(r)) {
        expect(r.left.message).toMatch(
          /^memory: journal\/facts\/user\.jsonl line 1 is damaged .*restore the journal from a backup/
        )
        expect(r.left.message).not.toContain("\n")
      }
      expect(fs.readFileSync(jp, "utf8")).toBe(before)
    })
  )

  it.scopedLive(
    "a hand edit that is not valid UTF-8 is not adopted: kept byte for byte beside the file, with an event",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        yield* withStore(dir, (s) => s.append("facts/user", codec, 0, [added("one")], at))
        const raw = Buffer.from([0x6f, 0x6e, 0x65, 0x0a, 0xc2, 0xa7, 0x0a, 0x62, 0xff, 0x61, 0x64])
        fs.writeFileSync(path.join(dir, "user.md"), raw)
        const loaded = yield* withStore(dir, (s) => s.load("facts/user", codec)).pipe(
          Logger.withMinimumLogLevel(LogLevel.None)
        )
        expect(loaded.state.entries).toEqual(["one"])
        expect(fs.readFileSync(path.join(dir, "user.md.rejected-v2")).equals(raw)).toBe(true)
        expect(fs.readFileSync(path.join(dir, "user.md"), "utf8")).toBe("one")
        const event = (yield* appendedAfter(dir, 1))[0]!.events[0] as Extract<FactEvent, { _tag: "FactsEditRejected" }>
        expect(event).toMatchObject({
          _tag: "FactsEditRejected",
          reason: "it is not valid UTF-8",
          keptAs: "user.md.rejected-v2",
          bytes: raw.length
        })
      })
  )

  it.scopedLive("a deleted projection is restored from the journal", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      yield* withStore(dir, (s) => s.append("facts/user", codec, 0, [added("one")], at))
      fs.unlinkSync(path.join(dir, "user.md"))
      const loaded = yield* withStore(dir, (s) => s.load("facts/user", codec))
      expect(loaded.state.entries).toEqual(["one"])
      expect(fs.readFileSync(path.join(dir, "user.md"), "utf8")).toBe("one")
    })
  )

  it.scopedLive("a directory that cannot be created is a one-line error naming the path", () =>
    Effect.gen(function* () {
      const base = yield* tempDir
      fs.writeFileSync(path.join(base, "plainfile"), "x")
      const dir = path.join(base, "plainfile", "mem")
      const r = yield* Effect.either(withStore(dir, (s) => s.append("facts/user", codec, 0, [added("one")], at)))
      expect(Either.isLeft(r)).toBe(true)
      if (Either.isLeft(r)) {
        expect(r.left.message).toContain("plainfile")
        expect(r.left.message).toContain("not a directory")
        expect(r.left.message).not.toContain("\n")
      }
      // reading such a directory is not an error: it has nothing in it
      const loaded = yield* Effect.either(withStore(dir, (s) => s.load("facts/user", codec)))
      expect(Either.isLeft(loaded) ? loaded.left.message : "").toContain("not a directory")
    })
  )

  // One instance keeps what it verified of the journal's end and of the fact file, keyed on their exact bytes: what
  // another writer or a person changes between two of its writes must be seen as if nothing had been kept.
  describe("one store instance across several writes", () => {
    const sameTimes = (file: string, f: () => void) => {
      const before = fs.statSync(file)
      f()
      fs.utimesSync(file, before.atime, before.mtime)
    }

    it.scopedLive("creates its journal directory again when it was removed between two writes", () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        yield* withStore(dir, (mine) =>
          Effect.gen(function* () {
            yield* mine.append("sessions/s1", codec, 0, [added("one")], at)
            fs.rmSync(path.join(dir, "journal"), { recursive: true })
            const again = yield* mine.append("sessions/s1", codec, 0, [added("two")], at)
            expect(again.batch.version).toBe(1)
          })
        )
        expect(fs.readFileSync(path.join(dir, "journal/sessions/s1.jsonl"), "utf8")).toContain('"content":"two"')
      })
    )

    it.scopedLive("leaves no displaced fact file behind once it is closed, however quickly the writes follow", () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        yield* withStore(dir, (mine) =>
          Effect.forEach(
            Array.from({ length: 40 }, (_, i) => i),
            (i) => mine.append("facts/user", codec, i, [added(`fact ${i}`)], at),
            { discard: true }
          )
        )
        expect(fs.readdirSync(dir).filter((n) => n.includes(".tmp-"))).toEqual([])
        expect(fs.readFileSync(path.join(dir, "user.md"), "utf8").split("\n§\n")).toHaveLength(40)
      })
    )

    it.scopedLive(
      "an instance that only reads hands back one state object per version of the files, for every stream kind",
      () =>
        Effect.gen(function* () {
          const dir = yield* tempDir
          yield* withStore(dir, (writer) =>
            Effect.zipRight(
              writer.append("facts/user", codec, 0, [added("one")], at),
              writer.append("counter/a", counterCodec, 0, [inc(1)], at)
            )
          )
          yield* withStore(
            dir,
            (reader) =>
              Effect.gen(function* () {
                const facts = yield* reader.load("facts/user", codec)
                const counter = yield* reader.load("counter/a", counterCodec)
                expect((yield* reader.load("facts/user", codec)).state).toBe(facts.state)
                expect((yield* reader.load("counter/a", counterCodec)).state).toBe(counter.state)
                // a person's edit is a new state, once
                fs.writeFileSync(path.join(dir, "user.md"), "one\n§\ntwo")
                const edited = yield* reader.load("facts/user", codec)
                expect(edited.state).not.toBe(facts.state)
                expect(edited.state.entries).toEqual(["one", "two"])
                expect((yield* reader.load("facts/user", codec)).state).toBe(edited.state)
              }),
            diskLayer(dir, { settleMs: 0 })
          )
        })
    )

    it.scopedLive("sees another instance's append: its next write follows it and builds on its state", () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        yield* withStore(dir, (mine) =>
          Effect.gen(function* () {
            yield* mine.append("facts/user", codec, 0, [added("one")], at)
            yield* withStore(dir, (other) => other.append("facts/user", codec, 1, [added("two")], at))
            const stale = yield* Effect.either(mine.append("facts/user", codec, 1, [added("three")], at))
            expect(Either.isLeft(stale) && stale.left._tag === "VersionConflict").toBe(true)
            const loaded = yield* mine.load("facts/user", codec)
            expect([loaded.version, loaded.state.entries]).toEqual([2, ["one", "two"]])
            const next = yield* mine.append("facts/user", codec, 2, [added("three")], at)
            expect(next.state.entries).toEqual(["one", "two", "three"])
          })
        )
        expect(journalLines(dir).map((l) => JSON.parse(l).version)).toEqual([1, 2, 3])
      })
    )

    const exactTimes = (file: string, f: () => void) => {
      const ref = `${file}.times`
      execFileSync("touch", ["-r", file, ref])
      const before = fs.lstatSync(file, { bigint: true })
      f()
      execFileSync("touch", ["-r", ref, file])
      fs.rmSync(ref)
      const after = fs.lstatSync(file, { bigint: true })
      expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs])
    }

    // A person's save restores the timestamps at best to the nanosecond (touch -r): size, inode and mtime then match
    // what the store wrote, and only the change time tells the files apart.
    const restores = [
      ["even with the old mtime put back", sameTimes],
      ["even with its timestamps put back to the nanosecond", exactTimes]
    ] as const

    for (const [how, restore] of restores)
      it.scopedLive(`sees a same-size change to a plain journal whose fold it kept, ${how}`, () =>
        Effect.gen(function* () {
          const dir = yield* tempDir
          const jp = path.join(dir, "journal/counter/a.jsonl")
          yield* withStore(dir, (mine) =>
            Effect.gen(function* () {
              for (const [i, note] of ["one", "two", "three", "four"].entries())
                yield* mine.append("counter/a", counterCodec, i, [inc(1, note)], at)
              yield* mine.load("counter/a", counterCodec)
              // the first line: only a fold of the whole journal reads it (a load checks the last two lines itself)
              restore(jp, () =>
                fs.writeFileSync(jp, fs.readFileSync(jp, "utf8").replace('"note":"one"', '"note":"onE"'))
              )
              const loaded = yield* Effect.either(mine.load("counter/a", counterCodec))
              expect(Either.isLeft(loaded) ? loaded.left.message : "").toMatch(/line 1 is damaged/)
            })
          )
        })
      )

    for (const [how, restore] of restores)
      it.scopedLive(`sees a same-size change to the last journal line it wrote, ${how}`, () =>
        Effect.gen(function* () {
          const dir = yield* tempDir
          const jp = path.join(dir, "journal/facts/user.jsonl")
          yield* withStore(dir, (mine) =>
            Effect.gen(function* () {
              yield* mine.append("facts/user", codec, 0, [added("one")], at)
              yield* mine.append("facts/user", codec, 1, [added("two")], at)
              yield* mine.load("facts/user", codec)
              restore(jp, () =>
                fs.writeFileSync(jp, fs.readFileSync(jp, "utf8").replace('"content":"two"', '"content":"twO"'))
              )
              const before = fs.readFileSync(jp)
              const loaded = yield* Effect.either(mine.load("facts/user", codec))
              expect(Either.isLeft(loaded) ? loaded.left.message : "").toMatch(
                /line 2 is damaged \(its checksum does not match its bytes\)/
              )
              expect(Either.isLeft(loaded) && loaded.left._tag === "StoreError" ? loaded.left.reason : undefined).toBe(
                "corrupt"
              )
              const appended = yield* Effect.either(mine.append("facts/user", codec, 2, [added("three")], at))
              expect(Either.isLeft(appended) ? appended.left.message : "").toMatch(/line 2 is damaged/)
              expect(fs.readFileSync(jp).equals(before)).toBe(true)
            })
          )
        })
      )

    for (const [how, restore] of restores)
      it.scopedLive(`sees a same-size hand edit of the file it wrote, ${how}`, () =>
        Effect.gen(function* () {
          const dir = yield* tempDir
          const file = path.join(dir, "user.md")
          yield* withStore(
            dir,
            (mine) =>
              Effect.gen(function* () {
                yield* mine.append("facts/user", codec, 0, [added("one"), added("two")], at)
                yield* mine.load("facts/user", codec)
                restore(file, () => fs.writeFileSync(file, "one\n§\ntwO"))
                const loaded = yield* mine.load("facts/user", codec)
                expect([loaded.version, loaded.state.entries]).toEqual([3, ["one", "twO"]])
                expect((yield* mine.read("facts/user", codec, 2))[0]!.events[0]!._tag).toBe("FactsEditedExternally")
                const next = yield* mine.append("facts/user", codec, 3, [added("three")], at)
                expect(next.state.entries).toEqual(["one", "twO", "three"])
              }),
            diskLayer(dir, { settleMs: 0 })
          )
          expect(fs.readFileSync(file, "utf8")).toBe("one\n§\ntwO\n§\nthree")
        })
      )
  })
})
