// The config file (and the environment it reads): any document or bytes give a config or a one-line refusal naming
// the file, never an exception, and reading it changes nothing.
import { Arbitrary, Effect, Either, Exit, FastCheck as fc } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { loadConfigFile } from "../../src/adapters/disk/configFile.js"
import { NodeFiles } from "../../src/adapters/live.js"
import {
  ConfigFile,
  decodeConfig,
  EmbeddingSection,
  EXTENDED_ENABLED_ENV,
  ExtendedSection,
  GUARD_SCAN_MEMORY_ENV,
  GuardSection,
  LlmSection,
  MemorySection
} from "../../src/domain/config/MemoryConfig.js"
import {
  anyBytes,
  anyJson,
  anyText,
  deeplyNested,
  expectOneLine,
  expectSameFiles,
  oversized,
  snapshotDir,
  tally,
  truncated
} from "./support.js"

/** A value for a known key: the right type most of the time (edge numbers, URLs, `$VAR`s), any JSON otherwise. */
const setting = fc.oneof(
  { weight: 2, arbitrary: fc.boolean() },
  { weight: 2, arbitrary: fc.constantFrom(0, -1, 1, 0.5, 3, 99, 100, 4000, 1e308, 2 ** 53, 1.5) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "openai",
      "none",
      "local",
      "http",
      "rp",
      "llm",
      "http://127.0.0.1:11434/v1",
      "https://api.example.com/v1/",
      "ftp://x",
      "$TMEM_FUZZ_URL",
      "${TMEM_FUZZ_URL}/v1",
      "llama3.1",
      "TMEM_FUZZ_KEY",
      "postgres://u@h:5432/db",
      ""
    )
  },
  { weight: 2, arbitrary: anyText() },
  { weight: 1, arbitrary: anyJson }
)

/** A block with some of its known keys, now and then an unknown (hostile) one. */
const block = (keys: ReadonlyArray<string>, nested: Record<string, fc.Arbitrary<unknown>> = {}) =>
  fc
    .tuple(
      fc
        .subarray([...keys], { maxLength: Math.min(4, keys.length) })
        .chain((ks) => fc.tuple(...ks.map((k) => (nested[k] ?? setting).map((v) => [k, v] as const)))),
      fc.oneof({ weight: 4, arbitrary: fc.constant([]) }, fc.array(fc.tuple(anyText(12), anyJson), { maxLength: 2 })),
      fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, fc.constant(true))
    )
    .map(([known, unknown, nulls]) =>
      Object.fromEntries([...known, ...unknown].map(([k, v]) => [k, nulls ? null : v] as const))
    )

const keysOf = (s: { readonly fields: Record<string, unknown> }) => Object.keys(s.fields)
const embedding = block(keysOf(EmbeddingSection))
const llm = block(keysOf(LlmSection))
const extended = block(keysOf(ExtendedSection), { llm, embedding })
const memory = block(keysOf(MemorySection), { embedding, extended })
const guard = block(keysOf(GuardSection), { scan: block(["memory"]) })

/** A document the schema accepts (it may still name an unusable model or store), one key then set to anything. */
const valid = Arbitrary.make(ConfigFile)
const mutated = fc
  .tuple(valid, fc.constantFrom("memory", "llm", "guard", "embedding"), anyText(12), fc.oneof(setting, anyJson))
  .map(([doc, section, key, value]) => {
    const inner = (doc as Record<string, unknown>)[section]
    const base = typeof inner === "object" && inner !== null ? inner : {}
    const keys = Object.keys(base)
    const name = keys.length > 0 && key.length % 2 === 0 ? keys[key.length % keys.length]! : key
    return { ...doc, [section]: { ...base, [name]: value } }
  })

/** A config document: the file's sections, right in shape and wrong in detail; or any JSON at all. */
const document: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: valid },
  { weight: 3, arbitrary: mutated },
  {
    weight: 3,
    arbitrary: block(["memory", "embedding", "llm", "guard", "store", "odek"], { memory, embedding, llm, guard })
  },
  { weight: 1, arbitrary: fc.record({ memory: anyJson, llm: anyJson, guard: anyJson }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: anyJson }
)

