import { beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either, Exit, FastCheck as fc, Fiber, Layer, Logger } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Lock from "../../src/adapters/disk/lock.js"
import { FactAdded } from "../../src/domain/facts/schema.js"
import { factCodec } from "../../src/domain/facts/stream.js"
import { EventStore } from "../../src/ports/EventStore.js"
import { counterCodec, diskLayer, inc, tempDir } from "../support/stores.js"

const at = "2026-01-01T00:00:00.000Z"
const added = (content: string) => FactAdded.make({ target: "user", content, at })
const codec = factCodec("user")

const withStore = <A, E>(layer: Layer.Layer<EventStore>, f: (store: EventStore["Type"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(EventStore, f).pipe(Effect.provide(layer))

/** Runs with the store's warnings collected instead of printed (the repairs these tests provoke are expected). */
const quietly = <A, E, R>(effect: Effect.Effect<A, E, R>, warnings: Array<string> = []) =>
  Effect.provide(
    effect,
    Logger.replace(
      Logger.defaultLogger,
      Logger.make(({ message }) => void warnings.push(String(message)))
    )
  )

// the addon loads on the first lock; these tests also take the lock directly
beforeAll(() => Effect.runPromise(Lock.ready))

const lines = (file: string) =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l !== "")
    : []
const journalOf = (dir: string, stream: string) => path.join(dir, "journal", `${stream}.jsonl`)

describe("the kernel lock (lock.ts)", () => {
  it.scopedLive(
    "is exclusive per open file, survives closing another descriptor of the file, and goes with its descriptor",
    () =>
      Effect.gen(function* () {
        const file = path.join(yield* tempDir, "x.lock")
        const held = Lock.tryTake(file)
        expect(held).toBeDefined()
        expect(fs.statSync(file).mode & 0o777).toBe(0o600)
        // a second open in the same process is another holder (classic POSIX record locks would say yes here)
        expect(Lock.tryTake(file)).toBeUndefined()
        // and closing some other descriptor of the file does not drop the lock (it would for POSIX record locks)
        fs.closeSync(fs.openSync(file, "r"))
        expect(Lock.tryTake(file)).toBeUndefined()
        Lock.release(held!)
        const next = Lock.tryTake(file)
        expect(next).toBeDefined()
        Lock.release(next!)
        expect(fs.existsSync(file)).toBe(true)
      })
  )

  it.scopedLive(
    "takeNow (a write's first try) takes a free lock at once and gives up at once on a held or unusable one",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const file = path.join(dir, "x.lock")
        const held = Lock.takeNow(file)
        expect(held).toBeDefined()
        expect(Lock.takeNow(file)).toBeUndefined()
        Lock.release(held!)
        const again = Lock.takeNow(file)
        expect(again).toBeDefined()
        Lock.release(again!)
        // no directory to create the lock file in: not an error here, the waiting path says what is wrong
        expect(Lock.takeNow(path.join(dir, "missing", "x.lock"))).toBeUndefined()
      })
  )

  it("behaves like one lock under any sequence of takes, releases and unrelated opens (model-based)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-lockmodel-"))
    const file = path.join(dir, "x.lock")
    let contended = 0
    fs.closeSync(fs.openSync(file, "w", 0o600))
    try {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.constantFrom("take", "release", "peek"), fc.nat(2)), { minLength: 1, maxLength: 40 }),
          (ops) => {
            const fds: Array<number | undefined> = [undefined, undefined, undefined]
            try {
              for (const [op, who] of ops) {
                const holder = fds.findIndex((fd) => fd !== undefined)
                if (op === "take" && fds[who] === undefined) {
                  if (holder >= 0) contended++
                  const fd = Lock.tryTake(file)
                  expect(fd !== undefined).toBe(holder < 0)
                  fds[who] = fd
                } else if (op === "release" && fds[who] !== undefined) {
                  Lock.release(fds[who]!)
                  fds[who] = undefined
                } else if (op === "peek") {
                  // another descriptor of the same file, opened and closed: the holder keeps the lock
                  fs.closeSync(fs.openSync(file, "r"))
                }
              }
            } finally {
              for (const fd of fds) if (fd !== undefined) Lock.release(fd)
            }
          }
        ),
        { numRuns: 300 }
      )
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
    // the runs must reach the interesting case: a take while another holds the lock
    expect(contended).toBeGreaterThan(100)
  })
})

