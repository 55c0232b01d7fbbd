import { Effect, FastCheck as fc, Layer } from "effect"
import { describe, expect, it } from "vitest"
import * as MemoryDerivedFiles from "../../src/adapters/memory/MemoryDerivedFiles.js"
import * as LocalEpisodeSearch from "../../src/adapters/search/LocalEpisodeSearch.js"
import { discardEpisode, loadEpisodes, promoteEpisode, storeEpisode } from "../../src/app/episodes.js"
import { recallDetailed } from "../../src/app/recall.js"
import { syncSearch } from "../../src/app/retrieval.js"
import { isPendingReview } from "../../src/domain/sessions/provenance.js"
import { EpisodeSearch } from "../../src/ports/EpisodeSearch.js"
import { appLayer } from "../support/app.js"

const WORDS = ["lexer", "crash", "argo", "deploy", "redis", "cache", "vim", "helix", "sunset", "lake", "8080", "oscar"]
const summary = fc
  .array(fc.constantFrom(...WORDS), { minLength: 2, maxLength: 6 })
  .map((ws) => `The agent worked on ${ws.join(" ")}.`)
const id = fc.integer({ min: 0, max: 9 }).map((n) => `s${n}`)
const op = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("store" as const), id, summary, untrusted: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("promote" as const), id }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("discard" as const), id }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("recall" as const),
      query: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }).map((w) => w.join(" "))
    })
  }
)
const QUERIES = ["lexer crash", "argo deploy", "redis cache 8080", "vim helix", "sunset lake oscar"]

describe("the lexical index behind recall", () => {
  it(
    "after any sequence of stores, dedups, evictions, promotions and discards equals one built from scratch, " +
      "and never holds a pending episode",
    async () => {
      let evictionsOrDedups = 0
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40, size: "max" }), async (ops) => {
          // a cap of 5 episodes and a low dedup threshold: evictions and dedups happen in most runs
          const layer = appLayer({ config: { maxEpisodes: 5, episodeDedupThreshold: 0.9 } })
          const result = await Effect.runPromise(
            Effect.gen(function* () {
              let stored = 0
              for (const o of ops) {
                if (o.kind === "store") {
                  const r = yield* Effect.either(
                    storeEpisode({
                      sessionId: o.id,
                      summary: o.summary,
                      turns: 3,
                      provenance: o.untrusted ? { untrusted: true, sources: ["web_search"] } : {},
                      source: "llm"
                    })
                  )
                  if (r._tag === "Right") stored++
                } else if (o.kind === "promote") yield* Effect.ignore(promoteEpisode(o.id))
                else if (o.kind === "discard") yield* Effect.ignore(discardEpisode(o.id))
                else yield* recallDetailed(o.query)
              }
              // with the stream's version, as recall brings it in step: a mark the index already has skips the stamps
              const { state, version } = yield* loadEpisodes()
              yield* syncSearch(state.episodes, version)
              const search = yield* EpisodeSearch
              return {
                stored,
                episodes: state.episodes,
                indexed: yield* search.indexed,
                answers: yield* Effect.forEach(QUERIES, (q) => search.search(q, 20))
              }
            }).pipe(Effect.provide(layer))
          )
          if (result.stored > result.episodes.length) evictionsOrDedups++
          const fresh = await Effect.runPromise(
            Effect.gen(function* () {
              yield* syncSearch(result.episodes)
              const search = yield* EpisodeSearch
              return {
                indexed: yield* search.indexed,
                answers: yield* Effect.forEach(QUERIES, (q) => search.search(q, 20))
              }
            }).pipe(
              Effect.provide(Layer.provideMerge(LocalEpisodeSearch.layer, MemoryDerivedFiles.layer)),
              Effect.provide(appLayer())
            )
          )
          expect(new Map(result.indexed)).toEqual(new Map(fresh.indexed))
          expect(result.answers.map((a) => a.map((m) => m.id))).toEqual(fresh.answers.map((a) => a.map((m) => m.id)))
          const pending = new Set(result.episodes.filter((e) => isPendingReview(e.provenance)).map((e) => e.sessionId))
          for (const id of result.indexed.keys()) expect(pending.has(id)).toBe(false)
        }),
        { numRuns: 120 }
      )
      expect(evictionsOrDedups).toBeGreaterThan(30)
    },
    120_000
  )
})
