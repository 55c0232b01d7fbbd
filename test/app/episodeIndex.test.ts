import * as LocalEpisodeSearch from "../../src/adapters/search/LocalEpisodeSearch.js"
import { Layer, LogLevel, Logger, ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type ScriptedServer, startScriptedServer } from "../../src/adapters/dev/ScriptedServer.js"
import * as DiskDerivedFiles from "../../src/adapters/disk/DiskDerivedFiles.js"
import * as NoneLlm from "../../src/adapters/llm/NoneLlm.js"
import * as Notifiers from "../../src/adapters/notify/Notifiers.js"
import { withBackoff } from "../../src/app/embedBackoff.js"
import { EpisodeIndex, META_FILE, VECTORS_FILE } from "../../src/app/EpisodeIndex.js"
import type { Embedder } from "../../src/ports/Embedder.js"
import { storeEpisode } from "../../src/app/episodes.js"
import { recallContext } from "../../src/app/recall.js"
import { Settings } from "../../src/app/Settings.js"
import { DEFAULT_CONFIG } from "../../src/domain/config/MemoryConfig.js"
import { buildVectorIndex } from "../../src/domain/embedding/vector.js"
import { decodeVectors, encodeVectors } from "../../src/domain/episodes/vectorsFile.js"
import { scriptedEmbedder } from "../support/llm.js"
import { diskLayer } from "../support/stores.js"