describe("the disk store's lock", () => {
  it.scopedLive(
    "a stream lock that cannot be had in time is a one-line error naming the lock file and what to do; " +
      "nothing is written",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        yield* withStore(diskLayer(dir), (s) => s.append("facts/user", codec, 0, [added("one")], at))
        const lockFile = `${journalOf(dir, "facts/user")}.lock`
        const held = Lock.tryTake(lockFile)!
        const r = yield* Effect.either(
          withStore(diskLayer(dir, { lockWaitMs: 50 }), (s) => s.append("facts/user", codec, 1, [added("two")], at))
        )
        Lock.release(held)
        expect(Either.isLeft(r)).toBe(true)
        if (Either.isLeft(r)) {
          expect(r.left.message).toMatch(
            new RegExp(
              [
                String.raw`^memory: cannot lock .*\/journal\/facts\/user\.jsonl\.lock: another tmem process has held `,
                String.raw`it for over [\d.]+ s .*end that process .*retry$`
              ].join("")
            )
          )
          expect(r.left.message).not.toContain("\n")
          // a lock held too long may pass by itself: a caller that retries transient failures may try again
          expect(r.left._tag === "StoreError" ? r.left.reason : undefined).toBe("unavailable")
        }
        expect(lines(journalOf(dir, "facts/user"))).toHaveLength(1)
        expect(fs.readFileSync(path.join(dir, "user.md"), "utf8")).toBe("one")
      })
  )

  it.scopedLive("a writer waiting for the lock can be interrupted, and leaves no lock behind", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      yield* withStore(diskLayer(dir), (s) => s.append("facts/user", codec, 0, [added("one")], at))
      const held = Lock.tryTake(`${journalOf(dir, "facts/user")}.lock`)!
      const waiting = yield* Effect.fork(
        withStore(diskLayer(dir, { lockWaitMs: 600_000 }), (s) => s.append("facts/user", codec, 1, [added("two")], at))
      )
      yield* Effect.sleep("50 millis")
      const exit = yield* Fiber.interrupt(waiting)
      Lock.release(held)
      expect(Exit.isInterrupted(exit)).toBe(true)
      const next = yield* withStore(diskLayer(dir, { lockWaitMs: 1_000 }), (s) =>
        s.append("facts/user", codec, 1, [added("three")], at)
      )
      expect(next.batch.version).toBe(2)
    })
  )

  it.scopedLive(
    "an empty lock directory an older tmem left behind is cleared once stale by that version's own rule",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const lockFile = `${journalOf(dir, "facts/user")}.lock`
        fs.mkdirSync(lockFile, { recursive: true })
        // refreshed just now: an older tmem may still be writing, so the lock is busy
        const busy = yield* Effect.either(
          withStore(diskLayer(dir, { lockWaitMs: 50 }), (s) => s.append("facts/user", codec, 0, [added("one")], at))
        )
        expect(Either.isLeft(busy) && busy.left.message).toMatch(
          /cannot lock .*user\.jsonl\.lock: another tmem process/
        )
        const old = new Date(Date.now() - 10_000)
        fs.utimesSync(lockFile, old, old)
        const r = yield* withStore(diskLayer(dir, { lockWaitMs: 1_000 }), (s) =>
          s.append("facts/user", codec, 0, [added("one")], at)
        )
        expect(r.batch.version).toBe(1)
        expect(fs.statSync(lockFile).isFile()).toBe(true)
        // a directory with something in it is no lock of ours: a one-line error, and it stays
        const other = `${journalOf(dir, "facts/env")}.lock`
        fs.mkdirSync(other, { recursive: true })
        fs.writeFileSync(path.join(other, "keep"), "")
        fs.utimesSync(other, old, old)
        const inTheWay = yield* Effect.either(
          withStore(diskLayer(dir), (s) =>
            s.append("facts/env", factCodec("env"), 0, [FactAdded.make({ target: "env", content: "x", at })], at)
          )
        )
        expect(Either.isLeft(inTheWay) && inTheWay.left.message).toMatch(
          new RegExp(
            [
              String.raw`^memory: cannot lock .*env\.jsonl\.lock: it is a directory where a file belongs; move it `,
              String.raw`aside and retry \(EISDIR\)$`
            ].join("")
          )
        )
        expect(fs.existsSync(path.join(other, "keep"))).toBe(true)
      })
  )
})

