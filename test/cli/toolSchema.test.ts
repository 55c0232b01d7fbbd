import { afterAll, describe, expect, it } from "vitest"
import { memoryToolJsonSchema, toolDefinition } from "../../src/app/toolSchema.js"
import { tempDirs, tmem } from "../support/cli.js"

const { fresh } = tempDirs(afterAll)

const json = (s: string) => JSON.parse(s) as Record<string, any>

describe("tmem tool --schema", () => {
  it("openai: prints the function definition, pretty with 2 spaces, exit 0", async () => {
    const r = await tmem(["tool", "--schema", "openai"])
    expect(r).toMatchObject({ code: 0, stderr: "" })
    expect(json(r.stdout).function.name).toBe("memory")
    expect(json(r.stdout)).toEqual(toolDefinition("openai"))
    expect(r.stdout).toBe(`${JSON.stringify(toolDefinition("openai"), null, 2)}\n`)
  })

  it("anthropic and mcp: name memory, with input_schema / inputSchema", async () => {
    const a = await tmem(["tool", "--schema", "anthropic"])
    expect(a.code).toBe(0)
    expect(json(a.stdout)).toMatchObject({ name: "memory", input_schema: memoryToolJsonSchema })
    const m = await tmem(["tool", "--schema=mcp"])
    expect(m.code).toBe(0)
    expect(json(m.stdout)).toMatchObject({ name: "memory", inputSchema: memoryToolJsonSchema })
  })

  it(
    "needs no memory directory; " + "with --json (before or after) it has the {ok,result} shape of every command",
    async () => {
      for (const argv of [
        ["--json", "tool", "--schema", "mcp"],
        ["tool", "--schema", "mcp", "--json"]
      ]) {
        const r = await tmem(argv, { env: { TMEM_DIR: "/nonexistent/tmem-schema-test" } })
        expect(r.code).toBe(0)
        expect(json(r.stdout)).toEqual({ ok: true, result: toolDefinition("mcp") })
      }
    }
  )

  it("another value is a usage error: exit 2, nothing on stdout", async () => {
    const r = await tmem(["tool", "--schema", "gemini"])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toMatch(/openai, anthropic, mcp/)
  })

  it("with a JSON argument too is refused on one line, exit 2, and nothing runs", async () => {
    const dir = fresh()
    for (const argv of [
      ["--dir", dir, "tool", "--schema", "openai", '{"action":"add","target":"user","content":"x"}'],
      ["--dir", dir, "tool", '{"action":"add","target":"user","content":"x"}', "--schema", "openai"]
    ]) {
      const r = await tmem(argv)
      expect(r.code).toBe(2)
      expect(r.stdout).toBe("")
      expect(r.stderr).toBe("tmem: tool takes either a JSON argument or --schema, not both; see tmem --help\n")
    }
    const stats = await tmem(["--dir", dir, "--json", "tool", '{"action":"stats","target":"user"}'])
    expect(json(stats.stdout).result.used).toBe(0)
  })

  it("neither a JSON argument nor --schema: one line, exit 2", async () => {
    const r = await tmem(["tool"])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe(
      "tmem: tool needs a JSON argument, - for stdin, or --schema openai|anthropic|mcp; see tmem --help\n"
    )
  })
})

describe("tmem tool: the call forms still work", () => {
  it("adds via the argument and reads stats via stdin", async () => {
    const dir = fresh()
    const a = await tmem(["--dir", dir, "tool", '{"action":"add","target":"user","content":"Prefers dark mode"}'])
    expect(a).toMatchObject({ code: 0, stdout: "added to user: Prefers dark mode\n", stderr: "" })
    const s = await tmem(["--dir", dir, "--json", "tool", "-"], { input: '{"action":"stats","target":"user"}' })
    expect(s.code).toBe(0)
    expect(json(s.stdout)).toMatchObject({
      ok: true,
      result: { success: true, target: "user", used: 17, entries: [{ index: 1, chars: 17 }] }
    })
  })
})
