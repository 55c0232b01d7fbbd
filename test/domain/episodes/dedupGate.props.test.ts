import { Either, FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import {
  decideEpisode,
  type EpisodeCommand,
  type EpisodePolicy,
  type EpisodeStoreState
} from "../../../src/domain/episodes/store.js"
import type { EpisodeProvenance } from "../../../src/domain/sessions/provenance.js"
import { summariesDiffer } from "../../../src/domain/text/distinguishing.js"
import { differentPair } from "../text/distinguishingArbitraries.js"

const policy: EpisodePolicy = { enabled: true, dedupThreshold: 0.92, maxEpisodes: 500, ttlDays: 0, autoApprove: false }
const at = "2026-01-02T00:00:00.000Z"

/** A session summary around one fact: the same wording for both sessions, only the fact's slots differ. */
const summaryAround = (fact: string) =>
  `On the call the user and the assistant worked through the build. ${fact}. ` +
  `The tests pass again and the change is merged.`

const provenance = fc.constantFrom<EpisodeProvenance>(
  {},
  { untrusted: true, sources: ["web_search"] },
  { user_approved: true }
)

const stateWith = (summary: string, p: EpisodeProvenance): EpisodeStoreState => ({
  episodes: [
    {
      sessionId: "first",
      turns: 6,
      createdAt: "2026-01-01T00:00:00.000Z",
      summary,
      provenance: p,
      source: "extractive"
    }
  ]
})

const storeSecond = (summary: string, p: EpisodeProvenance, similarity: number): EpisodeCommand => ({
  _tag: "StoreEpisode",
  sessionId: "second",
  summary,
  turns: 6,
  provenance: p,
  source: "extractive",
  match: { sessionId: "first", similarity },
  at
})

describe("episode dedup gate (issue 10: two different sessions are never deduplicated)", () => {
  it("property: sessions whose summaries differ in a distinguishing token are both kept, at any similarity", () => {
    fc.assert(
      fc.property(
        differentPair(),
        provenance,
        provenance,
        fc.double({ min: 0.92, max: 1, noNaN: true }),
        (pair, p1, p2, similarity) => {
          const events = Either.getOrThrow(
            decideEpisode(policy)(
              storeSecond(summaryAround(pair.incoming), p2, similarity),
              stateWith(summaryAround(pair.existing), p1)
            )
          )
          expect(events.map((e) => e._tag)).toEqual(["EpisodeStored"])
        }
      ),
      { numRuns: 2000 }
    )
  })

  it("property: true near-copies (the same summary, respaced or recased) are still deduplicated", () => {
    fc.assert(
      fc.property(
        differentPair(),
        fc.constantFrom("same", "spaces", "case", "period"),
        fc.double({ min: 0.92, max: 1, noNaN: true }),
        (pair, variant, similarity) => {
          const summary = summaryAround(pair.existing)
          const copy =
            variant === "spaces"
              ? summary.replace(/ /gu, "  ")
              : variant === "case"
                ? summary.replace(/^On the call/u, "on the call")
                : variant === "period"
                  ? `${summary}.`
                  : summary
          expect(summariesDiffer(summary, copy)).toBeUndefined()
          const events = Either.getOrThrow(
            decideEpisode(policy)(storeSecond(copy, {}, similarity), stateWith(summary, {}))
          )
          expect(events.map((e) => e._tag)).toEqual(["EpisodeDeduped", "EpisodeStored"])
        }
      ),
      { numRuns: 500 }
    )
  })
})
