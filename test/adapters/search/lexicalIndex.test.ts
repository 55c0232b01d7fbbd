import { Effect, FastCheck as fc, Layer } from "effect"
import { describe, expect, it } from "vitest"
import * as MemoryDerivedFiles from "../../../src/adapters/memory/MemoryDerivedFiles.js"
import * as LocalEpisodeSearch from "../../../src/adapters/search/LocalEpisodeSearch.js"
import { makeLexicalIndex } from "../../../src/adapters/search/lexicalIndex.js"
import { DerivedFiles } from "../../../src/ports/DerivedFiles.js"
import { EpisodeSearch } from "../../../src/ports/EpisodeSearch.js"
import { ANALYZER } from "../../../src/domain/search/terms.js"

// a small vocabulary, so documents share terms and document frequencies move with every change
const WORDS = [
  "lexer",
  "crash",
  "deploy",
  "argo",
  "tokenizer",
  "cache",
  "redis",
  "port",
  "8080",
  "vim",
  "helix",
  "paint",
  "sunset",
  "lake"
]
const text = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 12 }).map((ws) => ws.join(" "))
const op = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("put" as const), id: fc.integer({ min: 0, max: 30 }), text }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("remove" as const), id: fc.integer({ min: 0, max: 30 }) }) }
)
const QUERIES = [
  "lexer crash",
  "argo deploy 8080",
  "vim",
  "paint the sunset at the lake",
  "redis cache port",
  "nothing here"
]

const fromScratch = (docs: ReadonlyMap<string, string>) => {
  const index = makeLexicalIndex()
  for (const [id, t] of [...docs].sort((a, b) => (a[0] < b[0] ? -1 : 1))) index.put({ id, stamp: t, text: t })
  return index
}

describe("the lexical index", () => {
  it("after any sequence of adds, re-indexes and removals ranks exactly like one built from its current documents", () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 400, size: "max" }), (ops) => {
        const index = makeLexicalIndex()
        const docs = new Map<string, string>()
        for (const o of ops) {
          const id = `e${o.id}`
          if (o.kind === "put") {
            index.put({ id, stamp: o.text, text: o.text })
            docs.set(id, o.text)
          } else {
            index.remove(id)
            docs.delete(id)
          }
        }
        const fresh = fromScratch(docs)
        expect(index.size()).toBe(docs.size)
        expect(index.stamps()).toEqual(fresh.stamps())
        for (const q of QUERIES) {
          const got = index.search(q, 50)
          const want = fresh.search(q, 50)
          expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id))
          got.forEach((h, i) => {
            expect(h.score).toBeCloseTo(want[i]!.score, 9)
            expect(h.coverage).toBeCloseTo(want[i]!.coverage, 9)
          })
        }
        // and what it writes reads back as the same index
        const restored = makeLexicalIndex()
        expect(restored.restore(index.serialize())).toBe(true)
        for (const q of QUERIES)
          expect(restored.search(q, 50).map((h) => h.id)).toEqual(fresh.search(q, 50).map((h) => h.id))
      }),
      { numRuns: 300 }
    )
  })

  it("scores rare words over common ones, and a query of only stop words or unknown words finds nothing", () => {
    const index = makeLexicalIndex()
    index.put({ id: "a", stamp: "1", text: "Caroline went to the lake and painted the sunset" })
    index.put({ id: "b", stamp: "1", text: "Caroline talked about her day at work" })
    index.put({ id: "c", stamp: "1", text: "Caroline adopted a dog named Oscar" })
    expect(index.search("What did Caroline paint at the lake?", 3)[0]!.id).toBe("a")
    expect(index.search("what did you do", 3)).toEqual([])
    expect(index.search("quantum chromodynamics", 3)).toEqual([])
    const [hit] = index.search("Oscar the dog", 3)
    expect(hit!.id).toBe("c")
    expect(hit!.coverage).toBeGreaterThan(0.3)
  })

  it("refuses a damaged or foreign file and keeps what it holds", () => {
    const index = makeLexicalIndex()
    index.put({ id: "a", stamp: "1", text: "lexer crash" })
    const analyzer = JSON.stringify(ANALYZER)
    for (const bad of [
      "",
      "{",
      "[]",
      `{"v":2,"analyzer":${analyzer},"terms":[],"docs":[]}`,
      `{"v":1,"analyzer":${analyzer},"terms":["x"],"docs":[["a","1",1,[5],[1]]]}`,
      `{"v":1,"analyzer":${analyzer},"terms":["x"],"docs":[["a","1",1,[0],[0]]]}`
    ])
      expect(index.restore(bad)).toBe(false)
    expect(index.search("lexer", 1)[0]!.id).toBe("a")
  })

  it("refuses an index whose terms another analyzer made (a rebuild, never terms that cannot meet a query's)", () => {
    const other = makeLexicalIndex()
    other.put({ id: "b", stamp: "1", text: "hiking trip" })
    const written = JSON.parse(other.serialize()) as Record<string, unknown>
    const index = makeLexicalIndex()
    index.put({ id: "a", stamp: "1", text: "lexer crash" })
    // an index written before terms were stemmed names no analyzer
    const { analyzer: _, ...unnamed } = written
    for (const foreign of [unnamed, { ...written, analyzer: "light/0" }])
      expect(index.restore(JSON.stringify(foreign))).toBe(false)
    expect(index.search("lexer", 1)[0]!.id).toBe("a")
    expect(index.restore(JSON.stringify(written))).toBe(true)
    expect(index.search("hikes", 1)[0]!.id).toBe("b")
  })
})

describe("LocalEpisodeSearch", () => {
  it("a new process reads the persisted index instead of re-indexing; a damaged file is an empty index", async () => {
    const files = MemoryDerivedFiles.make()
    const layer = LocalEpisodeSearch.layer.pipe(Layer.provide(Layer.succeed(DerivedFiles, files)))
    await Effect.runPromise(
      Effect.flatMap(EpisodeSearch, (s) =>
        s.update([{ id: "a", stamp: "s1", text: "the lexer crash was fixed" }], [])
      ).pipe(Effect.provide(layer))
    )
    const again = await Effect.runPromise(
      Effect.flatMap(EpisodeSearch, (s) => Effect.zip(s.indexed, s.search("lexer crash", 5))).pipe(
        Effect.provide(layer)
      )
    )
    expect([...again[0]]).toEqual([["a", "s1"]])
    expect(again[1].map((m) => m.id)).toEqual(["a"])
    await Effect.runPromise(files.write(LocalEpisodeSearch.LEXICAL_FILE, new TextEncoder().encode("{ damaged")))
    const damaged = await Effect.runPromise(Effect.flatMap(EpisodeSearch, (s) => s.indexed).pipe(Effect.provide(layer)))
    expect(damaged.size).toBe(0)
  })
})
