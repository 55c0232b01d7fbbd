import { Effect, Layer } from "effect"
import * as fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import * as MemoryDerivedFiles from "../../../src/adapters/memory/MemoryDerivedFiles.js"
import * as LocalEpisodeSearch from "../../../src/adapters/search/LocalEpisodeSearch.js"
import { DerivedFiles } from "../../../src/ports/DerivedFiles.js"
import { EpisodeSearch } from "../../../src/ports/EpisodeSearch.js"
import * as PgDerivedFiles from "../../../src/adapters/postgres/PgDerivedFiles.js"
import * as PgEpisodeSearch from "../../../src/adapters/postgres/PgEpisodeSearch.js"
import { derivedFilesContract } from "../../contracts/derivedFiles.js"
import { episodeSearchContract } from "../../contracts/episodeSearch.js"
import { dropMemory, freshMemoryId, PG_SCHEMA, PG_URL, runPg } from "../../support/postgres.js"

const used: Array<string> = []
const memory = () => {
  const id = freshMemoryId()
  used.push(id)
  return id
}
afterAll(() => Effect.runPromise(Effect.forEach(used, dropMemory, { discard: true })))

describe.runIf(runPg)("PostgreSQL", () => {
  episodeSearchContract("PostgreSQL full-text search (tsvector, BM25 in SQL)", () => {
    const options = { url: PG_URL, schema: PG_SCHEMA, memory: memory() }
    return { layer: PgEpisodeSearch.layer(options), reopen: () => PgEpisodeSearch.layer(options) }
  })
  derivedFilesContract(
    "PostgreSQL",
    Effect.sync(() => {
      const options = { url: PG_URL, schema: PG_SCHEMA, memory: memory() }
      return { layer: PgDerivedFiles.layer(options), reopen: PgDerivedFiles.layer(options) }
    })
  )
})

describe.runIf(runPg)("PostgreSQL search ranks as the local index does", () => {
  it("property: same documents, same query → the same scores, coverage and order (ties by id)", async () => {
    const words = ["deploy", "staging", "port", "8443", "vim", "postgres", "lexer", "emoji", "billing", "ticket"]
    const doc = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 25 }).map((ws) => ws.join(" "))
    await fc.assert(
      fc.asyncProperty(
        fc.array(doc, { minLength: 1, maxLength: 25 }),
        fc.array(fc.constantFrom(...words, "absent"), { minLength: 1, maxLength: 4 }),
        async (texts, query) => {
          const docs = texts.map((text, i) => ({ id: `d${String(i).padStart(2, "0")}`, stamp: "1", text }))
          const answer = (layer: Layer.Layer<EpisodeSearch>) =>
            Effect.runPromise(
              Effect.flatMap(EpisodeSearch, (s) =>
                Effect.zipRight(
                  s.update(docs, []),
                  Effect.zip(s.search(query.join(" "), 10), s.termWeights(query.join(" ")))
                )
              ).pipe(Effect.provide(layer))
            )
          const local = await answer(
            LocalEpisodeSearch.layer.pipe(Layer.provide(Layer.succeed(DerivedFiles, MemoryDerivedFiles.make())))
          )
          const remote = await answer(PgEpisodeSearch.layer({ url: PG_URL, schema: PG_SCHEMA, memory: memory() }))
          const shape = ([found, weights]: typeof local) => ({
            found: found.map((m) => `${m.id}:${m.score.toFixed(9)}:${m.coverage.toFixed(9)}`),
            weights: [...weights].map(([t, w]) => `${t}:${w.toFixed(9)}`).sort()
          })
          expect(shape(remote)).toEqual(shape(local))
        }
      ),
      { numRuns: 40 }
    )
  }, 120_000)
})
