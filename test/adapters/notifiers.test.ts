import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as NoneLlm from "../../src/adapters/llm/NoneLlm.js"
import { CapConsolidation } from "../../src/app/CapConsolidation.js"
import * as MemoryEventStore from "../../src/adapters/memory/MemoryEventStore.js"
import * as Notifiers from "../../src/adapters/notify/Notifiers.js"
import * as RpEmbedder from "../../src/adapters/rp/RpEmbedder.js"
import { addFact, loadFacts, removeFact } from "../../src/app/facts.js"
import { Settings } from "../../src/app/Settings.js"
import { DEFAULT_CONFIG } from "../../src/domain/config/MemoryConfig.js"
import { formatLifecycle, type LifecycleEvent } from "../../src/domain/events/lifecycle.js"
import { Notifier } from "../../src/ports/Notifier.js"
import { diskLayer, tempDir } from "../support/stores.js"
import * as NoGuard from "../../src/adapters/guard/NoGuard.js"

const base = (store: Layer.Layer<import("../../src/ports/EventStore.js").EventStore>) =>
  Layer.mergeAll(
    NoGuard.layer,
    store,
    RpEmbedder.layer(256),
    NoneLlm.layer,
    CapConsolidation.disabled,
    Settings.layer({ ...DEFAULT_CONFIG, mergeOnWrite: false })
  )

describe("notifiers", () => {
  it.scopedLive(
    "a notifier that writes to memory itself does not deadlock: events arrive after the lock is released",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const seen: Array<string> = []
        const services = base(diskLayer(dir))
        let reentered = false
        // On the first fact_added, the sink adds another fact through the same directory (same lock).
        const reentrant = Layer.succeed(
          Notifier,
          Notifier.of({
            notify: (events) =>
              Effect.gen(function* () {
                for (const e of events) seen.push(`${e.type}:${e.content}`)
                if (!reentered && events.some((e) => e.type === "fact_added")) {
                  reentered = true
                  yield* addFact("env", "added from inside a notifier").pipe(
                    Effect.provide(Layer.merge(services, Notifiers.silent)),
                    Effect.orDie
                  )
                }
              })
          })
        )
        yield* addFact("env", "first fact").pipe(
          Effect.provide(Layer.merge(services, reentrant)),
          Effect.timeout("10 seconds")
        )
        const loaded = yield* loadFacts("env").pipe(Effect.provide(Layer.merge(services, Notifiers.silent)))
        expect(loaded.state.entries).toEqual(["first fact", "added from inside a notifier"])
        expect(seen).toEqual(["fact_added:first fact"])
      })
  )

  it.effect("fan-out delivers to every sink in registration order; a throwing callback does not fail the write", () =>
    Effect.gen(function* () {
      const order: Array<string> = []
      const sink = (name: string) =>
        Notifier.of({ notify: (es) => Effect.sync(() => es.forEach((e) => order.push(`${name}:${e.type}`))) })
      const throwing = Notifiers.makeCallback(() => {
        throw new Error("boom")
      })
      const fan = Notifiers.fanOut(sink("a"), throwing, sink("b"))
      yield* addFact("user", "Prefers tabs").pipe(Effect.provide(Layer.merge(base(MemoryEventStore.layer), fan)))
      yield* removeFact("user", "tabs").pipe(
        Effect.provide(Layer.merge(base(MemoryEventStore.layer), fan)),
        Effect.either
      )
      expect(order.slice(0, 2)).toEqual(["a:fact_added", "b:fact_added"])
    })
  )

  it("terminal lines match odek's formats, content cut at 70 runes", () => {
    const e = (type: LifecycleEvent["type"], extra: Partial<LifecycleEvent> = {}): LifecycleEvent => ({
      type,
      stream: "facts/user",
      version: 1,
      timestamp: "t",
      target: "user",
      ...extra
    })
    expect(formatLifecycle(e("fact_added", { content: "x" }))).toBe("🧠 + memory[user] added: x")
    expect(formatLifecycle(e("fact_merged", { content: "x" }))).toBe("🧠 ⇄ memory[user] merged: x")
    expect(formatLifecycle(e("fact_replaced", { content: "x" }))).toBe("🧠 ✎ memory[user] replaced: x")
    expect(formatLifecycle(e("fact_removed", { content: "x" }))).toBe("🧠 − memory[user] removed: x")
    expect(formatLifecycle(e("fact_consolidated", { count: 5, newCount: 3 }))).toBe(
      "🧠 consolidated memory[user] (5 → 3 entries)"
    )
    expect(formatLifecycle(e("fact_added", { content: "é".repeat(80) }))).toBe(
      `🧠 + memory[user] added: ${"é".repeat(70)}…`
    )
  })

  it.effect("the terminal notifier writes one line per event", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      yield* addFact("user", "Uses zsh").pipe(
        Effect.provide(
          Layer.merge(
            base(MemoryEventStore.layer),
            Notifiers.terminal((l) => lines.push(l))
          )
        )
      )
      expect(lines).toEqual(["🧠 + memory[user] added: Uses zsh"])
    })
  )
})
