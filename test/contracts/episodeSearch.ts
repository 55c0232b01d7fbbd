import { Effect, type Layer } from "effect"
import { describe, expect, it } from "vitest"
import { EpisodeSearch } from "../../src/ports/EpisodeSearch.js"

/**
 * What every EpisodeSearch adapter must do (the local BM25 index today; a database's full-text search later).
 * `fresh` gives a layer over empty storage each call; `reopen` (optional) a second layer over the same storage, as
 * a new process would open it. Scores are the adapter's own, so the contract checks order and membership only.
 */
export const episodeSearchContract = (
  name: string,
  fresh: () => { readonly layer: Layer.Layer<EpisodeSearch>; readonly reopen?: () => Layer.Layer<EpisodeSearch> }
) =>
  describe(`EpisodeSearch contract: ${name}`, () => {
    const DOCS = [
      { id: "a", stamp: "1", text: "Ben adopted a beagle named Oscar from the shelter" },
      { id: "b", stamp: "1", text: "The PostgreSQL migration failed because the disk on db-3 was full" },
      { id: "c", stamp: "1", text: "Ana painted a watercolour of the sunset over Lake Tahoe" }
    ]
    const run = <A>(layer: Layer.Layer<EpisodeSearch>, f: (s: EpisodeSearch["Type"]) => Effect.Effect<A>) =>
      Effect.runPromise(Effect.flatMap(EpisodeSearch, f).pipe(Effect.provide(layer)))

    it("an empty index holds nothing and finds nothing", async () => {
      const { layer } = fresh()
      const [indexed, found] = await run(layer, (s) => Effect.zip(s.indexed, s.search("anything at all", 5)))
      expect(indexed.size).toBe(0)
      expect(found).toEqual([])
    })

    it("finds a document by its rare words, best first, with coverage in 0–1; never more than asked", async () => {
      const { layer } = fresh()
      const [found, one] = await run(layer, (s) =>
        Effect.zipRight(
          s.update(DOCS, []),
          Effect.zip(s.search("what was the beagle called", 5), s.search("disk full db-3 migration sunset", 1))
        )
      )
      expect(found[0]!.id).toBe("a")
      for (const m of found) expect(m.coverage >= 0 && m.coverage <= 1).toBe(true)
      expect(one).toHaveLength(1)
      expect(one[0]!.id).toBe("b")
    })

    it("says what it holds; a put replaces the document of its id; a removal is gone from every answer", async () => {
      const { layer } = fresh()
      const [indexed, replaced, removed] = await run(layer, (s) =>
        Effect.gen(function* () {
          yield* s.update(DOCS, [])
          yield* s.update([{ id: "a", stamp: "2", text: "Ben adopted a cat named Miso" }], ["c"])
          return [
            yield* s.indexed,
            yield* s.search("beagle Oscar", 5),
            yield* s.search("sunset Tahoe watercolour", 5)
          ] as const
        })
      )
      expect(new Map(indexed)).toEqual(
        new Map([
          ["a", "2"],
          ["b", "1"]
        ])
      )
      expect(replaced.map((m) => m.id)).not.toContain("a")
      expect(removed).toEqual([])
    })

    it("weighs a rare query term above a common one", async () => {
      const { layer } = fresh()
      const weights = await run(layer, (s) =>
        Effect.zipRight(
          s.update(
            [
              ...DOCS,
              { id: "d", stamp: "1", text: "Ben and Ana talked about Ben's week" },
              { id: "e", stamp: "1", text: "Ben went home" }
            ],
            []
          ),
          s.termWeights("Ben Oscar")
        )
      )
      expect(weights.get("oscar")!).toBeGreaterThan(weights.get("ben")!)
    })

    it("a stop-word-only or unknown query finds nothing", async () => {
      const { layer } = fresh()
      const [stop, unknown] = await run(layer, (s) =>
        Effect.zipRight(
          s.update(DOCS, []),
          Effect.zip(s.search("what did you do with it", 5), s.search("quantum chromodynamics", 5))
        )
      )
      expect(stop).toEqual([])
      expect(unknown).toEqual([])
    })

    it("what it held is there again when the storage is opened anew", async () => {
      const f = fresh()
      if (f.reopen === undefined) return
      await run(f.layer, (s) => s.update(DOCS, ["x"]))
      const [indexed, found] = await run(f.reopen(), (s) => Effect.zip(s.indexed, s.search("beagle", 5)))
      expect(new Map(indexed)).toEqual(new Map(DOCS.map((d) => [d.id, d.stamp] as const)))
      expect(found[0]!.id).toBe("a")
    })

    it(
      "keeps the mark of the last update, " +
        "across a reopening when it persists, and an update without one clears it",
      async () => {
        const { layer, reopen } = fresh()
        const marks = await run(layer, (s) =>
          Effect.gen(function* () {
            const before = yield* s.inStepWith
            yield* s.update(DOCS, [], "episodes@3")
            const after = yield* s.inStepWith
            // nothing to index, only a new name for the same documents
            yield* s.update([], [], "episodes@4")
            return [before, after, yield* s.inStepWith]
          })
        )
        expect(marks).toEqual([undefined, "episodes@3", "episodes@4"])
        if (reopen !== undefined) {
          const again = reopen()
          expect(await run(again, (s) => s.inStepWith)).toBe("episodes@4")
          expect(await run(again, (s) => Effect.zipRight(s.update([], ["c"]), s.inStepWith))).toBeUndefined()
          expect((await run(reopen(), (s) => s.indexed)).has("c")).toBe(false)
        }
      }
    )
  })
