import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { tempDirs, tmem } from "../support/cli.js"

const { fresh } = tempDirs(afterAll)
const ESC = "\u001b"

describe("tmem: options, help and usage errors", () => {
  it("global options before --help and --version work (exit 0)", async () => {
    const dir = fresh()
    const help = await tmem(["--dir", dir, "--json", "--help"])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^tmem 0\.1\.0: tiered-memory/)
    expect(await tmem(["--dir", dir, "--version"])).toMatchObject({ code: 0, stdout: "tmem 0.1.0\n", stderr: "" })
    expect((await tmem(["--dir", dir, "facts", "add", "--help"])).code).toBe(0)
    const alone = await tmem([])
    expect(alone).toMatchObject({ code: 0, stderr: "" })
    expect(alone.stdout).toMatch(/^tmem 0\.1\.0: tiered-memory/)
  })

  it("an unknown option says so on one line, exit 2, wherever it is", async () => {
    for (const argv of [
      ["--bogus"],
      ["--dir", "/tmp", "--bogus", "facts", "show"],
      ["facts", "show", "--bogus"],
      ["--wizard"],
      ["--log-level", "debug", "prompt"]
    ]) {
      const r = await tmem(argv)
      const name = argv.find((a) => a.startsWith("--") && !["--dir"].includes(a))!
      expect(r, argv.join(" ")).toMatchObject({
        code: 2,
        stdout: "",
        stderr: `tmem: unknown option ${name}; see tmem --help\n`
      })
    }
    expect(await tmem(["bogus"])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^tmem: unknown command tmem bogus \(one of: tool, facts, .*\); see tmem --help\n$/)
    })
    expect(await tmem(["facts", "add", "user"])).toMatchObject({
      code: 2,
      stderr: "tmem: Missing argument <content>; see tmem --help\n"
    })
  })

  it("--json goes before or after the command, and every --json answer is one {ok} object", async () => {
    const dir = fresh()
    const outputs: Array<string> = []
    for (const argv of [
      ["--json", "--dir", dir, "facts", "add", "user", "Prefers vim"],
      ["--dir", dir, "facts", "add", "user", "Prefers tabs", "--json"],
      ["--dir", dir, "facts", "show", "--json"],
      ["--dir", dir, "facts", "stats", "user", "--json"],
      ["--dir", dir, "prompt", "--json"],
      ["--dir", dir, "events", "--json"],
      ["--dir", dir, "episodes", "list", "--json"],
      ["--dir", dir, "recall", "vim", "--json"],
      ["--dir", dir, "tool", "--schema", "openai", "--json"],
      ["--dir", dir, "tool", '{"action":"stats","target":"env"}', "--json"],
      ["--dir", dir, "facts", "add", "user", "--json"],
      ["--dir", dir, "facts", "show", "nobody", "--json"],
      ["--dir", dir, "--bogus", "--json"],
      ["--dir", dir, "nope", "--json"]
    ]) {
      const r = await tmem(argv)
      const line = r.stdout.trimEnd()
      expect(line.split("\n"), argv.join(" ")).toHaveLength(1)
      const value = JSON.parse(line) as { ok: boolean; result?: unknown; error?: string }
      expect(Object.keys(value).sort(), argv.join(" ")).toEqual(value.ok ? ["ok", "result"] : ["error", "ok"])
      if (!value.ok) expect(r.code).toBeGreaterThan(0)
      outputs.push(line)
    }
    expect(outputs.filter((o) => o.startsWith('{"ok":false')).length).toBe(4)
  })

  it("help is plain text (no escape codes) and shows full command lines; the top level stays about tmem", async () => {
    const top = await tmem(["--help"])
    expect(top.stdout).not.toContain(ESC)
    expect(top.stdout).toContain("  tmem facts add <target> <content>")
    expect(top.stdout).toContain("  tmem episodes search [--limit integer] <query>")
    for (const builtIn of ["--wizard", "--log-level"]) expect(top.stdout).not.toContain(builtIn)
    expect(top.stdout).toContain("tmem --completions bash|zsh|fish|sh")
    expect(top.stdout.split("\n").length).toBeLessThan(50)
    const add = await tmem(["facts", "add", "-h"], { env: { NO_COLOR: "" } })
    expect(add.stdout).toMatch(/^Usage: tmem facts add <target> <content>\n/)
    expect(add.stdout).not.toContain(ESC)
    const facts = await tmem(["facts", "--help"])
    expect(facts.stdout).toMatch(/^Usage: tmem facts <command>\n/)
    expect(facts.stdout).toContain("  tmem facts revert [--target text] <version>")
  })

  it("a word after -- is an argument even if it looks like an option", async () => {
    const dir = fresh()
    expect(await tmem(["--dir", dir, "facts", "add", "user", "--", "--json is a flag"])).toMatchObject({
      code: 0,
      stdout: "added to user: --json is a flag\n"
    })
  })
})

describe("tmem: what reaches the terminal from errors", () => {
  it("a newline in an echoed query stays one line", async () => {
    const r = await tmem(["--dir", fresh(), "tool", '{"action":"view","query":"a\\nb"}'])
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(
      "episode a\\nb is pending review (untrusted provenance) " +
        "— promote it with `tmem episodes promote` before viewing\n"
    )
  })

  it("a damaged config's escape sequences are shown escaped, never sent", async () => {
    const dir = fresh()
    fs.writeFileSync(path.join(dir, "config.json"), '{"memory":{"\\u001b[31mred\\u0007":1}}')
    const r = await tmem(["--dir", dir, "facts", "show"])
    expect(r.code).toBe(1)
    expect(r.stderr).not.toContain(ESC)
    expect(r.stderr).toContain("memory.\\u001b[31mred\\u0007 is not a known key")
    expect(r.stderr.split("\n")).toHaveLength(2)
  })
})
