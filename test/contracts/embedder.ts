import { describe, expect, it } from "@effect/vitest"
import { Effect, type Layer, type Scope } from "effect"
import { cosine } from "../../src/domain/embedding/index.js"
import { Embedder, fitted } from "../../src/ports/Embedder.js"

/**
 * What every Embedder adapter must do (the local spaces, the HTTP client; a hosted model later). `make` gives a layer
 * over fresh state; it may start what it needs (a scripted server) in the test's scope.
 */
export const embedderContract = (name: string, make: Effect.Effect<Layer.Layer<Embedder>, never, Scope.Scope>) =>
  describe(`Embedder contract: ${name}`, () => {
    const CORPUS = [
      "Ben adopted a beagle named Oscar from the shelter",
      "The PostgreSQL migration failed because the disk on db-3 was full",
      "Ana painted a watercolour of the sunset over Lake Tahoe"
    ]
    const run = <A, E>(f: (e: Embedder["Type"]) => Effect.Effect<A, E>) =>
      Effect.gen(function* () {
        const layer = yield* make
        return yield* Effect.flatMap(Embedder, f).pipe(Effect.provide(layer))
      })
    const plain = (vs: ReadonlyArray<Float32Array>) => vs.map((v) => Array.from(v))

    it.scopedLive("one vector per text, in the order asked, all of the space's length; none for no texts", () =>
      run((e) =>
        Effect.gen(function* () {
          const texts = [CORPUS[2]!, "a beagle from the shelter", CORPUS[0]!]
          const vs = yield* e.embed(CORPUS, texts)
          expect(vs).toHaveLength(3)
          for (const v of vs) {
            expect(v.length).toBeGreaterThan(0)
            if (e.space.dims > 0) expect(v.length).toBe(e.space.dims)
            expect(v.every(Number.isFinite)).toBe(true)
          }
          expect(plain(yield* e.embed(CORPUS, [...texts].reverse()))).toEqual(plain(vs).reverse())
          expect(yield* e.embed(CORPUS, [])).toEqual([])
        })
      )
    )

    it.scopedLive("the same call gives the same vectors, and a vector handed out cannot change what comes next", () =>
      run((e) =>
        Effect.gen(function* () {
          const first = yield* e.embed(CORPUS, CORPUS)
          const kept = plain(first)
          first[0]!.fill(0)
          expect(plain(yield* e.embed(CORPUS, CORPUS))).toEqual(kept)
        })
      )
    )

    it.scopedLive("a fitted embedder (fit, or embed by default) gives what embed gives on the same corpus", () =>
      run((e) =>
        Effect.gen(function* () {
          const texts = ["what was the beagle called", CORPUS[1]!]
          const embed = yield* fitted(e, CORPUS)
          expect(plain(yield* embed(texts))).toEqual(plain(yield* e.embed(CORPUS, texts)))
        })
      )
    )

    it.scopedLive(
      "a text is closest to itself; " +
        "similarities, when offered, are one finite value in [-1, 1] per corpus text and agree",
      () =>
        run((e) =>
          Effect.gen(function* () {
            const vs = yield* e.embed(CORPUS, [...CORPUS, CORPUS[0]!])
            const query = vs[CORPUS.length]!
            const cosines = CORPUS.map((_, i) => cosine(query, vs[i]!))
            expect(cosines.indexOf(Math.max(...cosines))).toBe(0)
            if (e.similarities === undefined) return
            const sims = yield* e.similarities(CORPUS, CORPUS[0]!)
            expect(sims).toHaveLength(CORPUS.length)
            for (const s of sims) expect(Number.isFinite(s) && s >= -1 - 1e-9 && s <= 1 + 1e-9).toBe(true)
            expect(sims.indexOf(Math.max(...sims))).toBe(0)
            expect(sims[0]).toBeCloseTo(1, 9)
            // they answer what the vectors' cosines estimate
            sims.forEach((s, i) => expect(Math.abs(s - cosines[i]!)).toBeLessThan(0.25))
          })
        )
    )
  })