/** The environment the config reads: its two switches, and the variables a `$VAR` or `api_key_env` names. */
const environment = fc.record(
  {
    [GUARD_SCAN_MEMORY_ENV]: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom("true", "false", "1", "0", "", " TRUE ") },
      { weight: 1, arbitrary: anyText() }
    ),
    [EXTENDED_ENABLED_ENV]: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom("true", "false", "", "0") },
      { weight: 1, arbitrary: anyText() }
    ),
    TMEM_FUZZ_URL: fc.oneof(fc.constantFrom("http://localhost:8080", "", "not a url"), anyText()),
    TMEM_FUZZ_KEY: anyText()
  },
  { requiredKeys: [] }
)

describe("decodeConfig on any document and environment (2,000 runs, pure)", () => {
  it("never throws; a refusal is one printable line starting config:", () => {
    const seen = tally()
    fc.assert(
      fc.property(document, environment, (json, env) => {
        const r = decodeConfig(json, env)
        seen.hit(Either.isLeft(r) ? "refused" : "accepted")
        if (Either.isLeft(r)) {
          expectOneLine(r.left.message)
          expect(r.left.message).toMatch(/^config: /)
        }
      }),
      { numRuns: 2_000 }
    )
    expect(seen.of("refused"), seen.toString()).toBeGreaterThan(200)
    expect(seen.of("accepted"), seen.toString()).toBeGreaterThan(100)
  })
})

const dirs: Array<string> = []
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true })
})

/** What a config file may hold: a document's JSON (cut short, with a BOM, padded), other JSON, or any bytes. */
const fileBytes = fc.oneof(
  { weight: 4, arbitrary: document.map((d) => Buffer.from(JSON.stringify(d) ?? "null")) },
  { weight: 2, arbitrary: document.chain((d) => truncated(JSON.stringify(d) ?? "").map((t) => Buffer.from(t))) },
  { weight: 1, arbitrary: document.map((d) => Buffer.from(`\ufeff${JSON.stringify(d)}`)) },
  { weight: 1, arbitrary: document.map((d) => Buffer.from(` \n${JSON.stringify(d, null, 2)}\n\u0000`)) },
  { weight: 1, arbitrary: anyBytes },
  { weight: 1, arbitrary: deeplyNested.map((t) => Buffer.from(t)) },
  { weight: 1, arbitrary: oversized.map((t) => Buffer.from(JSON.stringify({ memory: { [t]: 1 } }))) }
)

describe("loadConfigFile on any file (400 runs)", () => {
  it("never fails with anything but a one-line ConfigInvalid naming the file, and leaves the file alone", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-fuzz-config-"))
    dirs.push(dir)
    const seen = tally()
    // the file's name is outside input too: a person may keep the config anywhere
    const names = fc.constantFrom("config.json", "my config.json", "ünï cödé.json", "-.json")
    await fc.assert(
      fc.asyncProperty(fileBytes, names, fc.boolean(), environment, async (bytes, name, required, env) => {
        const file = path.join(dir, name)
        fs.writeFileSync(file, bytes)
        const before = snapshotDir(dir)
        const exit = await Effect.runPromiseExit(loadConfigFile(file, required, env).pipe(Effect.provide(NodeFiles)))
        expectSameFiles(before, snapshotDir(dir), "loading the config")
        if (Exit.isSuccess(exit)) return void seen.hit("loaded")
        const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
        if (failure === undefined) throw new Error(`not a plain failure: ${String(exit.cause)}`)
        seen.hit("refused")
        expect(failure._tag).toBe("ConfigInvalid")
        // the path is the caller's; the rest of the line must be printable whatever the file held
        expect(failure.message).toContain(file)
        expectOneLine(failure.message.replaceAll(file, "<file>"))
      }),
      { numRuns: 400 }
    )
    expect(seen.of("refused"), seen.toString()).toBeGreaterThan(100)
    expect(seen.of("loaded"), seen.toString()).toBeGreaterThan(15)
  })
})
