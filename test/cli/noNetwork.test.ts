import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { BIN, tempMemoryDir } from "../support/cli.js"

const PRELOAD = path.resolve("test/fixtures/no-network.cjs")
const run = (args: ReadonlyArray<string>) =>
  spawnSync(process.execPath, ["--require", PRELOAD, BIN, ...args], {
    encoding: "utf8",
    env: { ...process.env, TMEM_DIR: "", TMEM_CONFIG: "" }
  })

describe("the default configuration opens no socket", () => {
  it("the preload really refuses a connection (the check can fail)", () => {
    const r = spawnSync(
      process.execPath,
      ["--require", PRELOAD, "-e", "require('node:net').connect(80, '127.0.0.1')"],
      { encoding: "utf8" }
    )
    expect(r.stderr).toContain("NETWORK-ATTEMPT")
  })

  it(
    "demo, facts, tool, prompt, events, session ingest, episodes, recall and eval recall " +
      "run without a single network attempt",
    () => {
      const dir = tempMemoryDir()
      const transcript = path.join(dir, "t.json")
      const turn = (n: number) => [
        { role: "user", content: `question ${n} about the lexer` },
        { role: "assistant", content: "", tool_calls: [{ name: "shell", arguments: { command: "npm test" } }] },
        { role: "assistant", content: `answer ${n}` }
      ]
      fs.writeFileSync(
        transcript,
        JSON.stringify({ session_id: "offline", workspace: dir, messages: [...turn(1), ...turn(2), ...turn(3)] })
      )
      try {
        for (const args of [
          ["--dir", dir, "session", "ingest", transcript],
          ["--dir", dir, "episodes", "list", "--all"],
          ["--dir", dir, "episodes", "search", "lexer"],
          ["--dir", dir, "recall", "lexer question"],
          ["--dir", dir, "eval", "recall", path.resolve("test/fixtures/eval/tiny.json")],
          ["--dir", dir, "tool", '{"action":"search","query":"lexer"}'],
          ["demo"],
          ["--dir", dir, "facts", "add", "user", "Prefers dark mode"],
          ["--dir", dir, "facts", "add", "user", "Prefers dark mode in every editor"],
          ["--dir", dir, "tool", '{"action":"stats","target":"user"}'],
          ["--dir", dir, "facts", "show"],
          ["--dir", dir, "prompt"],
          ["--dir", dir, "events"]
        ]) {
          const r = run(args)
          expect(r.stderr, args.join(" ")).not.toContain("NETWORK-ATTEMPT")
          expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(0)
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }
  )
})
