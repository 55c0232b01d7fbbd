import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { dedupProbe, listEpisodes, loadEpisodes, storeEpisode } from "../../src/app/episodes.js"
import * as RpEmbedder from "../../src/adapters/rp/RpEmbedder.js"
import { appLayer } from "../support/app.js"

interface Pair {
  readonly kind: "different" | "restatement"
  readonly existing: string
  readonly incoming: string
}
const DIFFERENT = (
  JSON.parse(fs.readFileSync(path.join(__dirname, "../fixtures/merge-pairs.json"), "utf8")).pairs as ReadonlyArray<Pair>
).filter((p) => p.kind === "different")

// Two sessions worded alike around one fact each, as an extractive summary of a routine session would be.
const summaryAround = (fact: string) =>
  `Session of 2026-01-05 between the user and the assistant. They reviewed the setup. ${fact}. ` +
  `The tests pass and the change is merged.`

const sessionEpisode = (sessionId: string, summary: string) => ({
  sessionId,
  summary,
  turns: 6,
  provenance: {},
  source: "extractive" as const
})

describe("episode dedup through the app (default configuration: local embedder, no model)", () => {
  // with the default (weighted) embedder and with odek's Go-compatible one, which scores most of these pairs as
  // near-copies: the gate, not the embedder, is what keeps them apart
  for (const [name, embedder, mostlyClose] of [
    ["default", undefined, false],
    ["rp", RpEmbedder.layer(256), true]
  ] as const)
    it.effect(
      `two different sessions worded alike are both kept, however close the embedder finds them (${name} embedder)`,
      () =>
        Effect.gen(function* () {
          let close = 0
          for (const pair of DIFFERENT) {
            const kept = yield* Effect.gen(function* () {
              yield* storeEpisode(sessionEpisode("first", summaryAround(pair.existing)))
              const probe = yield* dedupProbe(
                (yield* loadEpisodes()).state.episodes,
                "second",
                summaryAround(pair.incoming)
              )
              if (probe !== undefined && probe.similarity >= 0.92) close++
              const r = yield* storeEpisode(sessionEpisode("second", summaryAround(pair.incoming)))
              expect(r.stored).toBe(true)
              return (yield* listEpisodes({ all: true })).map((e) => e.sessionId)
            }).pipe(Effect.provide(appLayer(embedder === undefined ? {} : { embedder })))
            expect(kept, `${pair.existing} | ${pair.incoming}`).toEqual(["second", "first"])
          }
          console.log(
            `episode dedup (${name}): ${close}/${DIFFERENT.length} different-session pairs were at or above the ` +
              `dedup threshold (0.92); none was deduplicated`
          )
          if (mostlyClose) expect(close).toBeGreaterThan(DIFFERENT.length / 2)
        })
    )

  it.effect("a true near-copy of a session is still deduplicated", () =>
    Effect.gen(function* () {
      const summary = summaryAround("Postgres runs on port 5432 on db1")
      yield* storeEpisode(sessionEpisode("first", summary))
      const r = yield* storeEpisode(sessionEpisode("second", `${summary.replace(/ /gu, "  ")}`))
      expect(r.events.map((e) => e._tag)).toContain("EpisodeDeduped")
      expect((yield* listEpisodes({ all: true })).map((e) => e.sessionId)).toEqual(["second"])
    }).pipe(Effect.provide(appLayer()))
  )
})
