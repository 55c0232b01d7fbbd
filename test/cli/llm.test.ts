import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { demoHandler } from "../../src/adapters/dev/demoScript.js"
import { type ScriptedServer, startScriptedServer } from "../../src/adapters/dev/ScriptedServer.js"
import { BIN, tempDirs, tmem } from "../support/cli.js"

let server: ScriptedServer
const { fresh } = tempDirs(afterAll)
beforeAll(async () => void (server = await startScriptedServer({ handler: demoHandler })))
afterAll(() => server.close())
beforeEach(() => server.reset())

const llm = () => ["--llm-url", server.url, "--llm-model", "scripted"]
/** Facts written as given: merge-on-write would fold the near-duplicates these tests want consolidation to see. */
const noMerge = (dir: string, extra: Record<string, unknown> = {}) =>
  fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify({ memory: { merge_on_write: false, ...extra } }))
const seed = async (dir: string, facts: ReadonlyArray<string>) => {
  for (const f of facts) expect((await tmem(["--dir", dir, "facts", "add", "env", f])).code).toBe(0)
}
const FACTS = ["Uses pnpm 9 for installs", "The user uses pnpm 9 for installs and workspaces", "Deploys with Argo CD"]

describe("tmem with a model", () => {
  it("facts consolidate: applies, names the version to revert, and revert brings the entries back", async () => {
    const dir = fresh()
    noMerge(dir)
    await seed(dir, FACTS)
    const c = await tmem(["--dir", dir, ...llm(), "facts", "consolidate", "env"])
    expect(c).toMatchObject({
      code: 0,
      stdout: "consolidated env (3 → 2 entries); revert with: tmem facts revert env@4\n",
      stderr: ""
    })
    expect(fs.readFileSync(path.join(dir, "env.md"), "utf8")).toBe(`${FACTS[1]}\n§\n${FACTS[2]}`)
    const r = await tmem(["--dir", dir, "facts", "revert", "env@4"])
    expect(r).toMatchObject({ code: 0, stdout: "reverted env@4: env now has 3 entries\n" })
    expect(fs.readFileSync(path.join(dir, "env.md"), "utf8")).toBe(FACTS.join("\n§\n"))
    // a bare number works when only one file has a revertible change there
    const again = await tmem(["--dir", dir, "--json", "facts", "revert", "5"])
    expect(JSON.parse(again.stdout)).toMatchObject({ ok: true, result: { target: "env", reverted: 5, changed: true } })
    const events = await tmem(["--dir", dir, "events"])
    expect(events.stdout).toContain("🧠 consolidated memory[env] (3 → 2 entries)")
    expect(events.stdout).toContain("🧠 ↶ memory[env] reverted version 4 (2 → 3 entries)")
  })

  it("revert refuses what it cannot do, on one line, and changes nothing", async () => {
    const dir = fresh()
    noMerge(dir)
    await seed(dir, FACTS)
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, RegExp]> = [
      [["env@2"], /^memory: env@2 is fact_added; only whole-file changes/],
      [["env@9"], /^memory: env has no version 9 \(latest is 3\); list versions with tmem events\n$/],
      [["2"], /^memory: neither user nor env has a revertible change at version 2/],
      [["latest"], /^memory: "latest" is not a version; use <target>@<version> such as env@7/],
      [["7", "--target", "episodes"], /^memory: invalid target "episodes"/]
    ]
    const before = fs.readFileSync(path.join(dir, "env.md"), "utf8")
    for (const [args, error] of cases) {
      const r = await tmem(["--dir", dir, "facts", "revert", ...args])
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(error)
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1)
    }
    expect(fs.readFileSync(path.join(dir, "env.md"), "utf8")).toBe(before)
  })

  it("without a model, or with one that cannot be reached, consolidate refuses on one line", async () => {
    const dir = fresh()
    await seed(dir, FACTS)
    expect(await tmem(["--dir", dir, "facts", "consolidate", "env"])).toMatchObject({
      code: 1,
      stderr: "memory: consolidation requires LLM client\n"
    })
    const down = await startScriptedServer()
    await down.close()
    const r = await tmem(["--dir", dir, "--llm-url", down.url, "--llm-model", "m", "facts", "consolidate", "env"])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(
      new RegExp(
        [
          String.raw`^memory: consolidate LLM: llm: cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: `,
          String.raw`.*check llm\.base_url and that the server is running\n$`
        ].join("")
      )
    )
  })

  it("--llm-url and --llm-model must come together (or with the config's llm block)", async () => {
    const dir = fresh()
    expect(await tmem(["--dir", dir, "--llm-url", server.url, "facts", "show"])).toMatchObject({
      code: 1,
      stderr: 'tmem: --llm-url needs --llm-model (or llm.model in the config file) (e.g. "llama3.1" for Ollama)\n'
    })
    expect((await tmem(["--dir", dir, "--llm-model", "m", "facts", "show"])).stderr).toMatch(
      /^tmem: --llm-model needs --llm-url/
    )
    expect((await tmem(["--dir", dir, "--llm-url", "ftp://x", "--llm-model", "m", "facts", "show"])).stderr).toMatch(
      /^tmem: llm.base_url must start with http:\/\/ or https:\/\//
    )
  })

  it("an add that crosses consolidate_at_cap_pct runs the pass before the command exits", async () => {
    const dir = fresh()
    fs.writeFileSync(
      path.join(dir, "config.json"),
      JSON.stringify({
        memory: { facts_limit_env: 300, consolidate_at_cap_pct: 30, merge_on_write: false },
        llm: { base_url: server.url, model: "scripted" }
      })
    )
    await seed(dir, FACTS)
    const events = await tmem(["--dir", dir, "events"])
    expect(events.stdout).toContain("🧠 consolidated memory[env] (3 → 2 entries)")
    expect(
      server.requests.some((r) => JSON.stringify(r.body).includes("Consolidate the following memory entries"))
    ).toBe(true)
  })

  it("memory.embedding http sends the merge probe to the endpoint (every similarity path switches)", async () => {
    const dir = fresh()
    fs.writeFileSync(
      path.join(dir, "config.json"),
      JSON.stringify({ memory: { embedding: { provider: "http", base_url: server.url, model: "demo" } } })
    )
    await seed(dir, ["Uses pnpm 9 for installs"])
    expect(server.requests).toHaveLength(0) // an empty file needs no probe
    const r = await tmem(["--dir", dir, "facts", "add", "env", "Uses pnpm 9 for installs and workspaces"])
    expect(r.stdout).toBe("merged into env: Uses pnpm 9 for installs and workspaces\n")
    expect(server.requests.map((q) => q.path)).toEqual(["/v1/embeddings"])
    expect((server.requests[0]!.body as { model: string }).model).toBe("demo")
  })
})

