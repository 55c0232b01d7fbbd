import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { tempDirs, tmem } from "../support/cli.js"

const { fresh, track } = tempDirs(afterAll)

const transcript = (id: string, readPath: string, workspace: string) => ({
  session_id: id,
  workspace,
  messages: [
    { role: "system", content: "You are an agent." },
    { role: "user", content: "Please fix the tokenizer crash in the lexer." },
    { role: "assistant", content: "", tool_calls: [{ name: "read_file", arguments: { path: readPath } }] },
    { role: "tool", tool_name: "read_file", content: "export const lex = 1" },
    { role: "assistant", content: "I found the bug in the lexer." },
    { role: "user", content: "Now add regression tests." },
    { role: "assistant", content: "Added tests in test/lexer.test.ts." },
    { role: "user", content: "Run them." },
    { role: "assistant", content: "", tool_calls: [{ name: "shell", arguments: '{"command":"npm test"}' }] },
    { role: "tool", tool_name: "shell", content: "12 passed" },
    { role: "assistant", content: "All 12 tests pass." }
  ]
})

const write = (dir: string, name: string, value: unknown) => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value))
  return file
}

describe("tmem session ingest, episodes, recall", () => {
  it(
    "events --follow shows a session ingested by another process: " + "its untrusted source, its end, its episode",
    async () => {
      const dir = fresh()
      const work = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-ws-"))
      track(work)
      const { spawn } = await import("node:child_process")
      const follower = spawn(process.execPath, [path.resolve("dist/bin.js"), "--dir", dir, "--json", "events", "-f"], {
        stdio: ["ignore", "pipe", "pipe"]
      })
      let out = ""
      follower.stdout.on("data", (c) => (out += c))
      try {
        await new Promise((r) => setTimeout(r, 400))
        const ingested = await tmem([
          "--dir",
          dir,
          "session",
          "ingest",
          write(work, "o.json", transcript("s-watched", "/etc/hosts", work))
        ])
        expect(ingested.code, ingested.stderr).toBe(0)
        const deadline = Date.now() + 10_000
        while (!out.includes("episode_pending_review") && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 50))
      } finally {
        follower.kill()
      }
      const events = out
        .trim()
        .split("\n")
        .map(
          (l) => (JSON.parse(l) as { ok: true; result: { type: string; position: number; sessionId?: string } }).result
        )
      expect(events.map((e) => e.type)).toEqual([
        "session_tainted",
        "session_ended",
        "episode_stored",
        "episode_pending_review"
      ])
      expect(events[0]).toMatchObject({ sessionId: "s-watched", stream: "session/s-watched", content: "read_file" })
      const positions = events.map((e) => e.position)
      expect(positions).toEqual([...positions].sort((a, b) => a - b))
      // the same events, in the same order, from the journal afterwards
      const history = await tmem(["--dir", dir, "--json", "events"])
      const listed = (JSON.parse(history.stdout) as { result: Array<{ type: string }> }).result.map((e) => e.type)
      expect(listed.filter((t) => t.startsWith("session_") || t.startsWith("episode_"))).toEqual(
        events.map((e) => e.type)
      )
    }
  )

  it(
    "ingests sessions: a workspace session is trusted and recalled; " + "an outside read is pending until promoted",
    async () => {
      const dir = fresh()
      const work = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-ws-"))
      track(work)
      const a = await tmem([
        "--dir",
        dir,
        "session",
        "ingest",
        write(work, "a.json", transcript("s-trusted", "src/lexer.ts", work))
      ])
      expect(a).toMatchObject({
        code: 0,
        stdout: "session s-trusted: 11 messages; episode stored (extractive summary, no LLM; trusted)\n"
      })
      const outside = transcript("s-outside", "/etc/hosts", work)
      // a different session on the same template: the extractive summary holds most of the session, so it must differ
      outside.messages[1]!.content = "Please look at the hosts file for the staging proxy."
      outside.messages[4]!.content = "The hosts file maps the staging proxy to 10.0.0.7."
      outside.messages[5]!.content = "Point it at 10.0.0.9 instead, the old box is retired."
      outside.messages[6]!.content = "Updated the staging proxy entry and flushed the resolver cache."
      const b = await tmem(["--dir", dir, "session", "ingest", write(work, "b.json", outside)])
      expect(b.stdout).toBe(
        "session s-outside: 11 messages; " +
          "episode stored (extractive summary, no LLM; pending review, untrusted: read_file)\n"
      )
      const pending = await tmem(["--dir", dir, "episodes", "list"])
      expect(pending.stdout).toMatch(
        /^s-outside {2}.*3 turns {2}pending review \(untrusted: read_file\) {2}\[extractive\]\n/
      )
      const recall1 = await tmem(["--dir", dir, "recall", "hosts file staging proxy"])
      expect(recall1.stdout).not.toContain("s-outside")
      expect((await tmem(["--dir", dir, "episodes", "promote", "s-outside"])).stdout).toBe(
        "promoted s-outside: it is recalled from now on\n"
      )
      const recall2 = await tmem(["--dir", dir, "recall", "hosts file staging proxy"])
      expect(recall2.stdout).toContain("• [s-outside] (3 turns): ")
      // --json names the episodes shown; a promoted episode is quoted from its summary, never its session's words
      const recall3 = JSON.parse((await tmem(["--dir", dir, "--json", "recall", "hosts file staging proxy"])).stdout)
      expect(recall3.result.episodes[0]).toMatchObject({ session_id: "s-outside", turns: 3 })
      expect(recall3.result.episodes[0].passages.length).toBeGreaterThan(0)
      expect(recall3.result.block).toBe(`\n${recall2.stdout}`)
      const all = JSON.parse((await tmem(["--dir", dir, "--json", "episodes", "list", "--all"])).stdout)
      expect(all.result.map((e: { session_id: string; trust: string }) => [e.session_id, e.trust])).toEqual([
        ["s-outside", "recallable"],
        ["s-trusted", "recallable"]
      ])
      const index = JSON.parse(fs.readFileSync(path.join(dir, "index.json"), "utf8"))
      expect(index[0]).toMatchObject({
        session_id: "s-outside",
        provenance: { untrusted: true, sources: ["read_file"], user_approved: true },
        extractive: true
      })
      const events = (await tmem(["--dir", dir, "events"])).stdout
      expect(events).toContain("🔒 episode pending_review: s-outside")
      expect(events).toContain("💾 ✓ episode promoted: s-outside")
    }
  )

  it(
    "refuses a malformed transcript with the JSON path of the problem, " + "and a second ingest of one session",
    async () => {
      const dir = fresh()
      const cases: ReadonlyArray<readonly [unknown, RegExp]> = [
        ["{not json", /^tmem: .*bad\.json is not JSON \(/],
        [
          { session_id: "x", messages: [{ role: "bot" }] },
          /: \$\.messages\[0\]\.role: Expected "system", actual "bot"; see docs\/FORMATS.md/
        ],
        [{ messages: [] }, /: \$\.session_id: is missing; see docs\/FORMATS.md/],
        [{ session_id: "x", messages: [], extra: 1 }, /: \$\.extra: is unexpected/],
        [{ session_id: "../x", messages: [] }, /^memory: invalid session id "\.\.\/x"/]
      ]
      for (const [value, error] of cases) {
        const r = await tmem(["--dir", dir, "session", "ingest", write(dir, "bad.json", value)])
        expect(r.code).toBe(1)
        expect(r.stderr).toMatch(error)
        expect(r.stderr.trimEnd().split("\n")).toHaveLength(1)
      }
      const file = write(dir, "ok.json", transcript("twice", "src/x.ts", dir))
      expect((await tmem(["--dir", dir, "session", "ingest", file])).code).toBe(0)
      expect(await tmem(["--dir", dir, "session", "ingest", file])).toMatchObject({
        code: 1,
        stderr: 'tmem: session "twice" was already ingested; give the transcript a new session_id\n'
      })
    }
  )

  it("episodes show, discard and search; the tool's view refuses a pending episode", async () => {
    const dir = fresh()
    const t = transcript("pend", "/etc/passwd", dir)
    await tmem(["--dir", dir, "session", "ingest", write(dir, "p.json", t)])
    expect((await tmem(["--dir", dir, "episodes", "show", "pend"])).stdout).toMatch(
      /^pend .*pending review.*\n\nUser: Please fix the tokenizer crash in the lexer\. .* Tools: read_file, shell\.\n$/
    )
    const view = await tmem(["--dir", dir, "tool", '{"action":"view","target":"episodes","query":"pend"}'])
    expect(view).toMatchObject({ code: 1 })
    expect(view.stderr).toBe(
      "episode pend is pending review (untrusted provenance) — promote it with `tmem episodes promote` before viewing\n"
    )
    expect((await tmem(["--dir", dir, "episodes", "search", "tokenizer"])).stdout).toBe("no matching episodes found\n")
    expect((await tmem(["--dir", dir, "episodes", "discard", "pend"])).stdout).toBe("discarded pend\n")
    expect(fs.existsSync(path.join(dir, "pend.md"))).toBe(false)
    expect(await tmem(["--dir", dir, "episodes", "show", "pend"])).toMatchObject({
      code: 1,
      stderr: 'memory: episode "pend" not found\n'
    })
  })
})
