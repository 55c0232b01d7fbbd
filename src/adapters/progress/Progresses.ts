import { type Duration, Effect, Fiber, Layer, Schedule } from "effect"
import { printable } from "../../domain/text/printable.js"
import { Progress } from "../../ports/Progress.js"

/** Nothing is shown: the library default, and any stream that is not a terminal. */
export const silent = Layer.succeed(Progress, Progress.of({ during: (_label, effect) => effect }))

/** Where a spinner is drawn: stderr, or a fake terminal in tests. */
export interface ProgressStream {
  readonly isTTY?: boolean
  readonly columns?: number
  readonly write: (text: string) => unknown
}

export interface SpinnerTiming {
  /** Work shorter than this shows nothing, so quick calls do not flicker. */
  readonly delay: Duration.DurationInput
  readonly interval: Duration.DurationInput
}

const FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
const DEFAULT_TIMING: SpinnerTiming = { delay: "150 millis", interval: "80 millis" }

/**
 * A spinner on one line of a terminal naming what is being waited on (`⠙ consolidating env: waiting for the model`),
 * erased when the work ends. Nested or concurrent work shares the line: every active label, outermost first.
 * On a stream that is not a terminal it is the silent service, so piped output never carries spinner frames.
 */
export const makeTerminal = (stream: ProgressStream, timing: SpinnerTiming = DEFAULT_TIMING): Progress["Type"] => {
  if (stream.isTTY !== true) return Progress.of({ during: (_label, effect) => effect })
  const labels: Array<string> = []
  let spinner: Fiber.RuntimeFiber<unknown> | undefined
  let drawn = false
  let frame = 0
  const draw = Effect.sync(() => {
    const text = printable(labels.join(" · "))
    const room = Math.max(10, (stream.columns || 80) - 3)
    stream.write(
      `\r${FRAMES[frame++ % FRAMES.length]} ${text.length > room ? `${text.slice(0, room - 1)}…` : text}\u001b[K`
    )
    drawn = true
  })
  const erase = Effect.sync(() => {
    if (drawn) stream.write("\r\u001b[K")
    drawn = false
  })
  const spin = Effect.zipRight(Effect.sleep(timing.delay), Effect.repeat(draw, Schedule.spaced(timing.interval)))
  const begin = (label: string) =>
    Effect.suspend(() => {
      labels.push(label)
      if (spinner !== undefined) return Effect.void
      // forked from acquire, which is uninterruptible: the spinner itself must stay interruptible to be stopped
      return Effect.map(Effect.forkDaemon(Effect.interruptible(spin)), (f) => void (spinner = f))
    })
  const end = (label: string) =>
    Effect.suspend(() => {
      labels.splice(labels.lastIndexOf(label), 1)
      const running = spinner
      if (labels.length > 0 || running === undefined) return Effect.void
      spinner = undefined
      return Effect.zipRight(Fiber.interrupt(running), erase)
    })
  return Progress.of({
    during: (label, effect) =>
      Effect.acquireUseRelease(
        begin(label),
        () => effect,
        () => end(label)
      )
  })
}

/** The spinner on `stream` when it is a terminal, else silent. */
export const terminal = (stream: ProgressStream, timing?: SpinnerTiming) =>
  Layer.sync(Progress, () => makeTerminal(stream, timing))
