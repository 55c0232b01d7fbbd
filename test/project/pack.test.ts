import { spawnSync } from "node:child_process"
import { describe, expect, it } from "vitest"

describe("the npm package", () => {
  it("ships the built library with its types, the CLI and the docs, and no tests or sources", () => {
    const r = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { encoding: "utf8" })
    expect(r.status, r.stderr).toBe(0)
    const files = (JSON.parse(r.stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path)
    for (const f of ["dist/index.js", "dist/index.d.ts", "dist/bin.js", "dist/tmem.cjs", "README.md", "docs/CLI.md", "package.json"]) expect(files).toContain(f)
    expect(files.some((f) => f.startsWith("dist/adapters/facade/openMemory.d.ts"))).toBe(true)
    expect(files.filter((f) => f.startsWith("test/") || f.startsWith("src/") || f.startsWith("bench/") || f.includes(".cache"))).toEqual([])
  })
})
