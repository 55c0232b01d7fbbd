import { Command, Options } from "@effect/cli"
import { FileSystem } from "@effect/platform"
import { Console, Effect, Either, Option, Schema } from "effect"
import * as os from "node:os"
import * as path from "node:path"
import {
  describeStep,
  runSimulation,
  shrinkSteps,
  type SimReport,
  type SimWorld,
  type Step,
  StepsFile,
  stepsOf
} from "../../app/simulation.js"
import { diskWorld, memoryWorld, pgWorld } from "../dev/simulation.js"
import { Refused, refuse } from "./output.js"
import { tmem } from "./root.js"

const WORLDS = ["memory", "disk", "postgres"] as const
type SimStore = (typeof WORLDS)[number]

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`

const worldOf = (store: SimStore, url: string): SimWorld =>
  store === "disk" ? diskWorld() : store === "postgres" ? pgWorld(url) : memoryWorld()

/** Progress on stderr while it is a terminal: the step and seed, redrawn in place; nothing when it is not. */
const progressLine = (label: string, total: number) => {
  const tty = process.stderr.isTTY === true
  let last = 0
  return {
    step: (done: number) => {
      if (!tty || (done !== total && done - last < 25)) return
      last = done
      process.stderr.write(`\r${label}: step ${done}/${total}`)
    },
    end: () => void (tty && process.stderr.write("\r\u001b[K"))
  }
}

const once = (world: SimWorld, steps: ReadonlyArray<Step>, seed: number, label: string) =>
  Effect.acquireUseRelease(
    Effect.sync(() => progressLine(label, steps.length)),
    (progress) => runSimulation(world, steps, seed, progress.step),
    (progress) => Effect.sync(progress.end)
  ).pipe(Effect.ensuring(world.dispose ?? Effect.void))

export const simulateCommand = Command.make(
  "simulate",
  {
    seed: Options.integer("seed").pipe(Options.withDefault(1), Options.withDescription("the first seed to run")),
    seeds: Options.integer("seeds").pipe(
      Options.withDefault(1),
      Options.withDescription("how many seeds, from --seed")
    ),
    steps: Options.integer("steps").pipe(Options.withDefault(250), Options.withDescription("steps per seed")),
    // not --store: that global option names where a real memory's events live
    world: Options.choice("world", WORLDS).pipe(
      Options.withDefault("memory" as const),
      Options.withDescription(
        "the in-memory store, the disk store in a temporary directory, or PostgreSQL at --store (a schema of its own)"
      )
    ),
    replay: Options.file("replay").pipe(
      Options.withDescription("run the steps a failing run wrote (with its --seed and --world)"),
      Options.optional
    )
  },
  ({ seed, seeds, steps, world: store, replay }) =>
    Effect.flatMap(tmem, (g) =>
      Effect.gen(function* () {
        if (steps < 1 || seeds < 1)
          return yield* refuse(g, `tmem: --steps and --seeds must be 1 or more (got ${steps} and ${seeds})`)
        const url = Option.getOrUndefined(g.store) ?? (process.env.TMEM_STORE || "")
        if (store === "postgres" && !/^postgres(ql)?:\/\//.test(url))
          return yield* refuse(g, "tmem: --world postgres needs a database: --store postgres://… (or $TMEM_STORE)")
        const files = yield* FileSystem.FileSystem
        const replayed: ReadonlyArray<Step> | undefined = Option.isNone(replay)
          ? undefined
          : yield* Effect.flatMap(
              Effect.mapError(files.readFileString(replay.value), (e) => `cannot read ${replay.value}: ${e.message}`),
              (text) =>
                Either.match(Schema.decodeUnknownEither(StepsFile)(text), {
                  onLeft: () =>
                    Effect.fail(`${replay.value} is not a list of steps written by tmem simulate; run it again`),
                  onRight: (list) => Effect.succeed(list)
                })
            ).pipe(Effect.catchAll((message) => refuse(g, `tmem: ${message}`)))
        const reports: Array<SimReport & { readonly seed: number }> = []
        for (let s = seed; s < seed + (replayed === undefined ? seeds : 1); s++) {
          const list = replayed ?? stepsOf(s, steps, { disk: store === "disk" })
          const report = yield* once(worldOf(store, url), list, s, `seed ${s} (${store})`)
          reports.push({ ...report, seed: s })
          if (report.violation === undefined) continue
          const v = report.violation
          // the shortest list of steps that still breaks the same invariant, kept for --replay
          const shrunk = yield* shrinkSteps(() => worldOf(store, url), list.slice(0, v.step), s, v.invariant)
          const file = path.join(os.tmpdir(), `tmem-simulate-${store}-${s}.json`)
          yield* Effect.orDie(files.writeFileString(file, `${JSON.stringify(shrunk, null, 1)}\n`))
          const lines = [
            `seed ${s} (${store}): ${v.invariant} broken at step ${v.step}: ${v.detail}`,
            `replay: tmem simulate --seed ${s} --steps ${v.step} --world ${store}`,
            `shrunk to ${shrunk.length} step${shrunk.length === 1 ? "" : "s"} ` +
              `(tmem simulate --seed ${s} --world ${store} --replay ${file}):`,
            ...shrunk.map((step, i) => `  ${i + 1}. ${describeStep(step)}`)
          ]
          yield* g.json
            ? Console.log(JSON.stringify({ ok: false, error: lines[0], result: { ...report, seed: s, shrunk, file } }))
            : Console.error(lines.join("\n"))
          return yield* Effect.fail(new Refused())
        }
        const total = reports.reduce((n, r) => n + r.steps, 0)
        const restarts = reports.reduce((n, r) => n + r.restarts, 0)
        const faults = reports.reduce((n, r) => n + r.faults, 0)
        if (g.json) yield* Console.log(JSON.stringify({ ok: true, result: { store, runs: reports, steps: total } }))
        else
          yield* Console.log(
            `${count(reports.length, "seed")} (${store}), ${total} steps, ${count(restarts, "restart")}, ` +
              `${count(faults, "fault")}: every invariant held`
          )
      })
    )
).pipe(
  Command.withDescription(
    "drive the memory through seeded random steps under faults, checking its invariants after each (no network)"
  )
)
