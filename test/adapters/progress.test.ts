import { it } from "@effect/vitest"
import { Deferred, Effect, Fiber, TestClock } from "effect"
import { describe, expect } from "vitest"
import * as Progresses from "../../src/adapters/progress/Progresses.js"
import { during, Progress } from "../../src/ports/Progress.js"

const fakeStream = (isTTY: boolean) => {
  const out = { isTTY, columns: 40, text: "", write: (t: string) => void (out.text += t) }
  return out
}
const timing = { delay: "100 millis", interval: "50 millis" } as const

describe("Progress on a terminal (a spinner on stderr)", () => {
  it.effect("names what is waited on while it lasts, then erases its line; the work's result is untouched", () =>
    Effect.gen(function* () {
      const tty = fakeStream(true)
      const gate = yield* Deferred.make<void>()
      const work = yield* Effect.fork(
        during("waiting for the model (m)")(Deferred.await(gate).pipe(Effect.as(42))).pipe(
          Effect.provide(Progresses.terminal(tty, timing))
        )
      )
      yield* TestClock.adjust("99 millis")
      expect(tty.text).toBe("") // quick work shows nothing
      yield* TestClock.adjust("1 millis")
      expect(tty.text).toBe("\r⠋ waiting for the model (m)\u001b[K")
      yield* TestClock.adjust("100 millis")
      expect(tty.text.split("\r").filter((l) => l !== "")).toEqual([
        "⠋ waiting for the model (m)\u001b[K",
        "⠙ waiting for the model (m)\u001b[K",
        "⠹ waiting for the model (m)\u001b[K"
      ])
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(work)).toBe(42)
      expect(tty.text.endsWith("\r\u001b[K")).toBe(true)
      const after = tty.text.length
      yield* TestClock.adjust("1 second")
      expect(tty.text.length).toBe(after) // the spinner stopped with the work
    })
  )

  it.effect(
    "nested work shows both labels on one line, a failure still erases it, and long labels are cut to the width",
    () =>
      Effect.gen(function* () {
        const tty = fakeStream(true)
        const p = Progresses.makeTerminal(tty, timing)
        const gate = yield* Deferred.make<void>()
        const inner = p.during(
          "waiting for the model",
          Effect.zipRight(Deferred.await(gate), Effect.fail("boom" as const))
        )
        const work = yield* Effect.fork(Effect.either(p.during("consolidating env", inner)))
        yield* TestClock.adjust("100 millis")
        expect(tty.text.startsWith("\r⠋ consolidating env · waiting for the")).toBe(true)
        expect(tty.text.replace(/\u001b\[K|\r/g, "").length).toBeLessThanOrEqual(40)
        yield* Deferred.succeed(gate, undefined)
        expect((yield* Fiber.join(work))._tag).toBe("Left")
        expect(tty.text.endsWith("\r\u001b[K")).toBe(true)
      })
  )

  it.effect("a label cannot send control characters to the terminal", () =>
    Effect.gen(function* () {
      const tty = fakeStream(true)
      yield* Progresses.makeTerminal(tty, timing)
        .during("evil\u001b[2J\nlabel", Effect.sleep("200 millis"))
        .pipe(Effect.fork, Effect.zipLeft(TestClock.adjust("200 millis")))
      expect(tty.text).toContain("evil\\u001b[2J\\nlabel")
      expect(tty.text.replace(/\r\u001b\[K|\u001b\[K/g, "")).not.toContain("\u001b")
    })
  )

  it.effect("on a stream that is not a terminal nothing is written, and without the service the work just runs", () =>
    Effect.gen(function* () {
      const pipe = fakeStream(false)
      const work = yield* Effect.fork(
        during("embedding")(Effect.sleep("1 second").pipe(Effect.as("done"))).pipe(
          Effect.provide(Progresses.terminal(pipe, timing))
        )
      )
      yield* TestClock.adjust("2 seconds")
      expect(yield* Fiber.join(work)).toBe("done")
      expect(pipe.text).toBe("")
      expect(yield* during("anything")(Effect.succeed(1))).toBe(1)
      expect(yield* Effect.serviceOption(Progress)).toMatchObject({ _tag: "None" })
    })
  )
})
