import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Exit, Layer, Schedule } from "effect"
import { handleCommand } from "../../src/app/commandHandler.js"
import type { Batch } from "../../src/domain/kernel/Stream.js"
import { EventStore, type RetryPolicy, StoreError } from "../../src/ports/EventStore.js"
import { type CounterEvent, counterCodec, inc, memoryFixture } from "../support/stores.js"

type Counter = typeof counterCodec.initialState

/** Another writer's append, made from inside a decision: the first `n` decisions each meet one. */
const interfering = (n: number) => {
  let left = n
  return (state: Counter, at: string) =>
    Effect.gen(function* () {
      const decided = state.total
      if (left > 0) {
        left--
        const store = yield* EventStore
        const now = yield* store.load("counter", counterCodec)
        yield* store.append("counter", counterCodec, now.version, [inc(100, "other writer")], at)
      }
      return [inc(1, `decided on ${decided}`)] as ReadonlyArray<CounterEvent>
    })
}

describe("the one command handler (load → decide → append → publish, retried on conflict)", () => {
  it.scopedLive(
    "re-decides on the new state when another writer appended in between, and publishes only what was appended",
    () =>
      Effect.gen(function* () {
        const { layer } = yield* memoryFixture.make
        const published: Array<Batch<CounterEvent>> = []
        const decisions: Array<number> = []
        const decide = interfering(3)
        const r = yield* handleCommand({
          stream: "counter",
          codec: counterCodec,
          decide: (state: Counter, at: string) =>
            Effect.tap(decide(state, at), () => Effect.sync(() => decisions.push(state.total))),
          publish: (batches: ReadonlyArray<Batch<CounterEvent>>) => Effect.sync(() => void published.push(...batches))
        }).pipe(Effect.provide(layer))
        // three decisions were overtaken by the other writer; the fourth, on its third append, went through
        expect(decisions).toEqual([0, 100, 200, 300])
        expect(r.state.total).toBe(301)
        expect(r.state.notes.at(-1)).toBe("decided on 300")
        expect(published.map((b) => b.version)).toEqual([4])
      })
  )

  it.scoped(
    "with an expected version, a stream that moved on is the caller's conflict: nothing is decided or appended",
    () =>
      Effect.gen(function* () {
        const { layer } = yield* memoryFixture.make
        let decided = 0
        const run = (expectedVersion: number) =>
          handleCommand({
            stream: "counter",
            codec: counterCodec,
            decide: () => Effect.sync(() => (decided++, [inc(1)])),
            expectedVersion
          }).pipe(Effect.provide(layer))
        yield* run(0)
        const stale = yield* Effect.either(run(0))
        expect(
          Either.isLeft(stale) && stale.left._tag === "VersionConflict"
            ? [stale.left.expected, stale.left.actual]
            : stale
        ).toEqual([0, 1])
        expect(decided).toBe(1)
        const loaded = yield* Effect.flatMap(EventStore, (s) => s.load("counter", counterCodec)).pipe(
          Effect.provide(layer)
        )
        expect([loaded.version, loaded.state.total]).toEqual([1, 1])
      })
  )

  it.scoped(
    "a decision that makes no events appends nothing and publishes no batch (a wake-up only); a refusal is the " +
      "caller's error",
    () =>
      Effect.gen(function* () {
        const { layer } = yield* memoryFixture.make
        const published: Array<unknown> = []
        let wakeUps = 0
        const publish = (batches: ReadonlyArray<unknown>) =>
          Effect.sync(() => {
            published.push(...batches)
            wakeUps++
          })
        const base = { stream: "counter", codec: counterCodec, publish }
        const none = yield* handleCommand({
          ...base,
          decide: () => Effect.succeed([] as ReadonlyArray<CounterEvent>)
        }).pipe(Effect.provide(layer))
        expect([none.events, none.state.total, published, wakeUps]).toEqual([[], 0, [], 1])
        const refused = yield* Effect.exit(
          handleCommand({ ...base, decide: () => Effect.fail("refused" as const) }).pipe(Effect.provide(layer))
        )
        expect(Exit.isFailure(refused) && refused.cause._tag === "Fail" ? refused.cause.error : undefined).toBe(
          "refused"
        )
        const loaded = yield* Effect.flatMap(EventStore, (s) => s.load("counter", counterCodec)).pipe(
          Effect.provide(layer)
        )
        // the refusal woke the notifier too: a load may have appended what a feed reader must still deliver
        expect([loaded.version, published, wakeUps]).toEqual([0, [], 2])
      })
  )

  it.scopedLive("gives up after its retry schedule when every attempt is overtaken, with the conflict", () =>
    Effect.gen(function* () {
      const { layer } = yield* memoryFixture.make
      const r = yield* Effect.either(
        handleCommand({ stream: "counter", codec: counterCodec, decide: interfering(1_000) }).pipe(
          Effect.provide(layer)
        )
      )
      expect(Either.isLeft(r) && r.left._tag).toBe("VersionConflict")
    })
  )

  // A networked store sets its own policy: its appends take longer than a local file's, and it has transient failures.
  const withPolicy = (layer: Layer.Layer<EventStore>, retry: RetryPolicy, failAppends: number) =>
    Layer.effect(
      EventStore,
      Effect.map(EventStore, (inner) => {
        let left = failAppends
        return EventStore.of({
          ...inner,
          retry,
          append: (stream, codec, expected, events, at) =>
            left-- > 0
              ? Effect.fail(
                  new StoreError({ stream, text: "memory: the database is restarting; retry", reason: "unavailable" })
                )
              : inner.append(stream, codec, expected, events, at)
        })
      })
    ).pipe(Layer.provide(layer))

  it.scopedLive(
    "retries a store's transient failures on the store's own schedule, and only when the store has one",
    () =>
      Effect.gen(function* () {
        const add = (layer: Layer.Layer<EventStore>) =>
          Effect.either(
            handleCommand({ stream: "counter", codec: counterCodec, decide: () => Effect.succeed([inc(1)]) }).pipe(
              Effect.provide(layer)
            )
          )
        const { layer } = yield* memoryFixture.make
        const patient = yield* add(
          withPolicy(layer, { conflict: Schedule.recurs(3), unavailable: Schedule.recurs(2) }, 2)
        )
        expect(Either.isRight(patient) && patient.right.state.total).toBe(1)
        const impatient = yield* add(withPolicy(layer, { conflict: Schedule.recurs(3) }, 1))
        expect(
          Either.isLeft(impatient) && impatient.left._tag === "StoreError" ? impatient.left.reason : impatient
        ).toBe("unavailable")
        const spent = yield* add(
          withPolicy(layer, { conflict: Schedule.recurs(3), unavailable: Schedule.recurs(2) }, 3)
        )
        expect(Either.isLeft(spent)).toBe(true)
      })
  )

  it.scopedLive("a store's conflict schedule bounds the re-runs after the immediate one", () =>
    Effect.gen(function* () {
      const { layer } = yield* memoryFixture.make
      let decisions = 0
      const decide = interfering(1_000)
      const r = yield* Effect.either(
        handleCommand({
          stream: "counter",
          codec: counterCodec,
          decide: (s: Counter, at: string) => Effect.tap(decide(s, at), () => Effect.sync(() => void decisions++))
        }).pipe(Effect.provide(withPolicy(layer, { conflict: Schedule.recurs(2) }, 0)))
      )
      expect(Either.isLeft(r) && r.left._tag).toBe("VersionConflict")
      // the first attempt, the immediate re-run, then two more
      expect(decisions).toBe(4)
    })
  )
})