describe("the journal's own version check (defence in depth)", () => {
  it.scopedLive(
    "a batch whose version does not follow the journal's last line is refused as a conflict, and nothing is appended",
    () =>
      Effect.gen(function* () {
        const base = yield* tempDir
        const [dir, twin] = [path.join(base, "a"), path.join(base, "b")]
        // the line another writer would have appended had it got past the lock: the same batch, made in a twin
        // directory
        yield* withStore(diskLayer(twin), (s) =>
          Effect.zipRight(
            s.append("facts/user", codec, 0, [added("one")], at),
            s.append("facts/user", codec, 1, [added("two")], at)
          )
        )
        const foreign = lines(journalOf(twin, "facts/user"))[1]!
        yield* withStore(diskLayer(dir), (s) => s.append("facts/user", codec, 0, [added("one")], at))
        const sneaking = diskLayer(dir, {
          beforeJournalAppend: () => fs.appendFileSync(journalOf(dir, "facts/user"), `${foreign}\n`)
        })
        const r = yield* Effect.either(
          withStore(sneaking, (s) => s.append("facts/user", codec, 1, [added("three")], at))
        )
        expect(Either.isLeft(r) && r.left).toMatchObject({ _tag: "VersionConflict", expected: 1, actual: 2 })
        expect(lines(journalOf(dir, "facts/user"))).toEqual([lines(journalOf(twin, "facts/user"))[0], foreign])
        expect(fs.readFileSync(path.join(dir, "user.md"), "utf8")).toBe("one")
        expect(fs.readdirSync(dir).filter((n) => n.includes(".tmp-"))).toEqual([])
        // the refused writer's retry builds on the other batch
        const warnings: Array<string> = []
        const loaded = yield* quietly(
          withStore(diskLayer(dir), (s) => s.load("facts/user", codec)),
          warnings
        )
        expect(loaded.version).toBe(2)
        expect(warnings.join("\n")).toContain("one write behind its journal")
        const retried = yield* withStore(diskLayer(dir), (s) => s.append("facts/user", codec, 2, [added("three")], at))
        expect(retried.state.entries).toEqual(["one", "two", "three"])
        const versions = yield* withStore(diskLayer(dir), (s) => s.read("facts/user", codec))
        expect(versions.map((b) => b.version)).toEqual([1, 2, 3])
      })
  )

  it(
    "never lets the journal hold two batches with one version, " + "however many batches slip in before an append",
    async () => {
      let slipped = 0
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }), async (before, sneaked) => {
          const program = Effect.gen(function* () {
            const dir = yield* tempDir
            const jp = journalOf(dir, "counter")
            const store = diskLayer(dir)
            // n + k real batches; the last k are cut off and slipped back in under the next writer's lock
            for (let v = 0; v < before + sneaked; v++)
              yield* withStore(store, (s) => s.append("counter", counterCodec, v, [inc(1, `b${v + 1}`)], at))
            const all = lines(jp)
            if (all.length > 0)
              fs.writeFileSync(
                jp,
                all
                  .slice(0, before)
                  .map((l) => `${l}\n`)
                  .join("")
              )
            const sneaking = diskLayer(dir, {
              beforeJournalAppend: () =>
                fs.appendFileSync(
                  jp,
                  all
                    .slice(before)
                    .map((l) => `${l}\n`)
                    .join("")
                )
            })
            const r = yield* Effect.either(
              withStore(sneaking, (s) => s.append("counter", counterCodec, before, [inc(100, "mine")], at))
            )
            const batches = yield* withStore(store, (s) => s.read("counter", counterCodec))
            if (sneaked > 0) {
              slipped++
              expect(Either.isLeft(r) && r.left).toMatchObject({
                _tag: "VersionConflict",
                expected: before,
                actual: before + sneaked
              })
              expect(lines(jp)).toEqual(all)
            } else expect(Either.isRight(r)).toBe(true)
            expect(batches.map((b) => b.version)).toEqual(Array.from({ length: batches.length }, (_, i) => i + 1))
          })
          await Effect.runPromise(Effect.scoped(program))
        }),
        { numRuns: 30 }
      )
      // most runs must slip batches in (the region the check exists for); the rest check it lets honest appends through
      expect(slipped).toBeGreaterThan(12)
    }
  )
})
