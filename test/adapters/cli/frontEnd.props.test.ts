import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { command } from "../../../src/adapters/cli/cli.js"
import { commandTree, frontEnd } from "../../../src/adapters/cli/help.js"

const tree = commandTree(command)
const GLOBALS: ReadonlyArray<ReadonlyArray<string>> = [
  ["--json"],
  ["-v"],
  ["--dir", "/tmp/m"],
  ["--approve", "deny"],
  ["--llm-model=m"],
  ["--config", "-weird-name.json"]
]
/** Commands with their words and a valid rest: arguments and their own options. */
const CALLS: ReadonlyArray<{ path: ReadonlyArray<string>; rest: ReadonlyArray<string> }> = [
  { path: ["facts", "add"], rest: ["user", "Prefers vim"] },
  { path: ["facts", "show"], rest: [] },
  { path: ["episodes", "search"], rest: ["--limit", "3", "lexer"] },
  { path: ["tool"], rest: ["--schema", "openai"] },
  { path: ["tool"], rest: ["-"] },
  { path: ["events"], rest: ["-f"] },
  { path: ["facts", "revert"], rest: ["--target", "env", "-7"] }
]

/** Spreads the global options over the command line: before, between and after the command's words. */
const scattered = fc
  .record({
    call: fc.constantFrom(...CALLS),
    globals: fc.subarray([...GLOBALS], { minLength: 1 }),
    seed: fc.array(fc.nat(), { minLength: 6, maxLength: 6 })
  })
  .map(({ call, globals, seed }) => {
    const words: Array<ReadonlyArray<string>> = [...call.path.map((w) => [w]), ...call.rest.map((w) => [w])]
    // an option's value must follow it: keep [--limit, 3] together
    const units: Array<ReadonlyArray<string>> = []
    for (let i = 0; i < words.length; i++) {
      const w = words[i]![0]!
      units.push(["--limit", "--schema", "--target"].includes(w) ? [w, words[++i]![0]!] : [w])
    }
    const line = [...units]
    const positions: Array<number> = []
    globals.forEach((g, i) => {
      const at = seed[i]! % (line.length + 1)
      positions.push(at)
      line.splice(at, 0, g)
    })
    // the globals as they now appear, left to right
    const ordered = line.filter((u) => globals.includes(u))
    return { call, globals: ordered, units: line, line: line.flat(), after: positions.some((p) => p > 0) }
  })

describe("the command line front end", () => {
  it(
    "global options work anywhere: the parsed line is the globals in order, " + "then the command, then its own words",
    () => {
      let afterCommand = 0
      fc.assert(
        fc.property(scattered, ({ call, globals, line, after }) => {
          if (after) afterCommand++
          const r = frontEnd(tree, "0.1.0", line)
          expect(r).toEqual({
            _tag: "Run",
            args: [...globals.flat(), ...call.path, ...call.rest],
            json: globals.some((g) => g[0] === "--json")
          })
        }),
        { numRuns: 400 }
      )
      expect(afterCommand).toBeGreaterThan(200)
    }
  )

  it("--help anywhere is help for the command named, and an unknown option anywhere is one usage error", () => {
    fc.assert(
      fc.property(scattered, fc.nat(), fc.constantFrom("--help", "-h", "--bogus"), ({ call, units }, n, extra) => {
        // between two words, never between an option and its value
        const at = n % (units.length + 1)
        const withExtra = [...units.slice(0, at), [extra], ...units.slice(at)]
        const line = withExtra.flat()
        const r = frontEnd(tree, "0.1.0", line)
        if (extra === "--bogus") expect(r).toMatchObject({ _tag: "Usage", message: "unknown option --bogus" })
        else if (r._tag === "Help")
          expect(r.text.startsWith("Usage: tmem ") || r.text.startsWith("tmem 0.1.0")).toBe(true)
        else expect.unreachable(`no help for ${line.join(" ")}`)
        if (extra !== "--bogus" && line.indexOf(extra) > line.indexOf(call.path[call.path.length - 1]!))
          expect((r as { text: string }).text).toMatch(new RegExp(`^Usage: tmem ${call.path.join(" ")}`))
      }),
      { numRuns: 300 }
    )
  })
})
