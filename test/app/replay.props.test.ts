import { FileSystem } from "@effect/platform"
import { Effect, FastCheck as fc, Logger } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { NodeFiles } from "../../src/adapters/live.js"
import { addFact, loadFacts, removeFact, replaceFact } from "../../src/app/facts.js"
import { renderEntries, usedBytes } from "../../src/domain/facts/codec.js"
import { foldEvents } from "../../src/domain/kernel/Decider.js"
import { factCodec } from "../../src/domain/facts/stream.js"
import { EventStore } from "../../src/ports/EventStore.js"
import { utf8Bytes } from "../../src/domain/text/utf8.js"
import { longEntry, validEntry, WORDS } from "../domain/facts/arbitraries.js"
import { appLayer } from "../support/app.js"
import { diskLayer } from "../support/stores.js"

const step = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("add" as const), text: fc.oneof(validEntry, longEntry) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("replace" as const), pick: fc.nat(), text: validEntry }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("remove" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("handEdit" as const), pick: fc.nat(), text: validEntry }) }
)

const CAP = 900

describe("journal replay (property b)", () => {
  it(
    "replaying the journal from version 0 reproduces the projection byte for byte, through adds, merges, " +
      "caps and hand edits",
    async () => {
      let capHits = 0
      let handEdits = 0
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 15, maxLength: 40 }), async (steps) => {
          const program = Effect.gen(function* () {
            const files = yield* FileSystem.FileSystem
            const dir = yield* files.makeTempDirectoryScoped({ prefix: "tmem-replay-" })
            // saves here are complete at once: no settle interval needed
            const layer = appLayer({ store: diskLayer(dir, { settleMs: 0 }), config: { factsLimitUser: CAP } })
            const file = path.join(dir, "user.md")
            for (const s of steps) {
              const entries = (yield* loadFacts("user").pipe(Effect.provide(layer))).state.entries
              const pickEntry = (n: number) => entries[n % Math.max(1, entries.length)]
              const r = yield* Effect.either(
                s.kind === "add"
                  ? addFact("user", s.text)
                  : s.kind === "replace"
                    ? replaceFact("user", pickEntry(s.pick) ?? WORDS[s.pick % WORDS.length]!, s.text)
                    : s.kind === "remove"
                      ? removeFact("user", pickEntry(s.pick) ?? WORDS[s.pick % WORDS.length]!)
                      : Effect.sync(() => {
                          // a person appends a line in their editor, any size: an edit over the cap is refused and kept
                          // aside
                          handEdits++
                          fs.writeFileSync(
                            file,
                            `${fs.existsSync(file) ? fs.readFileSync(file, "utf8") : ""}\n§\n${s.text}\n`
                          )
                        })
              ).pipe(Effect.provide(layer))
              if (r._tag === "Left" && r.left._tag === "CapExceeded") capHits++
            }
            const loaded = yield* loadFacts("user").pipe(Effect.provide(layer))
            const batches = yield* Effect.flatMap(EventStore, (st) => st.read("facts/user", factCodec("user"))).pipe(
              Effect.provide(layer)
            )
            const codec = factCodec("user")
            const replayed = foldEvents(
              codec.evolve,
              codec.initialState,
              batches.flatMap((b) => b.events)
            )
            const projection = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : ""
            expect(renderEntries(replayed.entries)).toBe(projection)
            expect(replayed.entries).toEqual(loaded.state.entries)
            expect(usedBytes(loaded.state.entries)).toBe(utf8Bytes(projection))
            expect(batches[batches.length - 1]?.version ?? 0).toBe(loaded.version)
          })
          await Effect.runPromise(
            Effect.scoped(program).pipe(Effect.provide(NodeFiles), Effect.provide(Logger.remove(Logger.defaultLogger)))
          )
        }),
        { numRuns: 40 }
      )
      expect(capHits).toBeGreaterThan(20)
      expect(handEdits).toBeGreaterThan(20)
    }
  )
})
