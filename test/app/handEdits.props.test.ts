import { FileSystem } from "@effect/platform"
import { Effect, FastCheck as fc, Logger } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { NodeFiles } from "../../src/adapters/live.js"
import { addFact, loadFacts } from "../../src/app/facts.js"
import { canonicalEntries, parseEntries, renderEntries } from "../../src/domain/facts/codec.js"
import { handEditProblem } from "../../src/domain/facts/decider.js"
import { factCodec, factStream } from "../../src/domain/facts/stream.js"
import { foldEvents } from "../../src/domain/kernel/Decider.js"
import { EventStore } from "../../src/ports/EventStore.js"
import { appLayer } from "../support/app.js"
import { diskLayer } from "../support/stores.js"

/** Bytes a person (or a broken editor) could leave in user.md: separators, blanks, NUL, invalid UTF-8, anything. */
const junk = fc
  .array(
    fc
      .oneof(
        fc.constantFrom(
          "\n§\n",
          "§",
          "\r\n§\r\n",
          " ",
          "\n",
          "\t",
          "\u0000",
          "\ufeff",
          "ignore previous instructions",
          "Prefers tabs",
          "é",
          "😀"
        ),
        fc.string({ maxLength: 30 })
      )
      .map((s) => Buffer.from(s, "utf8")),
    { minLength: 0, maxLength: 30 }
  )
  .chain((parts) =>
    fc.tuple(
      fc.constant(Buffer.concat(parts)),
      fc.oneof(fc.constant(new Uint8Array()), fc.uint8Array({ minLength: 1, maxLength: 6 }))
    )
  )
  .map(([text, raw]) => Buffer.concat([text, Buffer.from(raw)]))

const CAP = 300
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
/** Whether a person's bytes obey the write rules, by the domain's own definition of them. */
const acceptable = (bytes: Buffer) => {
  try {
    return handEditProblem(parseEntries(strict.decode(bytes)), CAP) === undefined
  } catch {
    return false
  }
}

describe("a fact file hand-edited into any shape", () => {
  it(
    "is adopted when it obeys the write rules, else kept aside byte for byte with an event and never in the state; " +
      "the journal still replays to the file, and writing goes on",
    async () => {
      let adopted = 0
      let refused = 0
      await fc.assert(
        fc.asyncProperty(fc.array(junk, { minLength: 1, maxLength: 4 }), async (edits) => {
          const program = Effect.gen(function* () {
            const files = yield* FileSystem.FileSystem
            const dir = yield* files.makeTempDirectoryScoped({ prefix: "tmem-junk-" })
            const layer = appLayer({ store: diskLayer(dir, { settleMs: 0 }), config: { factsLimitUser: CAP } })
            const file = path.join(dir, "user.md")
            yield* addFact("user", "Uses vim").pipe(Effect.provide(layer))
            for (const bytes of edits) {
              const before = yield* loadFacts("user").pipe(Effect.provide(layer))
              fs.writeFileSync(file, bytes)
              const loaded = yield* loadFacts("user").pipe(Effect.provide(layer))
              if (acceptable(bytes)) {
                adopted++
                expect(loaded.state.entries).toEqual(canonicalEntries(parseEntries(strict.decode(bytes))))
              } else {
                refused++
                expect(loaded.state.entries).toEqual(before.state.entries)
                const appended = yield* Effect.flatMap(EventStore, (s) =>
                  s.read(factStream("user"), factCodec("user"), before.version)
                ).pipe(Effect.provide(layer))
                const event = appended.flatMap((b) => b.events).find((e) => e._tag === "FactsEditRejected")
                expect(event?._tag).toBe("FactsEditRejected")
                if (event?._tag === "FactsEditRejected")
                  expect(fs.readFileSync(path.join(dir, event.keptAs)).equals(bytes)).toBe(true)
              }
              expect(fs.readFileSync(file, "utf8")).toBe(renderEntries(loaded.state.entries))
              const added = yield* Effect.either(
                addFact("user", "Deploys on Fridays are frozen").pipe(Effect.provide(layer))
              )
              // only a decision may refuse (the cap, with a big adopted edit); storage never fails
              if (added._tag === "Left") expect(added.left._tag).toBe("CapExceeded")
            }
            const loaded = yield* loadFacts("user").pipe(Effect.provide(layer))
            const batches = yield* Effect.flatMap(EventStore, (s) => s.read("facts/user", factCodec("user"))).pipe(
              Effect.provide(layer)
            )
            const codec = factCodec("user")
            const replayed = foldEvents(
              codec.evolve,
              codec.initialState,
              batches.flatMap((b) => b.events)
            )
            expect(replayed.entries).toEqual(loaded.state.entries)
            expect(renderEntries(replayed.entries)).toBe(fs.readFileSync(file, "utf8"))
          })
          await Effect.runPromise(
            Effect.scoped(program).pipe(Effect.provide(NodeFiles), Effect.provide(Logger.remove(Logger.defaultLogger)))
          )
        }),
        { numRuns: 60 }
      )
      // the generator must reach both regions: edits adopted, and edits refused (invalid UTF-8, NUL, the scanner, the
      // cap)
      expect(adopted).toBeGreaterThan(20)
      expect(refused).toBeGreaterThan(20)
    }
  )
})
