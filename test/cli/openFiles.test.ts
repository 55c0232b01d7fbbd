import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { BIN, tempDirs } from "../support/cli.js"

const { fresh } = tempDirs(afterAll)
const COUNT = 1_500
const id = (i: number) => `20260101-${i.toString(16).padStart(8, "0")}`

/** tmem in a child whose open-files limit is 1,024, as on many systems by default. */
const limited = (args: ReadonlyArray<string>) =>
  spawnSync("prlimit", ["--nofile=1024", process.execPath, BIN, ...args], {
    encoding: "utf8",
    env: { ...process.env, TMEM_DIR: "", TMEM_CONFIG: "" },
    maxBuffer: 64 * 1024 * 1024
  })

describe("many episode files under a 1,024 open-files limit", () => {
  it(
    `imports an odek directory of ${COUNT.toLocaleString("en")} episodes (one write of ` +
      `${COUNT.toLocaleString("en")} summary files)`,
    () => {
      const dir = fresh()
      const index = Array.from({ length: COUNT }, (_, i) => ({
        session_id: id(i),
        turns: 3,
        created_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
        summary: `Session ${i}: the agent fixed the parser.`,
        provenance: {}
      }))
      fs.writeFileSync(path.join(dir, "index.json"), JSON.stringify(index))
      for (const e of index) fs.writeFileSync(path.join(dir, `${e.session_id}.md`), `${e.summary} The tests pass.`)
      const r = limited(["--dir", dir, "--json", "episodes", "list", "--all"])
      expect(r.stderr).toBe("")
      expect(r.stdout.slice(0, 300)).toMatch(/^\{"ok":true/)
      expect(r.status).toBe(0)
      const listed = JSON.parse(r.stdout) as { ok: boolean; result: ReadonlyArray<{ session_id: string }> }
      expect(listed.ok).toBe(true)
      expect(listed.result).toHaveLength(COUNT)
      // the import was written: the journal holds it, and every summary file is the projection of it
      expect(fs.readFileSync(path.join(dir, "journal", "episodes.jsonl"), "utf8").split("\n")).toHaveLength(2)
      expect(fs.readFileSync(path.join(dir, `${id(COUNT - 1)}.md`), "utf8")).toBe(
        `Session ${COUNT - 1}: the agent fixed the parser. The tests pass.`
      )
      expect(fs.readdirSync(dir).filter((n) => n.includes(".tmp-"))).toEqual([])
      expect(limited(["--dir", dir, "episodes", "show", id(7)]).stdout).toContain(
        "Session 7: the agent fixed the parser. The tests pass."
      )
    },
    60_000
  )
})
