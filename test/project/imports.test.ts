import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

/** DESIGN §1: imports point inward only — domain ← ports ← app ← adapters ← bin/index. */
const LAYERS = ["domain", "ports", "app", "adapters"] as const
type Layer = (typeof LAYERS)[number]
const allowed: Record<Layer, ReadonlyArray<Layer>> = {
  domain: ["domain"],
  ports: ["domain", "ports"],
  app: ["domain", "ports", "app"],
  adapters: ["domain", "ports", "app", "adapters"]
}

const files = (dir: string): Array<string> =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []
    )

const importsOf = (file: string) => {
  const text = fs.readFileSync(file, "utf8")
  return [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)
  ].map((m) => (m[1] ?? m[2])!)
}

const SRC = path.resolve("src")
const layerOf = (file: string): Layer | undefined => LAYERS.find((l) => file.startsWith(path.join(SRC, l) + path.sep))

describe("import direction", () => {
  const all = files(SRC)

  it("finds the source tree", () => {
    expect(all.length).toBeGreaterThan(20)
  })

  for (const layer of LAYERS) {
    it(`${layer} imports only ${allowed[layer].join(", ")}`, () => {
      const violations: Array<string> = []
      for (const file of all.filter((f) => layerOf(f) === layer)) {
        for (const spec of importsOf(file)) {
          if (!spec.startsWith(".")) continue
          const target = layerOf(path.resolve(path.dirname(file), spec))
          if (target === undefined || !allowed[layer].includes(target))
            violations.push(`${path.relative(SRC, file)} → ${spec}`)
        }
      }
      expect(violations).toEqual([])
    })
  }

  it("domain is pure: no node:*, no platform, no undici, no clock or randomness", () => {
    const violations: Array<string> = []
    for (const file of all.filter((f) => layerOf(f) === "domain")) {
      const text = fs.readFileSync(file, "utf8")
      for (const spec of importsOf(file)) {
        if (
          spec.startsWith("node:") ||
          spec.startsWith("@effect/platform") ||
          spec === "undici" ||
          ["fs", "path", "os", "crypto", "child_process"].includes(spec)
        )
          violations.push(`${path.relative(SRC, file)} imports ${spec}`)
      }
      if (/Date\.now\(|new Date\(|Math\.random\(|process\./.test(text))
        violations.push(`${path.relative(SRC, file)} reads the clock, randomness or the process`)
    }
    expect(violations).toEqual([])
  })

  it("ports import no adapter technology", () => {
    const violations = all
      .filter((f) => layerOf(f) === "ports" || layerOf(f) === "app")
      .flatMap((f) =>
        importsOf(f)
          .filter(
            (s) =>
              s.startsWith("node:") ||
              s.startsWith("@effect/platform") ||
              s === "undici" ||
              s === "fs-native-extensions"
          )
          .map((s) => `${path.relative(SRC, f)} imports ${s}`)
      )
    expect(violations).toEqual([])
  })
})
