import { Effect, FastCheck as fc, Layer, Option } from "effect"
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
  "lake",
  "quokka",
  "zebra"
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
  "zebra quokka lexer",
  "nothing here"
]

const fromScratch = (docs: ReadonlyMap<string, string>) => {
  const index = makeLexicalIndex()
  for (const [id, t] of [...docs].sort((a, b) => (a[0] < b[0] ? -1 : 1))) index.put({ id, stamp: t, text: t })
  return index
}

describe("the lexical index", () => {
  it(
    "after any sequence of adds, re-indexes and removals ranks exactly like one built from its current documents, " +
      "whether or not a new process took it over from its file on the way",
    () => {
      fc.assert(
        fc.property(fc.array(op, { minLength: 1, maxLength: 400, size: "max" }), fc.nat(), (ops, cut) => {
          let index = makeLexicalIndex()
          const docs = new Map<string, string>()
          // a restart at some point (ops.length: none): the rest is applied to the index read back from its file, with
          // its lists still the file's and its terms found by bisection
          const restart = cut % (ops.length + 1)
          for (const [i, o] of ops.entries()) {
            if (i === restart) {
              const next = makeLexicalIndex()
              expect(next.restore(index.serialize())).toBe(true)
              index = next
            }
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
    }
  )

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
    const other = makeLexicalIndex()
    other.put({ id: "b", stamp: "1", text: "hiking trip to the lake" })
    other.put({ id: "c", stamp: "2", text: "lake house" })
    const good = other.serialize()
    const { header, binary } = split(good)
    // binary: lengths and counts (2 × u32 each), then the term numbers (i32) and frequencies (u16) of all postings
    const termsAt = 16
    const tfsAt = termsAt + 4 * (header.postings as number)
    const patched = (at: number, value: number, width: 2 | 4) => {
      const b = binary.slice()
      if (width === 4) new DataView(b.buffer).setInt32(at, value, true)
      else new DataView(b.buffer).setUint16(at, value, true)
      return b
    }
    const index = makeLexicalIndex()
    index.put({ id: "a", stamp: "1", text: "lexer crash" })
    for (const bad of [
      new Uint8Array(0),
      utf8.encode("{"),
      // format 1 (JSON) is rebuilt, not read
      utf8.encode('{"v":1,"analyzer":"porter/1","terms":["x"],"docs":[["a","1",1,[0],[1]]]}'),
      good.subarray(0, good.length - 1),
      utf8.encode(`tmem-lexical-index 3${new TextDecoder().decode(good.subarray(20))}`),
      join({ ...header, stamps: ["1"] }, binary),
      join({ ...header, ids: ["b", "b"] }, binary),
      join({ ...header, postings: 5 }, binary.subarray(0, binary.length - 6)),
      // a term number past the term list, the same term twice in one document, a frequency of 0
      join(header, patched(termsAt, 99, 4)),
      join(header, patched(termsAt + 4, new DataView(binary.buffer).getInt32(termsAt, true), 4)),
      join(header, patched(tfsAt + 2, 0, 2))
    ])
      expect(index.restore(bad)).toBe(false)
    expect(index.search("lexer", 1)[0]!.id).toBe("a")
    // the unpatched parts make a file that reads
    expect(index.restore(join(header, binary))).toBe(true)
    expect(index.search("lake", 2).map((h) => h.id)).toEqual(other.search("lake", 2).map((h) => h.id))
  })

  it("refuses an index whose terms another analyzer made (a rebuild, never terms that cannot meet a query's)", () => {
    const other = makeLexicalIndex()
    other.put({ id: "b", stamp: "1", text: "hiking trip" })
    const { header, binary } = split(other.serialize())
    expect(header.analyzer).toBe(ANALYZER)
    const index = makeLexicalIndex()
    index.put({ id: "a", stamp: "1", text: "lexer crash" })
    const { analyzer: _, ...unnamed } = header
    for (const foreign of [unnamed, { ...header, analyzer: "light/0" }])
      expect(index.restore(join(foreign, binary))).toBe(false)
    expect(index.search("lexer", 1)[0]!.id).toBe("a")
    expect(index.restore(join(header, binary))).toBe(true)
    expect(index.search("hikes", 1)[0]!.id).toBe("b")
  })
})

const utf8 = new TextEncoder()
const MAGIC = "tmem-lexical-index 2\n"

/** A persisted index's JSON header and its binary part (after the padding to 4 bytes). */
const split = (bytes: Uint8Array) => {
  const eol = bytes.indexOf(10, MAGIC.length)
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(MAGIC.length, eol))) as Record<string, unknown>
  const head = eol + 1
  return { header, binary: bytes.slice(head + ((4 - (head % 4)) % 4)) }
}

/** The file a header and a binary part make, padded as the format says. */
const join = (header: Record<string, unknown>, binary: Uint8Array) => {
  const head = utf8.encode(`${MAGIC}${JSON.stringify(header)}\n`)
  const pad = (4 - (head.length % 4)) % 4
  const out = new Uint8Array(head.length + pad + binary.length)
  out.set(head)
  out.set(binary, head.length + pad)
  return out
}

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

  it("removes the JSON index an older version kept, once it has written its own", async () => {
    const files = MemoryDerivedFiles.make()
    const legacy = new TextEncoder().encode('{"v":1,"terms":[],"docs":[]}')
    await Effect.runPromise(files.write(LocalEpisodeSearch.LEGACY_LEXICAL_FILE, legacy))
    const layer = LocalEpisodeSearch.layer.pipe(Layer.provide(Layer.succeed(DerivedFiles, files)))
    const stored = (name: string) => Effect.runPromise(Effect.map(files.read(name), Option.isSome))
    await Effect.runPromise(Effect.flatMap(EpisodeSearch, (s) => s.indexed).pipe(Effect.provide(layer)))
    // reading alone changes nothing: only a write replaces what the old file held
    expect(await stored(LocalEpisodeSearch.LEGACY_LEXICAL_FILE)).toBe(true)
    await Effect.runPromise(
      Effect.flatMap(EpisodeSearch, (s) => s.update([{ id: "a", stamp: "s1", text: "lexer crash" }], [])).pipe(
        Effect.provide(layer)
      )
    )
    expect(await stored(LocalEpisodeSearch.LEGACY_LEXICAL_FILE)).toBe(false)
    expect(await stored(LocalEpisodeSearch.LEXICAL_FILE)).toBe(true)
  })
})
