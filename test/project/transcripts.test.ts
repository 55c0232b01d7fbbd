import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { runChain } from "../support/transcriptRunner.js"
import { alignToShown, chains, parseDoc } from "../support/transcripts.js"

const fence = "```"

const DOC = [
  "# A doc",
  `${fence}json`,
  `{"not": "a transcript"}`,
  fence,
  fence,
  "$ a prompt outside a sh block",
  fence,
  `${fence}sh`,
  "npm ci && npm test      # commands to type, no prompts",
  fence,
  `${fence}sh`,
  "$ tmem facts add env x   # adds",
  "added to env: x",
  "$ tmem facts add env y",
  "memory: refused  # not a status marker",
  "second line          # exit 1, nothing written",
  "$ tmem dev llm-server --port 41234 &   # background",
  "$ tmem bogus   # exit 2",
  "$ tmem prompt                 # output left out",
  fence,
  `${fence}sh`,
  "# continues the example above",
  "$ tmem events",
  "",
  "2026-11-29T21:40:12.113Z  env@1  x",
  "",
  fence,
  `${fence}sh`,
  "# not run: needs a terminal",
  "$ tmem --approve ask facts add env z",
  fence,
  `${fence}sh`,
  "stray prose",
  "$ tmem facts show",
  "$ tmem facts edit user   # not run: opens vi",
  fence
].join("\n")

describe("doc transcripts: parsing", () => {
  const parsed = parseDoc("docs/X.md", DOC)

  it("finds transcripts in sh blocks with prompts, and lists sh blocks without prompts as command summaries", () => {
    expect(parsed.transcripts.map((t) => t.line)).toEqual([11, 21, 28, 32])
    expect(parsed.summaries).toEqual([{ file: "docs/X.md", line: 8 }])
    expect(parsed.problems).toEqual([
      "docs/X.md:6: a `$ ` prompt in a block that is not `sh`",
      "docs/X.md:33: text before the first prompt: stray prose"
    ])
  })

  it("reads each command's line, shown output, expected exit status and background marker", () => {
    const [first] = parsed.transcripts
    expect(first!.commands).toEqual([
      { line: 12, text: "tmem facts add env x   # adds", output: ["added to env: x"], exit: 0, background: false },
      {
        line: 14,
        text: "tmem facts add env y",
        output: ["memory: refused  # not a status marker", "second line"],
        exit: 1,
        background: false
      },
      { line: 17, text: "tmem dev llm-server --port 41234 &   # background", output: [], exit: 0, background: true },
      { line: 18, text: "tmem bogus   # exit 2", output: [], exit: 2, background: false },
      { line: 19, text: "tmem prompt                 # output left out", output: [], exit: 0, background: false }
    ])
  })

  it("keeps inner blank output lines, drops trailing ones, and reads continuation and not-run markers", () => {
    const [, second, third, fourth] = parsed.transcripts
    expect(second).toMatchObject({
      continues: true,
      commands: [{ output: ["", "2026-11-29T21:40:12.113Z  env@1  x"] }]
    })
    expect(third).toMatchObject({ continues: false, notRun: "needs a terminal" })
    expect(fourth!.commands.map((c) => c.notRun)).toEqual([undefined, "opens vi"])
  })

  it("chains a transcript with the ones that continue it", () => {
    expect(chains(parsed.transcripts).map((c) => c.map((t) => t.line))).toEqual([[11, 21], [28], [32]])
  })
})

describe("doc transcripts: comparing output", () => {
  const same = (shown: ReadonlyArray<string>, printed: string) => alignToShown(shown, printed) === shown.join("\n")

  it("matches text literally, regex characters included", () => {
    expect(
      same(
        ["env: 72/80 bytes (90%), 3 entries", '[1] 20c "Redis 7 on port 6380"'],
        'env: 72/80 bytes (90%), 3 entries\n[1] 20c "Redis 7 on port 6380"\n'
      )
    ).toBe(true)
    expect(same(["env: 72/80 bytes (90%)"], "env: 72/80 bytes X90%)\n")).toBe(false)
    expect(same(["a.c"], "abc\n")).toBe(false)
  })

  it("lets [..] stand for any text within one line, never for a line break or a missing line", () => {
    expect(same(["kept in [..]/tmem-edit-[..]/user.md"], "kept in /tmp/x/tmem-edit-AbC123/user.md\n")).toBe(true)
    expect(same(["[..]"], "one\ntwo\n")).toBe(false)
    expect(same(["a [..] b"], "a x\n")).toBe(false)
  })

  it("lets a timestamp stand for any timestamp of the same form, and nothing else", () => {
    expect(same(["2026-11-29T21:40:12.113Z  user@1"], "2031-01-02T03:04:05.006Z  user@1\n")).toBe(true)
    expect(same(["s-outside  2026-11-29 23:18  3 turns"], "s-outside  2027-02-03 04:05  3 turns\n")).toBe(true)
    expect(same(["2026-11-29T21:40:12.113Z  user@1"], "yesterday  user@1\n")).toBe(false)
    expect(same(["2026-11-29T21:40:12.113Z  user@1"], "2026-11-29 21:40  user@1\n")).toBe(false)
  })

  it("fails on a missing or an extra line, and keeps only the differing lines visible", () => {
    expect(same(["a", "b"], "a\n")).toBe(false)
    expect(same(["a"], "a\nb\n")).toBe(false)
    expect(alignToShown(["2026-11-29T21:40:12.113Z x", "y"], "2031-01-02T03:04:05.006Z x\nz\n")).toBe(
      "2026-11-29T21:40:12.113Z x\nz"
    )
  })
})

const runOne = (doc: string) => runChain(chains(parseDoc("docs/T.md", doc).transcripts)[0]!, "/nonexistent")

/** A pid that still runs (a zombie waiting to be reaped does not count). */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return false
  }
}

describe("doc transcripts: running", () => {
  it(
    "runs each command with bash, capturing what it prints and its status; " + "a syntax error stops only its command",
    async () => {
      const [run] = await runOne(
        [`${fence}sh`, "$ echo out; echo err >&2", "$ (exit 3)", "$ echo <x>", "$ echo after", fence].join("\n")
      )
      expect(run!.commands.map((c) => c.exit)).toEqual([0, 3, 2, 0])
      expect(run!.commands[0]!.printed).toBe("out\nerr\n")
      expect(run!.commands[2]!.printed).toContain("syntax error")
      expect(run!.commands[3]!.printed).toBe("after\n")
    }
  )

  it(
    "carries exported variables into a continuing block, starts with an empty TMEM_DIR, " +
      "and stops background jobs at the end of each block",
    async () => {
      const runs = await runOne(
        [
          `${fence}sh`,
          "$ export GREETING=hi",
          '$ ls -A "$TMEM_DIR" | wc -l',
          `$ sh -c 'echo $$; exec sleep 300' &`,
          fence,
          `${fence}sh`,
          "# continues",
          "$ echo $GREETING",
          fence
        ].join("\n")
      )
      expect(runs[0]!.commands[1]!.printed.trim()).toBe("0")
      const pid = Number(runs[0]!.commands[2]!.printed.trim())
      expect(pid).toBeGreaterThan(0)
      expect(alive(pid)).toBe(false)
      expect(runs[1]!.commands[0]!.printed).toBe("hi\n")
    }
  )
})
