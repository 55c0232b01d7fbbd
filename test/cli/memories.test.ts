import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { openMemory } from "../../src/adapters/facade/openMemory.js"
import { tempDirs, tmem } from "../support/cli.js"

const { fresh } = tempDirs(afterAll)

describe("several memories in one directory (--memory, $TMEM_MEMORY, openMemory({ memory }))", () => {
  it("the default memory is the directory itself; another lives under memories/<id>/; they share nothing", async () => {
    const d = fresh()
    expect((await tmem(["--dir", d, "facts", "add", "user", "Shared default: prefers tabs"])).code).toBe(0)
    expect((await tmem(["--dir", d, "--memory", "alice", "facts", "add", "user", "Alice prefers vim"])).code).toBe(0)
    const bob = await tmem(["--dir", d, "facts", "add", "env", "Bob runs Debian 12"], { env: { TMEM_MEMORY: "bob" } })
    expect(bob.code, bob.stderr).toBe(0)
    // the default memory keeps today's (odek's) layout, untouched by the others
    expect(fs.readFileSync(path.join(d, "user.md"), "utf8")).toBe("Shared default: prefers tabs")
    expect(fs.existsSync(path.join(d, "env.md"))).toBe(false)
    expect(fs.readFileSync(path.join(d, "memories/alice/user.md"), "utf8")).toBe("Alice prefers vim")
    expect(fs.readFileSync(path.join(d, "memories/bob/env.md"), "utf8")).toBe("Bob runs Debian 12")
    const alice = await tmem(["--dir", d, "--memory", "alice", "prompt"])
    expect(alice.stdout).toContain("Alice prefers vim")
    expect(alice.stdout).not.toContain("prefers tabs")
    expect(alice.stdout).not.toContain("Debian")
    // each memory has its own journal and feed
    const events = await tmem(["--dir", d, "--memory", "bob", "--json", "events"])
    const listed = (JSON.parse(events.stdout) as { result: Array<{ content: string; position: number }> }).result
    expect(listed.map((e) => [e.content, e.position])).toEqual([["Bob runs Debian 12", 1]])
    // the --memory option wins over the environment
    const shown = await tmem(["--dir", d, "--memory", "alice", "facts", "show", "user"], {
      env: { TMEM_MEMORY: "bob" }
    })
    expect(shown.stdout).toContain("Alice prefers vim")
  })

  it("an invalid memory id is one line naming it and the rule, exit 1, and nothing is created", async () => {
    const d = fresh()
    for (const [args, env, where] of [
      [["--memory", "../escape"], {}, "--memory"],
      [["--memory", "Alice"], {}, "--memory"],
      [[], { TMEM_MEMORY: "a/b" }, "$TMEM_MEMORY"]
    ] as const) {
      const r = await tmem(["--dir", d, ...args, "facts", "add", "user", "x"], { env })
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(
        new RegExp(
          `^tmem: invalid memory id ".*": use 1-64 lowercase letters, digits, - and _, ` +
            `starting with a letter or digit \\(${where.replace("$", "\\$")}\\)\\n$`
        )
      )
    }
    expect(fs.readdirSync(d)).toEqual([])
  })

  it("openMemory({ memory }) opens that memory; an invalid id is refused before anything is opened", async () => {
    const d = fresh()
    const a = await openMemory({ dir: d, memory: "agent-a" })
    await a.tool({ action: "add", target: "user", content: "Agent A prefers short answers" })
    await a.close()
    const b = await openMemory({ dir: d, memory: "agent-b" })
    expect(await b.tool({ action: "read", target: "user" })).not.toContain("Agent A")
    await b.close()
    expect(fs.readFileSync(path.join(d, "memories/agent-a/user.md"), "utf8")).toBe("Agent A prefers short answers")
    await expect(openMemory({ dir: d, memory: "no spaces" })).rejects.toThrow(/^memory: invalid memory id "no spaces"/)
  })
})
