import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { startScriptedServer } from "../../src/adapters/dev/ScriptedServer.js"
import { demoHandler } from "../../src/adapters/dev/demoScript.js"
import { finished, startTmem, tempDirs, tmem } from "../support/cli.js"
import { chats } from "../support/llm.js"

const { fresh } = tempDirs(afterAll)
const FIXTURE = path.resolve("test/fixtures/eval/tiny.json")

/** The scratch memories go under TMPDIR: a directory of the test's own, so it can see them removed. */
const run = (args: ReadonlyArray<string>) => {
  const tmp = fresh()
  const home = fresh()
  return tmem(["--dir", home, ...args], { env: { TMPDIR: tmp } }).then((r) => ({
    ...r,
    left: fs.readdirSync(tmp),
    home: fs.readdirSync(home)
  }))
}

describe("tmem eval recall", () => {
  it(
    "--json: the figures of every conversation, per category, latency and ingest; scratch memories removed, " +
      "--dir untouched",
    async () => {
      const r = await run(["--json", "eval", "recall", FIXTURE])
      expect(r.stderr).toBe("")
      expect(r.code).toBe(0)
      const out = JSON.parse(r.stdout)
      expect(out).toMatchObject({
        ok: true,
        result: {
          dataset: FIXTURE,
          conversations: 2,
          sessions: 7,
          questions: 9,
          ingest: {
            episodes: 7,
            withoutEpisode: {},
            msPerSession: { p50: expect.any(Number), p90: expect.any(Number), max: expect.any(Number) }
          },
          recall: {
            all: { questions: 8, answerInBlock: { questions: 8 }, answerableInBlock: { questions: 6 } },
            unrelated: { queries: 1 },
            latencyMs: { p50: expect.any(Number), p90: expect.any(Number), p99: expect.any(Number) },
            blockBytes: { p50: expect.any(Number), max: expect.any(Number) }
          }
        }
      })
      expect(
        out.result.recall.categories.map((c: { category: string; questions: number }) => [c.category, c.questions])
      ).toEqual([
        ["1", 4],
        ["2", 4]
      ])
      for (const k of ["hit1", "hit3", "hit5", "empty"]) expect(typeof out.result.recall.all[k]).toBe("number")
      expect(r.left).toEqual([])
      expect(r.home).toEqual([])
    }
  )

  it("prints a compact table; --limit-conversations takes the first N", async () => {
    const r = await run(["eval", "recall", FIXTURE, "--limit-conversations", "1"])
    expect(r.code).toBe(0)
    const lines = r.stdout.split("\n")
    expect(lines[0]).toBe(`recall on ${FIXTURE}: 1 conversation, 3 sessions → 3 episodes, 5 questions`)
    expect(lines[2]).toMatch(/^ +questions +hit@1 +hit@3 +hit@5 +answer in block +of answerable +empty$/)
    expect(lines[3]).toMatch(/^all +4 +[0-9.]+ % +[0-9.]+ % +[0-9.]+ % +[0-9.]+ % of 4 +[0-9.]+ % of 3 +[0-9.]+ %$/)
    expect(lines.slice(4, 6).map((l) => l.split(/ {2,}/)[0])).toEqual(["category 1", "category 2"])
    expect(r.stdout).toMatch(
      new RegExp(
        [
          String.raw`\nunrelated queries: nothing recalled for [0-9.]+ % of 1\nrecall latency: p50 .+, p90 .+, p99 `,
          String.raw`.+; block p50 \d+ bytes \(max \d+\)\ningest: p50 .+ per session \(p90 .+\)\n$`
        ].join("")
      )
    )
    expect(r.left).toEqual([])
  })

  it("a bad dataset is one line naming the place and exit 1, before any scratch memory exists", async () => {
    const dir = fresh()
    const bad = JSON.parse(fs.readFileSync(FIXTURE, "utf8"))
    bad.conversations[1].questions[2].sessions = [2, 9]
    const file = path.join(dir, "bad.json")
    fs.writeFileSync(file, JSON.stringify(bad))
    const r = await run(["eval", "recall", file])
    expect(r).toMatchObject({ code: 1, stdout: "", left: [] })
    expect(r.stderr).toBe(
      `tmem: ${file}: $.conversations[1].questions[2].sessions[1]: session 9 is not in this conversation; ` +
        `see docs/CLI.md (eval recall) for the dataset format\n`
    )
    fs.writeFileSync(file, "{ nope")
    const j = await run(["--json", "eval", "recall", file])
    expect(j.code).toBe(1)
    expect(JSON.parse(j.stdout)).toEqual({
      ok: false,
      error: expect.stringMatching(
        new RegExp(
          `^tmem: ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is not JSON \\(.+\\); ` +
            `see docs/CLI.md \\(eval recall\\) for the dataset format$`
        )
      )
    })
    const zero = await run(["eval", "recall", FIXTURE, "--limit-conversations", "0"])
    expect(zero).toMatchObject({ code: 1, stderr: "tmem: --limit-conversations must be 1 or more (got 0)\n" })
  })

  it("a missing dataset file is a usage error (exit 2), as for every file argument", async () => {
    const r = await run(["eval", "recall", path.join(os.tmpdir(), "tmem-no-such-dataset.json")])
    expect(r.code).toBe(2)
    expect(r.stderr.split("\n").length).toBe(2)
  })

  it("Ctrl-C while it runs: exit 130 with the usual line, and the scratch memory is removed", async () => {
    const tmp = fresh()
    const work = fresh()
    const tiny = JSON.parse(fs.readFileSync(FIXTURE, "utf8"))
    const file = path.join(work, "long.json")
    fs.writeFileSync(
      file,
      JSON.stringify({ conversations: Array.from({ length: 40 }, () => tiny.conversations).flat() })
    )
    const child = startTmem(["--dir", work, "eval", "recall", file], { TMPDIR: tmp })
    child.stdin.end()
    const done = finished(child)
    // interrupted once the first scratch memory exists, i.e. in the middle of ingesting
    while (fs.readdirSync(tmp).length === 0) await new Promise((r) => setTimeout(r, 10))
    child.kill("SIGINT")
    const r = await done
    expect(r.code).toBe(130)
    expect(r.stderr).toMatch(/^tmem: interrupted by SIGINT; /)
    expect(r.stdout).toBe("")
    expect(fs.readdirSync(tmp)).toEqual([])
  })

  it(
    "measures the user's configuration: " + "with --llm-url/--llm-model every session is summarised by that model",
    async () => {
      const server = await startScriptedServer({ handler: demoHandler })
      try {
        const r = await run(["--llm-url", server.url, "--llm-model", "scripted", "--json", "eval", "recall", FIXTURE])
        expect(r.code, r.stderr).toBe(0)
        // the scripted model declines a session whose user turns it finds no content words in
        const ingest = JSON.parse(r.stdout).result.ingest
        expect(ingest.episodes + (ingest.withoutEpisode["summary declined"] ?? 0)).toBe(7)
        const summaries = chats(server).filter((c) => JSON.stringify(c.body).includes("[Date] "))
        expect(summaries.length).toBeGreaterThanOrEqual(7)
        // the session as the protocol records it: the date first, each turn with its speaker's name
        expect(JSON.stringify(summaries[0]!.body)).toContain(
          "user: [Date] 9:05 am on 3 March, 2025\\n" +
            "user: [Ada] I finally booked the sailing course in Kiel for June.\\n" +
            "assistant: [Ben] Nice!"
        )
        expect(r.left).toEqual([])
      } finally {
        await server.close()
      }
    }
  )
})
