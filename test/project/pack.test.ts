import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const pkg = JSON.parse(fs.readFileSync("package.json", "utf8")) as {
  license: string
  engines: { node: string }
  dependencies: Record<string, string>
}
const temp: Array<string> = []
afterAll(() => temp.forEach((d) => fs.rmSync(d, { recursive: true, force: true })))

describe("the npm package", () => {
  it(
    "ships the built library with its types, the CLI, the docs and the licence, and no tests, " +
      "sources or bundle map",
    () => {
      const r = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { encoding: "utf8" })
      expect(r.status, r.stderr).toBe(0)
      const listed = (JSON.parse(r.stdout) as Array<{ files: Array<{ path: string; size: number }> }>)[0]!.files
      const files = listed.map((f) => f.path)
      for (const f of [
        "dist/index.js",
        "dist/index.d.ts",
        "dist/testing.js",
        "dist/testing.d.ts",
        "dist/bin.js",
        "dist/tmem.cjs",
        "README.md",
        "docs/CLI.md",
        "package.json",
        "LICENSE"
      ])
        expect(files).toContain(f)
      expect(files.some((f) => f.startsWith("dist/adapters/facade/openMemory.d.ts"))).toBe(true)
      expect(
        files.filter(
          (f) => f.startsWith("test/") || f.startsWith("src/") || f.startsWith("bench/") || f.includes(".cache")
        )
      ).toEqual([])
      // the bundle's source map maps into every bundled dependency: 11 MB nobody installing the package needs
      expect(files).not.toContain("dist/tmem.cjs.map")
      expect(listed.filter((f) => f.size > 2_000_000).map((f) => f.path)).toEqual([])
    }
  )

  it("the licence file is the licence package.json names, and the README asks for the Node that engines does", () => {
    expect(pkg.license).toBe("MIT")
    expect(fs.readFileSync("LICENSE", "utf8")).toMatch(/^MIT License\n/)
    const min = /^>=(\d+\.\d+)$/.exec(pkg.engines.node)![1]!
    expect(fs.readFileSync("README.md", "utf8")).toContain(`Node ${min} or later`)
  })

  it("installed from its tarball, it loads with require() from CommonJS and with import, and its CLI runs", () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-pack-"))
    temp.push(work)
    const packed = spawnSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], {
      encoding: "utf8"
    })
    expect(packed.status, packed.stderr).toBe(0)
    const tarball = path.join(work, (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!.filename)
    // what `npm install <tarball>` puts in place, without the network: the package's files under node_modules,
    // its dependencies taken from this checkout's node_modules
    const app = path.join(work, "app")
    const installed = path.join(app, "node_modules", "tiered-memory")
    fs.mkdirSync(installed, { recursive: true })
    expect(spawnSync("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"]).status).toBe(0)
    fs.symlinkSync(path.resolve("node_modules"), path.join(installed, "node_modules"), "dir")
    fs.writeFileSync(
      path.join(app, "main.cjs"),
      `const { openMemory } = require("tiered-memory")
openMemory({ dir: process.argv[2] }).then(async (m) => {
  console.log(JSON.stringify(await m.tool({ action: "add", target: "user", content: "Prefers CommonJS" })))
  await m.close()
})
`
    )
    fs.writeFileSync(
      path.join(app, "main.mjs"),
      `import * as main from "tiered-memory"\n` +
        `import { startScriptedServer } from "tiered-memory/testing"\n` +
        `console.log(typeof main.openMemory, typeof startScriptedServer, "startScriptedServer" in main)\n`
    )
    const cjs = spawnSync(process.execPath, ["main.cjs", path.join(work, "memory")], { cwd: app, encoding: "utf8" })
    expect(cjs.stderr).toBe("")
    expect(JSON.parse(cjs.stdout)).toMatchObject({ success: true, message: "added to user: Prefers CommonJS" })
    // the scripted server is for tests: it has its own entry, not the main one
    expect(spawnSync(process.execPath, ["main.mjs"], { cwd: app, encoding: "utf8" }).stdout).toBe(
      "function function false\n"
    )
    const version = spawnSync(process.execPath, [path.join(installed, "dist", "bin.js"), "--version"], {
      encoding: "utf8"
    })
    expect(version.stdout).toBe("tmem 0.1.0\n")
  })
})
