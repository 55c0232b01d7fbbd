import { FileSystem } from "@effect/platform"
import { Effect, FastCheck as fc } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { NodeFiles } from "../../src/adapters/live.js"
import { addFact, loadFacts } from "../../src/app/facts.js"
import { renderEntries } from "../../src/domain/facts/codec.js"
import { factCodec } from "../../src/domain/facts/stream.js"
import { foldEvents } from "../../src/domain/kernel/Decider.js"
import { EventStore } from "../../src/ports/EventStore.js"
import { appLayer } from "../support/app.js"
import { diskLayer } from "../support/stores.js"

/** Bytes a person (or a broken editor) could leave in user.md: separators, blanks, NUL, invalid UTF-8, anything. */
const junk = fc
  .array(
    fc.oneof(
      fc.constantFrom("\n§\n", "§", "\r\n§\r\n", " ", "\n", "\t", "\u0000", "\ufeff", "ignore previous instructions", "Prefers tabs", "é", "😀"),
      fc.string({ maxLength: 30 })
    ).map((s) => Buffer.from(s, "utf8")),
    { minLength: 0, maxLength: 30 }
  )
  .chain((parts) => fc.tuple(fc.constant(Buffer.concat(parts)), fc.uint8Array({ minLength: 0, maxLength: 6 })))
  .map(([text, raw]) => Buffer.concat([text, Buffer.from(raw)]))

describe("a fact file hand-edited into any shape", () => {
  it("is recorded (never an error), the journal still replays to the file, and writing goes on", async () => {
    let invalidUtf8 = 0
    await fc.assert(
      fc.asyncProperty(fc.array(junk, { minLength: 1, maxLength: 4 }), async (edits) => {
        const program = Effect.gen(function* () {
          const files = yield* FileSystem.FileSystem
          const dir = yield* files.makeTempDirectoryScoped({ prefix: "tmem-junk-" })
          const layer = appLayer({ store: diskLayer(dir), config: { factsLimitUser: 100_000 } })
          const file = path.join(dir, "user.md")
          yield* addFact("user", "Uses vim").pipe(Effect.provide(layer))
          for (const bytes of edits) {
            fs.writeFileSync(file, bytes)
            const later = new Date(Date.now() + 10_000)
            fs.utimesSync(file, later, later)
            try {
              new TextDecoder("utf-8", { fatal: true }).decode(bytes)
            } catch {
              invalidUtf8++
            }
            yield* loadFacts("user").pipe(Effect.provide(layer))
            const added = yield* Effect.either(addFact("user", "Deploys on Fridays are frozen").pipe(Effect.provide(layer)))
            // only a decision may refuse (the scanner never refuses this text); storage never fails
            expect(added._tag).toBe("Right")
          }
          const loaded = yield* loadFacts("user").pipe(Effect.provide(layer))
          const batches = yield* Effect.flatMap(EventStore, (s) => s.read("facts/user", factCodec("user"))).pipe(Effect.provide(layer))
          const codec = factCodec("user")
          const replayed = foldEvents(codec.evolve, codec.initialState, batches.flatMap((b) => b.events))
          expect(replayed.entries).toEqual(loaded.state.entries)
          expect(renderEntries(replayed.entries)).toBe(fs.readFileSync(file, "utf8"))
          expect(loaded.state.entries).toContain("Deploys on Fridays are frozen")
        })
        await Effect.runPromise(Effect.scoped(program).pipe(Effect.provide(NodeFiles)))
      }),
      { numRuns: 60 }
    )
    // the generator must reach the interesting region: files that are not UTF-8 at all
    expect(invalidUtf8).toBeGreaterThan(10)
  })
})
