import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { loadFacts } from "../../src/app/facts.js"
import { renderEntries } from "../../src/domain/facts/codec.js"
import { foldEvents } from "../../src/domain/kernel/Decider.js"
import { factCodec } from "../../src/domain/facts/stream.js"
import { EventStore } from "../../src/ports/EventStore.js"
import { appLayer } from "../support/app.js"
import { tempMemoryDir } from "../support/cli.js"
import { diskLayer } from "../support/stores.js"

const dirs: Array<string> = []
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })))

const ADDER = path.resolve("test/fixtures/adder.ts")

const startAdder = (args: ReadonlyArray<string>) => {
  const child = spawn(process.execPath, ["--import", "tsx", ADDER, ...args], { stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  let err = ""
  child.stdout.on("data", (d) => (out += d))
  child.stderr.on("data", (d) => (err += d))
  const done = new Promise<number | null>((resolve) => child.on("close", (code, signal) => resolve(code ?? (signal ? -1 : null))))
  return { child, done, acknowledged: () => out.split("\n").filter((l) => l.startsWith("ok ")).map((l) => Number(l.slice(3))), stderr: () => err }
}

/** The state a fresh process sees, plus a replay of the journal, plus the projection bytes. */
const inspect = (dir: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const loaded = yield* loadFacts("env")
      const batches = yield* Effect.flatMap(EventStore, (s) => s.read("facts/env", factCodec("env")))
      const codec = factCodec("env")
      const replayed = foldEvents(codec.evolve, codec.initialState, batches.flatMap((b) => b.events))
      const file = path.join(dir, "env.md")
      const projection = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : ""
      return { entries: loaded.state.entries, version: loaded.version, replayed: renderEntries(replayed.entries), projection }
    }).pipe(Effect.provide(appLayer({ store: diskLayer(dir) })))
  )

describe("several processes on one directory", () => {
  it("(f) child processes adding facts at once lose no update", async () => {
    const dir = tempMemoryDir()
    dirs.push(dir)
    const workers = ["alpha", "bravo", "charlie", "delta", "echo"].map((p) => ({ p, run: startAdder([dir, p, "25"]) }))
    const codes = await Promise.all(workers.map((w) => w.run.done))
    expect(codes, workers.map((w) => w.run.stderr()).join("\n")).toEqual([0, 0, 0, 0, 0])
    const state = await inspect(dir)
    const expected = workers.flatMap((w) => Array.from({ length: 25 }, (_, i) => `${w.p} fact ${i}`))
    expect([...state.entries].sort()).toEqual([...expected].sort())
    expect(state.version).toBe(125)
    expect(state.replayed).toBe(state.projection)
    // each writer's own facts stay in the order it wrote them
    for (const w of workers) {
      const mine = state.entries.filter((e) => e.startsWith(`${w.p} `))
      expect(mine).toEqual(Array.from({ length: 25 }, (_, i) => `${w.p} fact ${i}`))
    }
  }, 120_000)

  it("(g) a process killed between journal fsync and projection rename loses nothing it was told was durable", async () => {
    const dir = tempMemoryDir()
    dirs.push(dir)
    const first = startAdder([dir, "before", "3"])
    expect(await first.done).toBe(0)
    const crashing = startAdder([dir, "crash", "1", "crash-before-rename"])
    expect(await crashing.done).toBe(-1)
    expect(fs.readFileSync(path.join(dir, "env.md"), "utf8")).not.toContain("crash fact 0")
    const state = await inspect(dir)
    // the batch reached the journal before the kill, so it is the truth and the projection is repaired
    expect(state.entries).toEqual(["before fact 0", "before fact 1", "before fact 2", "crash fact 0"])
    expect(state.projection).toBe(state.replayed)
    expect(fs.readdirSync(dir).filter((n) => n.includes(".tmp-"))).toEqual([])
  }, 60_000)

  it("(g) processes killed at random moments leave a consistent directory holding every acknowledged fact", async () => {
    const dir = tempMemoryDir()
    dirs.push(dir)
    const acknowledged: Array<string> = []
    for (const [round, extra] of [0, 37, 113, 251].entries()) {
      const w = startAdder([dir, `round${round}`, "400"])
      // kill mid-stream: once the writer is demonstrably writing, after a further varying delay
      const deadline = Date.now() + 30_000
      while (w.acknowledged().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
      await new Promise((r) => setTimeout(r, extra))
      w.child.kill("SIGKILL")
      await w.done
      acknowledged.push(...w.acknowledged().map((i) => `round${round} fact ${i}`))
      const state = await inspect(dir)
      expect(state.projection).toBe(state.replayed)
      for (const fact of acknowledged) expect(state.entries).toContain(fact)
    }
    expect(acknowledged.length).toBeGreaterThan(0)
  }, 120_000)
})
