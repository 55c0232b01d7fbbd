import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type Reply, type ScriptedServer, startScriptedServer } from "../../src/adapters/dev/ScriptedServer.js"
import { ManagedRuntime } from "effect"
import { liveLayer } from "../../src/adapters/live.js"
import { recordMessage } from "../../src/app/sessions.js"
import { DEFAULT_CONFIG } from "../../src/domain/config/MemoryConfig.js"
import type { ChatMessage } from "../../src/domain/sessions/message.js"
import { finished, startTmem, tempDirs, tmem } from "../support/cli.js"

const { fresh } = tempDirs(afterAll)
const SUMMARY = "The user asked to fix the tokenizer crash; the agent patched the lexer and added regression tests."
const CONSOLIDATED = { entries: ["The user uses pnpm 9 for installs and workspaces", "Deploys with Argo CD"] }

let server: ScriptedServer
/** While set, the model hangs on every request and resolves `arrived` with it. */
let hanging: { arrived: () => void } | undefined
beforeAll(async () => {
  server = await startScriptedServer({
    handler: (r): Reply => {
      if (hanging !== undefined) {
        hanging.arrived()
        return { kind: "hang" }
      }
      return {
        kind: "chat",
        content: JSON.stringify(r.body).includes("Entries for") ? JSON.stringify(CONSOLIDATED) : SUMMARY
      }
    }
  })
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
  hanging = undefined
})

const llm = () => ["--llm-url", server.url, "--llm-model", "scripted"]

/** Runs tmem and sends `signal` once the model has received its request (the command is then waiting on it). */
const interrupted = (args: ReadonlyArray<string>, signal: "SIGINT" | "SIGTERM") => {
  const child = startTmem(args)
  child.stdin.end()
  hanging = { arrived: () => void child.kill(signal) }
  return finished(child)
}

const transcript = (workspace: string) => ({
  session_id: "s-cut",
  workspace,
  messages: [
    { role: "user", content: "Please fix the tokenizer crash in the lexer." },
    { role: "assistant", content: "I found the bug in the lexer." },
    { role: "user", content: "Now add regression tests." },
    { role: "assistant", content: "Added tests in test/lexer.test.ts." },
    { role: "user", content: "Run them." },
    { role: "assistant", content: "All 12 tests pass." }
  ]
})

describe("Ctrl-C and SIGTERM while the model answers", () => {
  it(
    "session ingest: SIGINT exits 130 with one line; " + "running the ingest again finishes the session with the model",
    async () => {
      const dir = fresh()
      fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify({ memory: { consolidate_on_end: false } }))
      const file = path.join(dir, "t.json")
      fs.writeFileSync(file, JSON.stringify(transcript(dir)))
      const cut = await interrupted(["--dir", dir, ...llm(), "session", "ingest", file], "SIGINT")
      expect(cut).toMatchObject({ code: 130, stdout: "" })
      expect(cut.stderr).toMatch(/^tmem: interrupted by SIGINT; [^\n]*\n$/)
      expect(JSON.parse((await tmem(["--dir", dir, "--json", "episodes", "list", "--all"])).stdout)).toEqual({
        ok: true,
        result: []
      })
      hanging = undefined
      const again = await tmem(["--dir", dir, ...llm(), "session", "ingest", file])
      expect(again).toMatchObject({
        code: 0,
        stdout: "session s-cut: 6 messages; episode stored (trusted)\n",
        stderr: ""
      })
      expect((await tmem(["--dir", dir, "episodes", "show", "s-cut"])).stdout).toContain(SUMMARY)
      // finished now: a third run is refused as before
      expect(await tmem(["--dir", dir, ...llm(), "session", "ingest", file])).toMatchObject({
        code: 1,
        stderr: 'tmem: session "s-cut" was already ingested; give the transcript a new session_id\n'
      })
      expect(server.requests.filter((r) => r.path.endsWith("/chat/completions"))).toHaveLength(2)
    }
  )

  it("facts consolidate: SIGTERM exits 143 with one line and leaves the file as it was", async () => {
    const dir = fresh()
    fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify({ memory: { merge_on_write: false } }))
    for (const f of [
      "Uses pnpm 9 for installs",
      "The user uses pnpm 9 for installs and workspaces",
      "Deploys with Argo CD"
    ])
      expect((await tmem(["--dir", dir, "facts", "add", "env", f])).code).toBe(0)
    const before = fs.readFileSync(path.join(dir, "env.md"), "utf8")
    const cut = await interrupted(["--dir", dir, ...llm(), "facts", "consolidate", "env"], "SIGTERM")
    expect(cut).toMatchObject({ code: 143, stdout: "" })
    expect(cut.stderr).toMatch(/^tmem: interrupted by SIGTERM; [^\n]*\n$/)
    expect(fs.readFileSync(path.join(dir, "env.md"), "utf8")).toBe(before)
  })

  it("session ingest cut while recording messages continues from the first message not yet recorded", async () => {
    const dir = fresh()
    const file = path.join(dir, "t.json")
    const t = transcript(dir)
    fs.writeFileSync(file, JSON.stringify(t))
    // what an ingest killed after its third message leaves behind
    const rt = ManagedRuntime.make(liveLayer({ dir, config: DEFAULT_CONFIG }))
    const zone = { cwd: dir, roots: [dir], realpath: (p: string) => p }
    for (const m of t.messages.slice(0, 3)) await rt.runPromise(recordMessage("s-cut", m as ChatMessage, zone))
    await rt.dispose()
    expect(await tmem(["--dir", dir, "session", "ingest", file])).toMatchObject({
      code: 0,
      stdout: "session s-cut: 6 messages; episode stored (extractive summary, no LLM; trusted)\n"
    })
    const journal = fs.readFileSync(path.join(dir, "journal", "session", "s-cut.jsonl"), "utf8")
    expect(journal.match(/"MessageRecorded"/g)).toHaveLength(6)
    // a different transcript under the same id is not mixed in
    const other = {
      ...t,
      session_id: "s-cut",
      messages: [{ role: "user", content: "Something else entirely." }, ...t.messages]
    }
    fs.writeFileSync(file, JSON.stringify(other))
    expect((await tmem(["--dir", dir, "session", "ingest", file])).stderr).toBe(
      'tmem: session "s-cut" was already ingested; give the transcript a new session_id\n'
    )
  })
})
