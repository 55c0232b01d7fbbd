import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schedule } from "effect"
import { FactAdded, FactRemoved } from "../../src/domain/facts/schema.js"
import { factCodec } from "../../src/domain/facts/stream.js"
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
          expect(loaded).toStrictEqual({ state: { entries: [] }, version: 0, recorded: [] })
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
  })
