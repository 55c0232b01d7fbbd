import { describe, expect, it } from "@effect/vitest"
import { Effect, type Layer, Option, type Scope } from "effect"
import { DerivedFiles } from "../../src/ports/DerivedFiles.js"

/**
 * What every DerivedFiles adapter must do: files that only save work, so a read answers None for anything missing and
 * a write replaces the whole file. `make` gives a layer over fresh storage and, when the storage can be opened again
 * (a directory), a second layer over the same storage, as a new process would.
 */
export const derivedFilesContract = (
  name: string,
  make: Effect.Effect<
    { readonly layer: Layer.Layer<DerivedFiles>; readonly reopen?: Layer.Layer<DerivedFiles> },
    never,
    Scope.Scope
  >
) =>
  describe(`DerivedFiles contract: ${name}`, () => {
    const bytes = (s: string) => new TextEncoder().encode(s)
    const text = (o: Option.Option<Uint8Array>) => Option.map(o, (b) => new TextDecoder().decode(b))

    it.scopedLive(
      "a file never written reads as None; a written one reads back byte for byte, replaced whole by the next write",
      () =>
        Effect.gen(function* () {
          const { layer } = yield* make
          yield* Effect.gen(function* () {
            const files = yield* DerivedFiles
            expect(Option.isNone(yield* files.read("episodes.vec"))).toBe(true)
            yield* files.write("episodes.vec", bytes("first, longer content"))
            expect(text(yield* files.read("episodes.vec"))).toEqual(Option.some("first, longer content"))
            yield* files.write("episodes.vec", bytes("second"))
            expect(text(yield* files.read("episodes.vec"))).toEqual(Option.some("second"))
            yield* files.write("empty.bin", new Uint8Array(0))
            expect(Option.map(yield* files.read("empty.bin"), (b) => b.length)).toEqual(Option.some(0))
            expect(Option.isNone(yield* files.read("other.vec"))).toBe(true)
          }).pipe(Effect.provide(layer))
        })
    )

    it.scopedLive("a removed file reads as None, others stay; removing what is not there is no error", () =>
      Effect.gen(function* () {
        const { layer, reopen } = yield* make
        yield* Effect.gen(function* () {
          const files = yield* DerivedFiles
          yield* files.write("old.json", bytes("format 1"))
          yield* files.write("new.bin", bytes("format 2"))
          yield* files.remove("old.json")
          yield* files.remove("never-written.json")
          expect(Option.isNone(yield* files.read("old.json"))).toBe(true)
          expect(text(yield* files.read("new.bin"))).toEqual(Option.some("format 2"))
        }).pipe(Effect.provide(layer))
        if (reopen !== undefined)
          expect(
            Option.isNone(yield* Effect.flatMap(DerivedFiles, (f) => f.read("old.json")).pipe(Effect.provide(reopen)))
          ).toBe(true)
      })
    )

    it.scopedLive("what was written is there for the next opening of the same storage", () =>
      Effect.gen(function* () {
        const { layer, reopen } = yield* make
        if (reopen === undefined) return
        yield* Effect.flatMap(DerivedFiles, (f) => f.write("episodes.vec", bytes("kept"))).pipe(Effect.provide(layer))
        expect(
          text(yield* Effect.flatMap(DerivedFiles, (f) => f.read("episodes.vec")).pipe(Effect.provide(reopen)))
        ).toEqual(Option.some("kept"))
      })
    )
  })
