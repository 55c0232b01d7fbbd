import { describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type Step, stepsOf } from "../../src/app/simulation.js"
import { tmem } from "../support/cli.js"

const scratch = () => fs.mkdtempSync(path.join(os.tmpdir(), "tmem-simulate-cli-"))

describe("tmem simulate", () => {
  it("replays a list of steps from a file, and --json reports every run with what it reached", async () => {
    const dir = scratch()
    try {
      const file = path.join(dir, "steps.json")
      const steps: ReadonlyArray<Step> = stepsOf(5, 30, { disk: false })
      fs.writeFileSync(file, JSON.stringify(steps))
      const replayed = await tmem(["simulate", "--seed", "5", "--replay", file])
      expect(replayed).toMatchObject({ code: 0, stderr: "" })
      // the file holds seed 5's first 30 steps: the same run as naming them
      const named = await tmem(["simulate", "--seed", "5", "--steps", "30"])
      expect(replayed.stdout).toBe(named.stdout)
      const json = await tmem(["--json", "simulate", "--seeds", "2", "--steps", "20", "--world", "disk"])
      const out = JSON.parse(json.stdout) as { ok: boolean; result: { runs: ReadonlyArray<{ seed: number }> } }
      expect(out.ok).toBe(true)
      expect(out.result.runs.map((r) => r.seed)).toEqual([1, 2])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("a replay file that is not a list of steps is refused on one line before anything runs", async () => {
    const dir = scratch()
    try {
      for (const text of ["not json", '[{"kind":"add","target":"nobody"}]', '{"kind":"restart"}']) {
        const file = path.join(dir, "bad.json")
        fs.writeFileSync(file, text)
        const r = await tmem(["simulate", "--replay", file])
        expect(r.code).toBe(1)
        expect(r.stderr).toBe(`tmem: ${file} is not a list of steps written by tmem simulate; run it again\n`)
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
