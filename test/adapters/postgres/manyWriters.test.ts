import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { BIN } from "../../support/cli.js"
import { dropMemory, freshMemoryId, PG_URL, runPg } from "../../support/postgres.js"

const WRITERS = 8
// the run: 8 processes × 200 calls (about 20 s here)
const CALLS = Number(process.env["TMEM_PG_WRITER_CALLS"] ?? 200)

// made by the first test that runs (a file whose suites are all skipped leaves nothing behind)
let made: string | undefined
const at = (name: string) => path.join((made ??= fs.mkdtempSync(path.join(os.tmpdir(), "tmem-pg-writers-"))), name)
const memory = freshMemoryId()
afterAll(async () => {
  if (made !== undefined) fs.rmSync(made, { recursive: true, force: true })
  await Effect.runPromise(dropMemory(memory))
})

const output = (child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (d) => (stdout += d))
    child.stderr!.on("data", (d) => (stderr += d))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

describe.runIf(runPg)("many writers on one PostgreSQL memory", () => {
  it(
    `${WRITERS} processes × ${CALLS} mixed tool calls: nothing acknowledged is lost, and a follower sees every event ` +
      "once, in feed order",
    async () => {
      const store = ["--dir", at("follower"), "--store", PG_URL, "--memory", memory]
      // the follower starts first and prints each event as any process commits it
      const follower = spawn(process.execPath, [BIN, ...store, "--json", "events", "--follow"], {
        stdio: ["ignore", "pipe", "pipe"]
      })
      let followed = ""
      follower.stdout.on("data", (d) => (followed += d))
      const followerClosed = new Promise((resolve) => follower.on("close", resolve))
      const followedLines = () => followed.split("\n").filter((l) => l !== "")
      const writers = Array.from({ length: WRITERS }, (_, w) =>
        output(
          spawn(
            process.execPath,
            ["--import", "tsx", "test/fixtures/pgToolUser.ts", PG_URL, memory, String(w), String(CALLS), at(`w${w}`)],
            { stdio: ["ignore", "pipe", "pipe"] }
          )
        )
      )
      const runs = await Promise.all(writers)
      // the model: each writer's acknowledged calls, applied in its own order (writers touch only their own facts)
      const expected = new Set<string>()
      let acknowledged = 0
      for (const run of runs) {
        expect(run.stderr).toBe("")
        expect(run.code).toBe(0)
        for (const line of run.stdout.trim().split("\n")) {
          const call = JSON.parse(line) as { op: string; content: string; old?: string }
          expect(call.op).not.toBe("failed")
          acknowledged++
          if (call.op === "add") expected.add(call.content)
          if (call.op === "remove") expected.delete(call.content)
          if (call.op === "replace") {
            expected.delete(call.old!)
            expected.add(call.content)
          }
        }
      }
      expect(acknowledged).toBe(WRITERS * CALLS)
      const shown = await output(
        spawn(process.execPath, [BIN, ...store, "--json", "facts", "show", "env"], {
          stdio: ["ignore", "pipe", "pipe"]
        })
      )
      const entries = (JSON.parse(shown.stdout) as { result: { env: { entries: Array<string> } } }).result.env.entries
      expect(new Set(entries)).toEqual(expected)
      expect(entries).toHaveLength(expected.size)

      // every event of the journal, once, in feed order, as the follower printed them while they were written
      const history = await output(
        spawn(process.execPath, [BIN, ...store, "--json", "events"], { stdio: ["ignore", "pipe", "pipe"] })
      )
      const all = (JSON.parse(history.stdout) as { result: Array<{ position: number }> }).result
      expect(all).toHaveLength(acknowledged)
      const deadline = Date.now() + 20_000
      while (Date.now() < deadline && followedLines().length < acknowledged)
        await new Promise((r) => setTimeout(r, 200))
      follower.kill("SIGTERM")
      await followerClosed
      const seen = followedLines().map((l) => (JSON.parse(l) as { result: { position: number } }).result)
      expect(seen.map((e) => e.position)).toEqual(all.map((e) => e.position))
      const positions = seen.map((e) => e.position)
      expect(positions.every((p, i) => i === 0 || p > positions[i - 1]!)).toBe(true)
    },
    180_000
  )
})

/** The facts of writer 0 of test/fixtures/pgToolUser.ts after its first `calls` calls, all of them successful. */
const afterCalls = (calls: number): Array<string> => {
  const live: Array<string> = []
  for (let i = 0; i < calls; i++) {
    const fact = `writer 0 fact ${i} for build ${i * 7}`
    if (i % 5 === 4 && live.length > 0) live.shift()
    else if (i % 5 === 2 && live.length > 0) {
      live.shift()
      live.push(fact)
    } else live.push(fact)
  }
  return live.sort()
}

describe.runIf(runPg)("a writer killed in the middle of its writes to PostgreSQL", () => {
  it("leaves nothing partial: what it was told is there, the history is whole, the next writer goes on", async () => {
    const killed = freshMemoryId()
    try {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "test/fixtures/pgToolUser.ts", PG_URL, killed, "0", "100000", at("killed")],
        { stdio: ["ignore", "pipe", "pipe"] }
      )
      let said = ""
      child.stdout.on("data", (d) => (said += d))
      const closed = new Promise((resolve) => child.on("close", resolve))
      // killed at a random moment once it is writing: mid-query, mid-commit or between calls
      while (said.split("\n").length < 30) await new Promise((r) => setTimeout(r, 20))
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 50)))
      child.kill("SIGKILL")
      await closed
      const acknowledged = said
        .split("\n")
        .filter((l) => l.endsWith("}"))
        .map((l) => JSON.parse(l) as { op: string; content: string; old?: string })
      expect(acknowledged.every((c) => c.op !== "failed")).toBe(true)
      // the call in flight when it died may or may not have landed, whatever it was (a remove too): the facts
      // are those after every acknowledged call, or after the next one as well
      const before = afterCalls(acknowledged.length)
      const after = afterCalls(acknowledged.length + 1)
      const store = ["--dir", at("after-kill"), "--store", PG_URL, "--memory", killed]
      const show = await output(
        spawn(process.execPath, [BIN, ...store, "--json", "facts", "show", "env"], {
          stdio: ["ignore", "pipe", "pipe"]
        })
      )
      const entries = (JSON.parse(show.stdout) as { result: { env: { entries: Array<string> } } }).result.env.entries
      expect([before, after]).toContainEqual([...entries].sort())
      const history = await output(
        spawn(process.execPath, [BIN, ...store, "--json", "events"], { stdio: ["ignore", "pipe", "pipe"] })
      )
      const events = (JSON.parse(history.stdout) as { result: Array<{ version: number; position: number }> }).result
      expect(events.map((e) => e.version)).toEqual(events.map((_, i) => i + 1))
      expect(events.map((e) => e.position)).toEqual(events.map((_, i) => i + 1))
      const next = await output(
        spawn(process.execPath, [BIN, ...store, "facts", "add", "env", "The next writer goes on"], {
          stdio: ["ignore", "pipe", "pipe"]
        })
      )
      expect(next.code).toBe(0)
    } finally {
      await Effect.runPromise(dropMemory(killed))
    }
  }, 60_000)
})
