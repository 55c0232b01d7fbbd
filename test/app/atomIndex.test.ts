import { Effect, Layer, LogLevel, Logger } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type ScriptedServer, startScriptedServer } from "../../src/adapters/dev/ScriptedServer.js"
import * as DiskDerivedFiles from "../../src/adapters/disk/DiskDerivedFiles.js"
import { ATOM_META_FILE, ATOM_VECTORS_FILE } from "../../src/app/AtomIndex.js"
import { addAtoms, atomIndexStatus, compactAtoms, forgetAtom, searchAtoms } from "../../src/app/atoms.js"
import { DEFAULT_EXTENDED } from "../../src/domain/config/MemoryConfig.js"
import { decodeVectors } from "../../src/domain/episodes/vectorsFile.js"
import { scriptedEmbedder } from "../support/llm.js"
import { appLayer } from "../support/app.js"
import { diskLayer } from "../support/stores.js"

let server: ScriptedServer
// one dimension per distinct word: texts sharing words point the same way
const vocabulary = new Map<string, number>()
const vectorOf = (text: string) => {
  const v = Array.from({ length: 64 }, () => 0)
  for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
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

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})
const tempDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-atom-index-"))
  dirs.push(d)
  return d
}

/** Texts each embeddings request carried, in order. */
const embedded = () => server.requests.map((r) => (r.body as { input: Array<string> }).input)

// semantic dedup and links off: the write path would ask the embedder too, and these tests count what the index asks
const ON = {
  extended: {
    ...DEFAULT_EXTENDED,
    enabled: true,
    semanticDedupThreshold: 0,
    associationSemanticTopK: 0,
    semanticSearchMinScore: 0.3
  }
}
/** One process: its own layer (index state) over the disk store and the derived files of `dir`. */
const processOn = (dir: string) =>
  Layer.merge(
    Logger.minimumLogLevel(LogLevel.Error),
    appLayer({
      store: diskLayer(dir),
      config: ON,
      embedder: scriptedEmbedder(server),
      derived: DiskDerivedFiles.layer({ dir: path.join(dir, "extended") })
    })
  )
const inProcess = <A, E>(layer: Layer.Layer<any>, effect: Effect.Effect<A, E, any>) =>
  Effect.runPromise(Effect.provide(effect, layer) as Effect.Effect<A, E>)

const trusted = (text: string) => ({ text, type: "fact", source_class: "user_said" })

describe("the atom vector index (spec extended §8)", () => {
  it("embeds live trusted atoms only, re-embeds only what changed; a new process loads what was saved", async () => {
    const dir = tempDir()
    const first = processOn(dir)
    const texts = ["The API listens on port 8080", "Deploys go through the blue green pipeline"]
    await inProcess(
      first,
      Effect.gen(function* () {
        yield* addAtoms(texts.map(trusted))
        // tainted: quarantined, never in the recallable space
        yield* addAtoms([{ text: "The web page says the API port is 9999", type: "fact", source_class: "web" }])
        server.reset()
        const hits = yield* searchAtoms("which port does the API listen on")
        expect(hits.map((h) => h.atom.text)).toEqual([texts[0]])
        // the corpus in one request, then the query
        expect(embedded()).toEqual([texts, ["which port does the API listen on"]])
        expect(yield* atomIndexStatus()).toEqual({ vectors: 2, current: true, saved: true })

        yield* addAtoms([trusted("Releases are tagged from the main branch")])
        expect((yield* atomIndexStatus()).current).toBe(false)
        server.reset()
        expect((yield* searchAtoms("main branch releases")).map((h) => h.atom.text)).toEqual([
          "Releases are tagged from the main branch"
        ])
        // a stateless embedder: only the new atom is embedded, then the query
        expect(embedded()).toEqual([["Releases are tagged from the main branch"], ["main branch releases"]])
      })
    )
    const saved = decodeVectors(new Uint8Array(fs.readFileSync(path.join(dir, "extended", ATOM_VECTORS_FILE))))
    expect(saved?.ids).toHaveLength(3)
    expect(JSON.parse(fs.readFileSync(path.join(dir, "extended", ATOM_META_FILE), "utf8"))).toMatchObject({
      corpus: expect.stringMatching(/^3:[0-9a-f]{16}$/)
    })

    server.reset()
    await inProcess(
      processOn(dir),
      Effect.gen(function* () {
        expect((yield* searchAtoms("blue green deploys")).map((h) => h.atom.text)).toEqual([texts[1]])
        // the saved index is current: only the query is embedded
        expect(embedded()).toEqual([["blue green deploys"]])
      })
    )
  })

  it("a forgotten atom leaves the index and recall; compact rebuilds from the live atoms and saves", async () => {
    const dir = tempDir()
    await inProcess(
      processOn(dir),
      Effect.gen(function* () {
        const landed = yield* addAtoms([trusted("The cache lives in Redis"), trusted("The queue is RabbitMQ")])
        const first = landed[0]!
        const id = first.kind === "stored" ? first.atom.id : ""
        expect((yield* searchAtoms("Redis cache")).length).toBe(1)
        yield* forgetAtom(id)
        expect(yield* searchAtoms("Redis cache")).toEqual([])
        expect(yield* compactAtoms()).toBe(1)
        const saved = decodeVectors(new Uint8Array(fs.readFileSync(path.join(dir, "extended", ATOM_VECTORS_FILE))))
        expect(saved?.ids).toHaveLength(1)
        expect(yield* atomIndexStatus()).toEqual({ vectors: 1, current: true, saved: true })
      })
    )
  })

  it("a failing embedder leaves recall to the words, is left alone 30 s; compact reports it", async () => {
    const dir = tempDir()
    await inProcess(
      processOn(dir),
      Effect.gen(function* () {
        yield* addAtoms([trusted("The cache lives in Redis"), trusted("Deploys go out on Tuesdays")])
        server.reset()
        server.enqueue({ kind: "status", status: 503 })
        // the lexical half alone: the atom whose words answer the query, the other not at all
        const words = (yield* searchAtoms("Redis cache")).map((h) => h.atom.text)
        expect(words).toEqual(["The cache lives in Redis"])
        expect(yield* searchAtoms("Which weekday do deploys go out?")).toEqual([]) // too little of it matched
        expect((yield* searchAtoms("Redis cache")).length).toBe(1) // backing off: no request
        expect(embedded()).toHaveLength(1)
        server.enqueue({ kind: "status", status: 503 })
        const failed = yield* Effect.flip(compactAtoms())
        expect(failed.message).toMatch(/503/)
        expect(yield* atomIndexStatus()).toEqual({ vectors: 0, current: false, saved: false })
      })
    )
  })
})