describe("consolidation across processes", () => {
  it("another process writes while the model thinks: the pass reports the conflict and writes nothing", async () => {
    const slow = await startScriptedServer({
      handler: async (r, n) => ({ ...(await demoHandler(r, n)), delayMs: 1500 })
    })
    try {
      const dir = fresh()
      noMerge(dir)
      await seed(dir, FACTS)
      const pass = tmem(["--dir", dir, "--llm-url", slow.url, "--llm-model", "scripted", "facts", "consolidate", "env"])
      // the model has the snapshot once its request arrives; the other process writes then
      while (slow.requests.length === 0) await new Promise((r) => setTimeout(r, 20))
      expect((await tmem(["--dir", dir, "facts", "add", "env", "Staging listens on port 5433"])).code).toBe(0)
      expect(await pass).toMatchObject({
        code: 1,
        stderr:
          "memory: env changed while consolidating; nothing written, every concurrent change kept — " +
          "run consolidate again\n"
      })
      expect(fs.readFileSync(path.join(dir, "env.md"), "utf8")).toBe(
        [...FACTS, "Staging listens on port 5433"].join("\n§\n")
      )
    } finally {
      await slow.close()
    }
  })
})

describe("tmem dev llm-server", () => {
  it("serves the demo model on loopback until interrupted", async () => {
    const child = spawn(process.execPath, [BIN, "dev", "llm-server"], { stdio: ["ignore", "pipe", "pipe"] })
    const url = await new Promise<string>((resolve, reject) => {
      let out = ""
      child.stdout.on("data", (d) => {
        out += d
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(out)
        if (m) resolve(m[1]!)
      })
      child.on("exit", (code) => reject(new Error(`exited ${code}`)))
    })
    const res = await fetch(`${url}/embeddings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "x", input: ["a b", "c"] })
    })
    const body = (await res.json()) as { data: Array<{ embedding: Array<number> }> }
    expect(body.data).toHaveLength(2)
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
    child.kill("SIGINT")
    expect(await exited).toBe(0)
  })
})

describe("tmem dev llm-server's answers (the demo model)", () => {
  const ingest = async (dir: string, id: string, messages: ReadonlyArray<{ role: string; content: string }>) => {
    fs.writeFileSync(path.join(dir, `${id}.json`), JSON.stringify({ session_id: id, workspace: dir, messages }))
    return tmem(["--dir", dir, ...llm(), "--json", "session", "ingest", path.join(dir, `${id}.json`)])
  }

  it("a session's episode is a summary made of that session, never a canned sentence", async () => {
    const dir = fresh()
    const r = await ingest(dir, "s1", [
      { role: "user", content: "Fix the lexer crash on empty input" },
      { role: "assistant", content: "Guarded the empty buffer in src/lexer.ts; tests pass." },
      { role: "user", content: "Add a regression test" },
      { role: "assistant", content: "Added test/lexer.test.ts." },
      { role: "user", content: "Thanks" },
      { role: "assistant", content: "Done." }
    ])
    expect(r.code, r.stderr).toBe(0)
    const shown = JSON.parse((await tmem(["--dir", dir, "--json", "episodes", "show", "s1"])).stdout) as {
      result: { text: string; extractive: boolean }
    }
    expect(shown.result.extractive).toBe(false)
    expect(shown.result.text).toBe(
      'In this session the user asked "Fix the lexer crash on empty input" and 2 more requests; ' +
        'the agent last replied "Done.".'
    )
    expect(chatsSent().some((c) => c.includes("Fix the lexer crash on empty input"))).toBe(true)
  })

  it("a session with nothing to remember is declined (NONE): no episode", async () => {
    const dir = fresh()
    const r = await ingest(dir, "s2", [
      { role: "user", content: "?" },
      { role: "assistant", content: "Yes?" },
      { role: "user", content: "…" },
      { role: "assistant", content: "Ok." },
      { role: "user", content: "!" },
      { role: "assistant", content: "Bye." }
    ])
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, result: { outcome: { kind: "declined" } } })
    expect(JSON.parse((await tmem(["--dir", dir, "--json", "episodes", "list", "--all"])).stdout)).toEqual({
      ok: true,
      result: []
    })
  })

  it("GET /v1/models lists the scripted model; a request tmem never makes is an error, not an answer", async () => {
    const models = await fetch(`${server.url}/models`)
    expect(models.status).toBe(200)
    expect(await models.json()).toMatchObject({ object: "list", data: [{ id: "scripted", object: "model" }] })
    const other = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "scripted", messages: [{ role: "user", content: "Write a poem" }] })
    })
    expect(other.status).toBe(400)
  })
})

const chatsSent = () =>
  server.requests.filter((r) => r.path.endsWith("/chat/completions")).map((r) => JSON.stringify(r.body))

describe("progress while the model thinks", () => {
  const hasScript = spawnSync("script", ["--version"]).status === 0

  it("stderr that is not a terminal gets nothing extra", async () => {
    const slow = await startScriptedServer({
      handler: async (r, n) => ({ ...(await demoHandler(r, n)), delayMs: 400 })
    })
    try {
      const dir = fresh()
      noMerge(dir)
      await seed(dir, FACTS)
      const r = await tmem([
        "--dir",
        dir,
        "--llm-url",
        slow.url,
        "--llm-model",
        "scripted",
        "facts",
        "consolidate",
        "env"
      ])
      expect(r).toMatchObject({ code: 0, stderr: "" })
    } finally {
      await slow.close()
    }
  })

  it.skipIf(!hasScript)(
    "on a terminal a spinner names the wait, and its line is erased before the answer",
    async () => {
      const slow = await startScriptedServer({
        handler: async (r, n) => ({ ...(await demoHandler(r, n)), delayMs: 600 })
      })
      try {
        const dir = fresh()
        noMerge(dir)
        await seed(dir, FACTS)
        // script(1) runs the command on a pseudo-terminal: stdout and stderr both reach it
        const command = [
          process.execPath,
          BIN,
          "--dir",
          dir,
          "--llm-url",
          slow.url,
          "--llm-model",
          "scripted",
          "facts",
          "consolidate",
          "env"
        ]
          .map((a) => `'${a}'`)
          .join(" ")
        // asynchronously: the scripted server answers from this process
        const r = await new Promise<{ stdout: string }>((resolve, reject) => {
          const child = spawn("script", ["-qec", command, "/dev/null"], {
            env: { ...process.env, TMEM_DIR: "", TMEM_CONFIG: "" },
            stdio: ["ignore", "pipe", "inherit"]
          })
          let stdout = ""
          child.stdout.on("data", (d) => (stdout += d))
          child.on("error", reject)
          child.on("close", () => resolve({ stdout }))
        })
        expect(r.stdout).toContain("⠋ consolidating env: waiting for the model (scripted)\u001b[K")
        expect(r.stdout).toMatch(/\r\u001b\[Kconsolidated env \(3 → 2 entries\)/)
      } finally {
        await slow.close()
      }
    }
  )
})
