// The memory tool's arguments, as an agent sends them (a JSON string) or a library caller does (a value): any input
// gives a result object, a refusal is one printable line, and a refused call leaves the memory directory as it was.
import { Effect, Either, Exit, FastCheck as fc, ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { addFact } from "../../src/app/facts.js"
import { decodeToolArgs, MemoryToolArgs, parseToolArgs, runMemoryTool } from "../../src/app/memoryTool.js"
import { DEFAULT_CONFIG } from "../../src/domain/config/MemoryConfig.js"
import { appLayer } from "../support/app.js"
import { diskLayer } from "../support/stores.js"
import {
  anyJson,
  anyText,
  deeplyNested,
  expectOneLine,
  expectSameFiles,
  expectToolError,
  messageProblem,
  snapshotDir,
  tally,
  truncated,
  withExtraKeys
} from "./support.js"

const FIELDS = Object.keys(MemoryToolArgs.fields)

/** What an agent may put in the tool's argument string. */
const argumentText = fc.oneof(
  { weight: 8, arbitrary: withExtraKeys.map((v) => JSON.stringify(v)) },
  { weight: 2, arbitrary: withExtraKeys.chain((v) => truncated(JSON.stringify(v)).map((t) => t.toString())) },
  { weight: 1, arbitrary: anyJson.map((v) => JSON.stringify(v) ?? "undefined") },
  { weight: 1, arbitrary: anyText() },
  { weight: 1, arbitrary: deeplyNested },
  { weight: 1, arbitrary: withExtraKeys.map((v) => `\ufeff${JSON.stringify(v)}`) },
  // numbers JSON.stringify never writes: 1e999 parses as Infinity
  {
    weight: 1,
    arbitrary: fc
      .tuple(withExtraKeys, fc.constantFrom("1e999", "-1e999", "1e-999", "-0"))
      .map(([v, n]) => JSON.stringify({ ...v, confidence: "@raw@" }).replace('"@raw@"', n))
  },
  { weight: 1, arbitrary: withExtraKeys.map((v) => `${JSON.stringify(v)}\u0000`) }
)

/** Either form runMemoryTool takes: the string, or a value (an object of the right shape, or anything at all). */
const toolInput = fc.oneof(
  { weight: 2, arbitrary: argumentText },
  { weight: 4, arbitrary: withExtraKeys },
  { weight: 1, arbitrary: anyJson },
  { weight: 1, arbitrary: fc.anything() }
)

describe("parseToolArgs and decodeToolArgs on any input (2,000 runs each, pure)", () => {
  it("parseToolArgs: never throws; a refusal is one printable line; what it accepts is the tool's object", () => {
    const seen = tally()
    fc.assert(
      fc.property(argumentText, (text) => {
        const r = parseToolArgs(text)
        if (Either.isLeft(r)) {
          seen.hit("refused")
          expectOneLine(r.left)
          expect(r.left).toMatch(/^invalid arguments: /)
        } else {
          seen.hit("accepted")
          expect(typeof r.right.action).toBe("string")
          for (const k of Object.keys(r.right)) expect(FIELDS).toContain(k)
        }
      }),
      { numRuns: 2_000 }
    )
    expect(seen.of("refused"), seen.toString()).toBeGreaterThan(200)
    expect(seen.of("accepted"), seen.toString()).toBeGreaterThan(200)
  })

  it("decodeToolArgs: never throws, whatever the value; a refusal is one printable line", () => {
    fc.assert(
      fc.property(fc.oneof(withExtraKeys, anyJson, fc.anything()), (value) => {
        const r = decodeToolArgs(value)
        if (Either.isLeft(r)) expectOneLine(r.left)
        else expect(typeof r.right.action).toBe("string")
      }),
      { numRuns: 2_000 }
    )
  })
})

const dirs: Array<string> = []
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true })
})

/** A memory directory with a few facts in both files, and the app over it (one store, as in a long-lived agent). */
const seededMemory = async (extended: boolean) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-fuzz-tool-"))
  dirs.push(dir)
  const runtime = ManagedRuntime.make(
    appLayer({
      store: diskLayer(dir),
      // no cap consolidation: it runs in the background after an add, and would write while a later input is judged
      config: {
        factsLimitUser: 600,
        consolidateAtCapPct: 0,
        extended: { ...DEFAULT_CONFIG.extended, enabled: extended }
      }
    })
  )
  await runtime.runPromise(
    Effect.all([
      addFact("user", "Prefers tabs over spaces"),
      addFact("user", "Uses vim with relative line numbers"),
      addFact("env", "Deploys go through Argo CD")
    ])
  )
  return { dir, runtime }
}

describe("runMemoryTool over a memory on disk, on any input", () => {
  for (const extended of [false, true])
    it(`never fails or dies; a refusal is one printable line and changes no file (500 runs, extended ${
      extended ? "on" : "off"
    })`, async () => {
      const { dir, runtime } = await seededMemory(extended)
      const seen = tally()
      try {
        await fc.assert(
          fc.asyncProperty(toolInput, fc.boolean(), async (input, subagent) => {
            const before = snapshotDir(dir)
            const exit = await runtime.runPromiseExit(runMemoryTool(input, { subagent }))
            if (Exit.isFailure(exit)) throw new Error(`the tool failed: ${String(exit.cause)}`)
            const result = exit.value
            expect(typeof result.success).toBe("boolean")
            if (result.success) {
              seen.hit("succeeded")
              return
            }
            seen.hit(String(result.error).startsWith("invalid arguments") ? "invalid arguments" : "refused")
            seen.hit(expectToolError(result.error))
            expectSameFiles(before, snapshotDir(dir), `refused with ${JSON.stringify(result.error)}`)
          }),
          { numRuns: 500 }
        )
      } finally {
        await runtime.dispose()
      }
      expect(seen.of("invalid arguments"), seen.toString()).toBeGreaterThan(20)
      expect(seen.of("refused"), seen.toString()).toBeGreaterThan(30)
      expect(seen.of("succeeded"), seen.toString()).toBeGreaterThan(10)
    })
})

// a sanity check of the checker itself: it must see what it is meant to catch
it("the one-line check catches newlines, control characters and line separators", () => {
  for (const bad of ["a\nb", "a\rb", "a\u0000", "\u001b[31m", "\u2028", "\u0085", ""])
    expect(messageProblem(bad)).toBeDefined()
  expect(messageProblem('memory: no entry contains "\\n" — é 😀')).toBeUndefined()
})

it("the cap refusal is told apart from any other refusal", async () => {
  const add = (content: string) => runMemoryTool({ action: "add", target: "user", content })
  const refused = await Effect.runPromise(
    Effect.zipRight(add("Prefers tabs over spaces in every file"), add("Deploys go through Argo CD on Fridays")).pipe(
      Effect.provide(appLayer({ config: { factsLimitUser: 60 } }))
    )
  )
  expect(refused.success).toBe(false)
  expect(expectToolError(refused.success ? "" : refused.error)).toBe("cap refusal")
  expect(expectToolError('memory: no entry contains "x"')).toBe("refusal")
})
