import { describe, expect, it } from "@effect/vitest"
import { Chunk, Context, Effect, Either, Fiber, Layer, Schedule, Schema, Stream } from "effect"
import * as fc from "fast-check"
import { FactAdded, FactRemoved } from "../../src/domain/facts/schema.js"
import { factCodec } from "../../src/domain/facts/stream.js"
import type { CodecOf, FeedEntry } from "../../src/domain/kernel/Stream.js"
import { EventStore } from "../../src/ports/EventStore.js"
import { counterCodec, inc, type StoreFixture } from "../support/stores.js"

const at = "2026-01-01T00:00:00.000Z"
const added = (content: string) => FactAdded.make({ target: "user", content, at })

/**
 * What every EventStore adapter must do (memory, disk; PostgreSQL next): the same suite, run on a fixture that gives
 * a layer over fresh storage.
 */
export const eventStoreContract = (fixture: StoreFixture) =>
  describe(`EventStore contract: ${fixture.name}`, () => {
    const run = <A, E>(f: (store: EventStore["Type"]) => Effect.Effect<A, E>) =>
      Effect.gen(function* () {
        const { layer } = yield* fixture.make
        return yield* Effect.flatMap(EventStore, f).pipe(Effect.provide(layer))
      })

    it.scopedLive("an unknown stream is empty at version 0", () =>
      run((store) =>
        Effect.gen(function* () {
          const loaded = yield* store.load("facts/user", factCodec("user"))
          expect(loaded).toStrictEqual({ state: { entries: [] }, version: 0 })
          expect(yield* store.read("counter/a", counterCodec)).toStrictEqual([])
          expect((yield* store.load("counter/a", counterCodec)).version).toBe(0)
        })
      )
    )

    it.scopedLive("append then load and read give back the state, versions and events", () =>
      run((store) =>
        Effect.gen(function* () {
          const a = yield* store.append("facts/user", factCodec("user"), 0, [added("one"), added("two")], at)
          expect(a.batch.version).toBe(2)
          expect(a.state.entries).toEqual(["one", "two"])
          const b = yield* store.append(
            "facts/user",
            factCodec("user"),
            2,
            [FactRemoved.make({ target: "user", index: 0, previous: "one", selector: "one", at })],
            at
          )
          expect(b.batch.version).toBe(3)
          const loaded = yield* store.load("facts/user", factCodec("user"))
          expect(loaded.state.entries).toEqual(["two"])
          expect(loaded.version).toBe(3)
          const batches = yield* store.read("facts/user", factCodec("user"))
          expect(batches.map((x) => x.version)).toEqual([2, 3])
          expect(batches[0]!.events).toStrictEqual([added("one"), added("two")])
          expect((yield* store.read("facts/user", factCodec("user"), 2)).map((x) => x.version)).toEqual([3])
          yield* store.append("counter/a", counterCodec, 0, [inc(2, "x"), inc(3, "y")], at)
          expect((yield* store.load("counter/a", counterCodec)).state).toStrictEqual({ total: 5, notes: ["x", "y"] })
        })
      )
    )

    it.scopedLive("a stale expected version is a VersionConflict and appends nothing", () =>
      run((store) =>
        Effect.gen(function* () {
          yield* store.append("counter/a", counterCodec, 0, [inc(1)], at)
          const r = yield* Effect.either(store.append("counter/a", counterCodec, 0, [inc(5)], at))
          expect(
            Either.isLeft(r) && r.left._tag === "VersionConflict" && r.left.actual === 1 && r.left.expected === 0
          ).toBe(true)
          expect((yield* store.load("counter/a", counterCodec)).state.total).toBe(1)
        })
      )
    )

    it.scopedLive("an empty batch changes nothing", () =>
      run((store) =>
        Effect.gen(function* () {
          const r = yield* store.append("counter/a", counterCodec, 0, [], at)
          expect(r.batch.version).toBe(0)
          expect(yield* store.read("counter/a", counterCodec)).toStrictEqual([])
        })
      )
    )

    it.scopedLive("concurrent writers that retry on conflict lose no update", () =>
      run((store) =>
        Effect.gen(function* () {
          const bump = (n: number) =>
            Effect.gen(function* () {
              const loaded = yield* store.load("counter/a", counterCodec)
              yield* store.append("counter/a", counterCodec, loaded.version, [inc(1, `w${n}`)], at)
            }).pipe(Effect.retry({ while: (e) => e._tag === "VersionConflict", schedule: Schedule.recurs(500) }))
          yield* Effect.forEach(
            Array.from({ length: 40 }, (_, i) => i),
            bump,
            { concurrency: 8, discard: true }
          )
          const loaded = yield* store.load("counter/a", counterCodec)
          expect(loaded.state.total).toBe(40)
          expect(loaded.version).toBe(40)
          expect(new Set(loaded.state.notes).size).toBe(40)
        })
      )
    )

    it.scopedLive("streams are independent", () =>
      run((store) =>
        Effect.gen(function* () {
          yield* store.append("facts/user", factCodec("user"), 0, [added("u")], at)
          yield* store.append(
            "facts/env",
            factCodec("env"),
            0,
            [FactAdded.make({ target: "env", content: "e", at })],
            at
          )
          expect((yield* store.load("facts/user", factCodec("user"))).state.entries).toEqual(["u"])
          expect((yield* store.load("facts/env", factCodec("env"))).state.entries).toEqual(["e"])
        })
      )
    )

    it.scopedLive("while a stream is unchanged, load hands back the very state object; a change gives a new one", () =>
      run((store) =>
        Effect.gen(function* () {
          for (const [stream, codec, event] of [
            ["facts/user", factCodec("user"), added("one")],
            ["counter/a", counterCodec, inc(1)]
          ] as const) {
            const c = codec as typeof counterCodec
            const appended = yield* store.append(stream, c, 0, [event as never], at)
            const first = yield* store.load(stream, c)
            expect(first.state).toBe(appended.state)
            expect((yield* store.load(stream, c)).state).toBe(first.state)
            yield* store.append(stream, c, 1, [event as never], at)
            const changed = yield* store.load(stream, c)
            expect(changed.state).not.toBe(first.state)
            expect((yield* store.load(stream, c)).state).toBe(changed.state)
          }
        })
      )
    )

    it.scopedLive("invalid stream names are refused", () =>
      run((store) =>
        Effect.gen(function* () {
          const r = yield* Effect.either(store.append("../escape", counterCodec, 0, [inc(1)], at))
          expect(Either.isLeft(r) && r.left._tag === "StoreError" ? r.left.reason : r).toBe("invalid")
        })
      )
    )
    // --- the feed: one store-wide order of batches ---

    /** Counters and fact files decode; anything else is passed over. */
    const codecOf: CodecOf = (stream) =>
      stream.startsWith("counter/")
        ? (counterCodec as never)
        : stream === "facts/user"
          ? (factCodec("user") as never)
          : undefined
    const snapshotCounter = {
      ...counterCodec,
      snapshot: Schema.Struct({ total: Schema.Number, notes: Schema.Array(Schema.String) })
    }
    const codecOfSnapshots: CodecOf = (stream) =>
      stream === "counter/s" ? (snapshotCounter as never) : stream === "counter/t" ? (counterCodec as never) : undefined
    const shape = (entries: ReadonlyArray<FeedEntry>) =>
      entries.map((e) => `${e.position}:${e.stream}@${e.batch.version}:${e.batch.events.length}`)

    it.scopedLive("every append gets the next store-wide position; readAll gives the batches in that order", () =>
      run((store) =>
        Effect.gen(function* () {
          expect(yield* store.head).toBe(0)
          expect(yield* store.readAll(0, codecOf)).toStrictEqual([])
          const a = yield* store.append("counter/a", counterCodec, 0, [inc(1, "a1"), inc(1, "a2")], at)
          const b = yield* store.append("facts/user", factCodec("user"), 0, [added("u")], at)
          const c = yield* store.append("counter/b", counterCodec, 0, [inc(5, "b1")], at)
          const d = yield* store.append("counter/a", counterCodec, 2, [inc(1, "a3")], at)
          expect([a.position, b.position, c.position, d.position]).toEqual([1, 2, 3, 4])
          // an empty batch and a refused one take no position
          expect((yield* store.append("counter/a", counterCodec, 3, [], at)).position).toBe(0)
          expect(Either.isLeft(yield* Effect.either(store.append("counter/a", counterCodec, 0, [inc(9)], at)))).toBe(
            true
          )
          expect(yield* store.head).toBe(4)
          const all = yield* store.readAll(0, codecOf)
          expect(shape(all)).toEqual(["1:counter/a@2:2", "2:facts/user@1:1", "3:counter/b@1:1", "4:counter/a@3:1"])
          expect(all[0]!.batch.events).toStrictEqual([inc(1, "a1"), inc(1, "a2")])
          expect(all[1]!.batch.events).toStrictEqual([added("u")])
          expect(shape(yield* store.readAll(2, codecOf))).toEqual(["3:counter/b@1:1", "4:counter/a@3:1"])
          expect(shape(yield* store.readAll(0, codecOf, 2))).toEqual(["1:counter/a@2:2", "2:facts/user@1:1"])
          expect(yield* store.readAll(4, codecOf)).toStrictEqual([])
          // streams the reader has no codec for are passed over; positions stay those of the store
          const countersOnly: CodecOf = (s) => (s.startsWith("counter/") ? (counterCodec as never) : undefined)
          expect(shape(yield* store.readAll(0, countersOnly)).map((s) => s.split(":")[0])).toEqual(["1", "3", "4"])
        })
      )
    )

    it.scopedLive("a subscriber gets what is there, then each new batch, and resumes from its checkpoint", () =>
      run((store) =>
        Effect.gen(function* () {
          yield* store.append("counter/a", counterCodec, 0, [inc(1, "1")], at)
          yield* store.append("counter/b", counterCodec, 0, [inc(1, "2")], at)
          const fiber = yield* Effect.fork(Stream.runCollect(Stream.take(store.subscribe(0, codecOf), 4)))
          yield* Effect.sleep("20 millis")
          yield* store.append("counter/a", counterCodec, 1, [inc(1, "3")], at)
          yield* store.append("facts/user", factCodec("user"), 0, [added("4")], at)
          const got = Chunk.toReadonlyArray(yield* Fiber.join(fiber))
          expect(got.map((e) => e.position)).toEqual([1, 2, 3, 4])
          // a consumer that handled up to 2 resumes there
          const resumed = yield* Stream.runCollect(Stream.take(store.subscribe(2, codecOf), 2))
          expect(shape(Chunk.toReadonlyArray(resumed))).toEqual(["3:counter/a@2:1", "4:facts/user@1:1"])
        })
      )
    )

    it.scopedLive("writers on two store instances over the same storage share one gapless feed", () =>
      Effect.gen(function* () {
        const { layer, another } = yield* fixture.make
        const one = Context.get(yield* Layer.build(layer), EventStore)
        const two = Context.get(yield* Layer.build(another), EventStore)
        const watching = yield* Effect.fork(Stream.runCollect(Stream.take(two.subscribe(0, codecOf), 60)))
        const bump = (store: EventStore["Type"], stream: string, n: number) =>
          Effect.gen(function* () {
            const loaded = yield* store.load(stream, counterCodec)
            return yield* store.append(stream, counterCodec, loaded.version, [inc(1, `${stream}#${n}`)], at)
          }).pipe(Effect.retry({ while: (e) => e._tag === "VersionConflict", schedule: Schedule.recurs(500) }))
        const appended = yield* Effect.forEach(
          Array.from({ length: 60 }, (_, i) => i),
          (i) => bump(i % 2 === 0 ? one : two, `counter/${"abc"[i % 3]}`, i),
          { concurrency: 6 }
        )
        expect(appended.map((a) => a.position).sort((x, y) => x - y)).toEqual(
          Array.from({ length: 60 }, (_, i) => i + 1)
        )
        const seen = Chunk.toReadonlyArray(yield* Fiber.join(watching))
        expect(seen.map((e) => e.position)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1))
        // each stream's batches come in version order, and the feed holds each append once, as it was appended
        for (const s of ["counter/a", "counter/b", "counter/c"]) {
          const versions = seen.filter((e) => e.stream === s).map((e) => e.batch.version)
          expect(versions).toEqual(versions.map((_, i) => i + 1))
        }
        const byPosition = new Map(appended.map((a) => [a.position, a.batch]))
        for (const e of seen) expect(e.batch).toStrictEqual(byPosition.get(e.position))
        expect(yield* one.head).toBe(60)
      })
    )

    it.scopedLive("property: the feed is exactly the successful appends, in order, from any checkpoint", () =>
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.array(
              fc.record({
                stream: fc.constantFrom("counter/a", "counter/b", "facts/user"),
                stale: fc.boolean(),
                n: fc.integer({ min: 0, max: 3 })
              }),
              {
                minLength: 1,
                maxLength: 25
              }
            ),
            fc.nat(30),
            (ops, checkpoint) =>
              Effect.runPromise(
                Effect.scoped(
                  Effect.gen(function* () {
                    const { layer } = yield* fixture.make
                    const store = Context.get(yield* Layer.build(layer), EventStore)
                    const expected: Array<string> = []
                    for (const op of ops) {
                      const codec = op.stream === "facts/user" ? (factCodec("user") as never) : counterCodec
                      const events = Array.from({ length: op.n }, (_, i) =>
                        op.stream === "facts/user" ? added(`f${expected.length}-${i}`) : inc(1, `${i}`)
                      )
                      const loaded = yield* store.load(op.stream, codec)
                      const version = op.stale && loaded.version > 0 ? loaded.version - 1 : loaded.version
                      const r = yield* Effect.either(store.append(op.stream, codec, version, events as never, at))
                      if (Either.isRight(r) && op.n > 0) {
                        expect(r.right.position).toBe(expected.length + 1)
                        expected.push(`${expected.length + 1}:${op.stream}@${r.right.batch.version}:${op.n}`)
                      }
                    }
                    expect(yield* store.head).toBe(expected.length)
                    expect(shape(yield* store.readAll(0, codecOf))).toEqual(expected)
                    expect(shape(yield* store.readAll(checkpoint, codecOf))).toEqual(expected.slice(checkpoint))
                    const tail = expected.slice(checkpoint)
                    const streamed = yield* Stream.runCollect(
                      Stream.take(store.subscribe(checkpoint, codecOf), tail.length)
                    )
                    expect(shape(Chunk.toReadonlyArray(streamed))).toEqual(tail)
                  })
                )
              )
          ),
          { numRuns: 40 }
        )
      )
    )
    it.scopedLive(
      "property: compaction forgets history up to a version (never the last batch) and changes nothing else",
      () =>
        Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(
              fc.array(
                fc.oneof(
                  fc.record({
                    kind: fc.constant("append" as const),
                    other: fc.boolean(),
                    n: fc.integer({ min: 1, max: 3 })
                  }),
                  fc.record({ kind: fc.constant("compact" as const), through: fc.integer({ min: 0, max: 40 }) })
                ),
                { minLength: 1, maxLength: 30 }
              ),
              (ops) =>
                Effect.runPromise(
                  Effect.scoped(
                    Effect.gen(function* () {
                      const { layer, another } = yield* fixture.make
                      const store = Context.get(yield* Layer.build(layer), EventStore)
                      // the model: every batch appended, in feed order, and which of them compaction took out
                      const feed: Array<{ stream: string; version: number; notes: ReadonlyArray<string> }> = []
                      const forgotten = new Set<number>()
                      let note = 0
                      for (const op of ops) {
                        if (op.kind === "append") {
                          const stream = op.other ? "counter/t" : "counter/s"
                          const codec = op.other ? counterCodec : snapshotCounter
                          const loaded = yield* store.load(stream, codec)
                          const events = Array.from({ length: op.n }, () => inc(1, `n${note++}`))
                          const r = yield* store.append(stream, codec, loaded.version, events, at)
                          feed.push({ stream, version: r.batch.version, notes: events.map((e) => e.note) })
                        } else {
                          const mine = feed.flatMap((b, i) =>
                            b.stream === "counter/s" && !forgotten.has(i) ? [i] : []
                          )
                          // everything up to the last batch not after `through`, the last batch excepted
                          const gone = mine.slice(0, -1).filter((i) => feed[i]!.version <= op.through)
                          expect(yield* store.compact("counter/s", snapshotCounter, op.through)).toBe(gone.length)
                          for (const i of gone) forgotten.add(i)
                        }
                      }
                      const expectS = feed.filter((b) => b.stream === "counter/s")
                      const check = (s: EventStore["Type"]) =>
                        Effect.gen(function* () {
                          const loaded = yield* s.load("counter/s", snapshotCounter)
                          expect(loaded.state.notes).toEqual(expectS.flatMap((b) => b.notes))
                          expect(loaded.version).toBe(expectS[expectS.length - 1]?.version ?? 0)
                          const kept = feed.flatMap((b, i) =>
                            b.stream === "counter/s" && !forgotten.has(i) ? [b] : []
                          )
                          expect((yield* s.read("counter/s", snapshotCounter)).map((b) => b.version)).toEqual(
                            kept.map((b) => b.version)
                          )
                          expect(shape(yield* s.readAll(0, codecOfSnapshots)).map((x) => x.split(":")[0])).toEqual(
                            feed.flatMap((_, i) => (forgotten.has(i) ? [] : [`${i + 1}`]))
                          )
                        })
                      yield* check(store)
                      // another instance over the same storage (another process, on disk) sees the same
                      yield* check(Context.get(yield* Layer.build(another), EventStore))
                      // the base is where the kept batches begin: both together give the state
                      const base = yield* store.base("counter/s", snapshotCounter)
                      const forgottenS = feed.filter((b, i) => b.stream === "counter/s" && forgotten.has(i))
                      expect(base?.version).toBe(forgottenS[forgottenS.length - 1]?.version)
                      expect(base?.state.notes).toEqual(
                        forgottenS.length === 0 ? undefined : forgottenS.flatMap((b) => b.notes)
                      )
                      const keptS = yield* store.read("counter/s", snapshotCounter, base?.version ?? 0)
                      expect([
                        ...(base?.state.notes ?? []),
                        ...keptS.flatMap((b) => b.events.map((e) => e.note))
                      ]).toEqual(expectS.flatMap((b) => b.notes))
                      // a copy into fresh storage, seeded at the base, is the same stream: state, versions, batches
                      if (expectS.length > 0) {
                        const copy = Context.get(yield* Layer.build((yield* fixture.make).layer), EventStore)
                        if (base !== undefined) yield* copy.seed("counter/s", snapshotCounter, base)
                        for (const b of keptS)
                          yield* copy.append("counter/s", snapshotCounter, b.version - b.events.length, b.events, b.at)
                        const original = yield* store.load("counter/s", snapshotCounter)
                        expect(yield* copy.load("counter/s", snapshotCounter)).toStrictEqual(original)
                        expect(yield* copy.read("counter/s", snapshotCounter)).toStrictEqual(
                          yield* store.read("counter/s", snapshotCounter)
                        )
                        expect(yield* copy.base("counter/s", snapshotCounter)).toStrictEqual(base)
                      }
                      // and writing goes on from the same version
                      const last = yield* store.load("counter/s", snapshotCounter)
                      const next = yield* store.append(
                        "counter/s",
                        snapshotCounter,
                        last.version,
                        [inc(1, "after")],
                        at
                      )
                      expect(next.batch.version).toBe(last.version + 1)
                      expect(next.state.notes).toEqual([...expectS.flatMap((b) => b.notes), "after"])
                    })
                  )
                )
            ),
            { numRuns: 40 }
          )
        )
    )

    it.scopedLive("a seeded stream starts at its base: loads it, reads nothing, appends on, in every instance", () =>
      Effect.gen(function* () {
        const { layer, another } = yield* fixture.make
        const store = Context.get(yield* Layer.build(layer), EventStore)
        const base = { state: { total: 7, notes: ["a", "b"] }, version: 5, at }
        expect(yield* store.base("counter/s", snapshotCounter)).toBeUndefined()
        yield* store.seed("counter/s", snapshotCounter, base)
        expect(yield* store.load("counter/s", snapshotCounter)).toStrictEqual({ state: base.state, version: 5 })
        expect(yield* store.read("counter/s", snapshotCounter)).toStrictEqual([])
        expect(yield* store.readAll(0, codecOfSnapshots)).toStrictEqual([])
        expect(yield* store.base("counter/s", snapshotCounter)).toStrictEqual(base)
        const other = Context.get(yield* Layer.build(another), EventStore)
        expect((yield* other.load("counter/s", snapshotCounter)).version).toBe(5)
        const stale = yield* Effect.either(other.append("counter/s", snapshotCounter, 0, [inc(1, "c")], at))
        expect(Either.isLeft(stale) && stale.left._tag).toBe("VersionConflict")
        const next = yield* other.append("counter/s", snapshotCounter, 5, [inc(1, "c")], at)
        expect(next.batch.version).toBe(6)
        expect(next.position).toBe(1)
        expect((yield* store.load("counter/s", snapshotCounter)).state).toStrictEqual({
          total: 8,
          notes: ["a", "b", "c"]
        })
        // a stream that holds anything is not seeded again
        const again = yield* Effect.either(store.seed("counter/s", snapshotCounter, base))
        expect(Either.isLeft(again) && again.left._tag).toBe("VersionConflict")
        yield* store.append("counter/t", counterCodec, 0, [inc(1)], at)
        const held = yield* Effect.either(store.seed("counter/u", snapshotCounter, { ...base, version: 0 }))
        expect(Either.isLeft(held) && held.left._tag === "StoreError" && held.left.reason).toBe("invalid")
        const plain = yield* Effect.either(store.seed("counter/v", counterCodec, base))
        expect(Either.isLeft(plain) && plain.left._tag === "StoreError" && plain.left.reason).toBe("invalid")
        expect((yield* store.load("counter/v", counterCodec)).version).toBe(0)
      })
    )

    it.scopedLive("a stream whose codec keeps no snapshots cannot be compacted", () =>
      run((store) =>
        Effect.gen(function* () {
          yield* store.append("counter/a", counterCodec, 0, [inc(1)], at)
          yield* store.append("counter/a", counterCodec, 1, [inc(1)], at)
          const r = yield* Effect.either(store.compact("counter/a", counterCodec, 2))
          expect(Either.isLeft(r) && r.left.reason).toBe("invalid")
          expect((yield* store.read("counter/a", counterCodec)).length).toBe(2)
        })
      )
    )
  })