let server: ScriptedServer
// one dimension per distinct word: texts sharing words point the same way
const vocabulary = new Map<string, number>()
const vectorOf = (text: string) => {
  const v = Array.from({ length: 64 }, () => 0)
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    if (!vocabulary.has(w)) vocabulary.set(w, vocabulary.size % 64)
    v[vocabulary.get(w)!]! += 1
  }
  return v
}
beforeAll(async () => {
  server = await startScriptedServer({
    handler: (r) => ({ kind: "embeddings", vectors: (r.body as { input: Array<string> }).input.map(vectorOf) })
  })
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const inputs = () => server.requests.map((r) => (r.body as { input: Array<string> }).input.length)
// the failures these tests provoke are logged as warnings: keep the run quiet
const runtimeFor = (dir: string, embedder: Layer.Layer<Embedder> = scriptedEmbedder(server)) =>
  ManagedRuntime.make(
    Layer.merge(
      Logger.minimumLogLevel(LogLevel.Error),
      Layer.merge(EpisodeIndex.layer, LocalEpisodeSearch.layer).pipe(
        Layer.provide(DiskDerivedFiles.layer({ dir })),
        Layer.provideMerge(
          Layer.mergeAll(
            diskLayer(dir),
            embedder,
            NoneLlm.layer,
            Settings.layer({ ...DEFAULT_CONFIG, episodeDedupThreshold: 0 }),
            Notifiers.silent
          )
        )
      )
    )
  )

const SUMMARIES = [
  "The agent fixed the lexer crash.",
  "The agent wrote deploy manifests.",
  "The agent documented the CLI."
]

describe("persisted episode index (spec episodes §9)", () => {
  it(
    "after a failed rebuild the backend is left alone for the same episodes, " + "but a new episode retries at once",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-index-"))
      try {
        const rt = runtimeFor(dir)
        for (const [i, s] of SUMMARIES.entries())
          await rt.runPromise(storeEpisode({ sessionId: `e${i}`, summary: s, turns: 3, provenance: {}, source: "llm" }))
        server.reset()
        server.enqueue({ kind: "status", status: 503 })
        // the rebuild failed: the words alone still find the episode (hybrid recall degrades to its lexical half)
        expect(await rt.runPromise(recallContext("lexer crash"))).toContain("[e0]")
        expect(await rt.runPromise(recallContext("lexer crash"))).toContain("[e0]") // backing off: no request at all
        expect(inputs()).toEqual([3])
        await rt.runPromise(
          storeEpisode({
            sessionId: "e3",
            summary: "The agent tuned the cache.",
            turns: 3,
            provenance: {},
            source: "llm"
          })
        )
        server.reset()
        expect(await rt.runPromise(recallContext("lexer crash"))).toContain("[e0]") // fresh data, fresh attempt
        expect(inputs()[0]).toBe(4)
        await rt.dispose()
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }
  )

  it(
    "behind the live embedder's 30 s back-off too, " + "a new episode retries at once once the server is back",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-index-"))
      try {
        // as the live layer composes an http embedder: the whole-embedder back-off in front of it (default 30 s)
        const rt = runtimeFor(dir, withBackoff().pipe(Layer.provide(scriptedEmbedder(server))))
        for (const [i, s] of SUMMARIES.entries())
          await rt.runPromise(storeEpisode({ sessionId: `e${i}`, summary: s, turns: 3, provenance: {}, source: "llm" }))
        server.reset()
        server.enqueue({ kind: "status", status: 503 })
        expect(await rt.runPromise(recallContext("lexer crash"))).toContain("[e0]") // the lexical half alone
        expect(await rt.runPromise(recallContext("lexer crash"))).toContain("[e0]") // both back-offs hold: no request
        expect(inputs()).toEqual([3])
        // the server is back; a new episode is written: recall works now, not 30 s later
        await rt.runPromise(
          storeEpisode({
            sessionId: "e3",
            summary: "The agent tuned the cache.",
            turns: 3,
            provenance: {},
            source: "llm"
          })
        )
        expect(await rt.runPromise(recallContext("lexer crash"))).toContain("[e0]")
        await rt.dispose()
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }
  )

  it("the vectors file round-trips and anything malformed is no file", () => {
    const index = buildVectorIndex([Float32Array.from([3, 4]), Float32Array.from([0, 0])])
    const bytes = encodeVectors({ ids: ["a", "b"], index })
    expect(decodeVectors(bytes)).toEqual({ ids: ["a", "b"], index })
    expect(decodeVectors(bytes.subarray(0, bytes.length - 1))).toBeUndefined()
    expect(decodeVectors(new TextEncoder().encode("gob"))).toBeUndefined()
  })

  it(
    "a new process loads the persisted vectors instead of embedding the corpus; " + "a changed corpus rebuilds",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-index-"))
      try {
        const first = runtimeFor(dir)
        for (const [i, s] of SUMMARIES.entries())
          await first.runPromise(
            storeEpisode({ sessionId: `e${i}`, summary: s, turns: 3, provenance: {}, source: "llm" })
          )
        server.reset()
        expect(await first.runPromise(recallContext("lexer crash"))).toContain("[e0]")
        expect(inputs()).toEqual([3, 1]) // the rebuild's batch, then the query
        // the index is saved in the background; closing the memory waits for the save
        await first.dispose()
        expect(fs.existsSync(path.join(dir, VECTORS_FILE))).toBe(true)
        expect(JSON.parse(fs.readFileSync(path.join(dir, META_FILE), "utf8"))).toMatchObject({
          corpus: expect.stringMatching(/^3:[0-9a-f]{16}$/)
        })

        server.reset()
        const second = runtimeFor(dir)
        expect(await second.runPromise(recallContext("lexer crash"))).toContain("[e0]")
        expect(inputs()).toEqual([1]) // only the query: the corpus came from the file
        await second.runPromise(
          storeEpisode({
            sessionId: "e3",
            summary: "The agent tuned the cache.",
            turns: 3,
            provenance: {},
            source: "llm"
          })
        )
        server.reset()
        await second.dispose()

        const third = runtimeFor(dir)
        await third.runPromise(recallContext("cache"))
        expect(inputs()[0]).toBe(4) // the corpus fingerprint changed: rebuilt over all four
        await third.dispose()

        // a meta from another embedding space is not used
        fs.writeFileSync(
          path.join(dir, META_FILE),
          JSON.stringify({ fingerprint: "rp/256", corpus: "4:0000000000000000" })
        )
        server.reset()
        const fourth = runtimeFor(dir)
        await fourth.runPromise(recallContext("cache"))
        expect(inputs()[0]).toBe(4)
        await fourth.dispose()
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }
  )
})
