import { describe, it } from "vitest"
import {
  decideEpisode,
  type Episode,
  EpisodeDeduped,
  EpisodeDiscarded,
  EpisodeDropped,
  type EpisodePolicy,
  EpisodePromoted,
  EpisodesEvicted,
  EpisodeStored,
  evolveEpisode,
  ExtractionPending,
  ExtractionSettled,
  initialEpisodeStore
} from "../../../src/domain/episodes/store.js"
import { specOf } from "../../support/deciderSpec.js"

const at = "2026-12-01T00:00:00.000Z"
const policy: EpisodePolicy = { enabled: true, dedupThreshold: 0.92, maxEpisodes: 2, ttlDays: 0, autoApprove: false }
const { given } = specOf({ initialState: initialEpisodeStore, decide: decideEpisode(policy), evolve: evolveEpisode })
const untrusted = { untrusted: true, sources: ["web_search"] }
const episode = (sessionId: string, summary: string, provenance = {}): Episode => ({
  sessionId,
  turns: 3,
  createdAt: at,
  summary,
  provenance,
  source: "extractive"
})
const store = (
  sessionId: string,
  summary: string,
  provenance = {},
  match?: { sessionId: string; similarity: number }
) =>
  ({
    _tag: "StoreEpisode",
    sessionId,
    summary,
    turns: 3,
    provenance,
    source: "extractive",
    at,
    ...(match === undefined ? {} : { match })
  }) as const

describe("episode store decider, given / when / then", () => {
  it(
    "StoreEpisode stores, replaces a near-copy of equal trust, drops an untrusted near-copy of a trusted one, " +
      "evicts past the cap",
    () => {
      given()
        .when(store("s1", "Fixed the parser"))
        .thenEvents(EpisodeStored.make({ episode: episode("s1", "Fixed the parser"), at }))
      given(EpisodeStored.make({ episode: episode("s1", "Fixed the parser for release 2.4"), at }))
        .when(store("s2", "Fixed the parser for release 2.4.", {}, { sessionId: "s1", similarity: 0.97 }))
        .thenEvents(
          EpisodeDeduped.make({ removed: "s1", by: "s2", similarity: 0.97, at }),
          EpisodeStored.make({ episode: episode("s2", "Fixed the parser for release 2.4."), at })
        )
      given(EpisodeStored.make({ episode: episode("s1", "Fixed the parser for release 2.4"), at }))
        .when(store("s2", "Fixed the parser for release 2.4.", untrusted, { sessionId: "s1", similarity: 0.97 }))
        .thenEvents(
          EpisodeDropped.make({
            episode: episode("s2", "Fixed the parser for release 2.4.", untrusted),
            duplicateOf: "s1",
            similarity: 0.97,
            at
          })
        )
      // close wording, another release: two sessions, both kept
      given(EpisodeStored.make({ episode: episode("s1", "Fixed the parser for release 2.4"), at }))
        .when(store("s2", "Fixed the parser for release 2.5", {}, { sessionId: "s1", similarity: 0.97 }))
        .thenEvents(EpisodeStored.make({ episode: episode("s2", "Fixed the parser for release 2.5"), at }))
      given(
        EpisodeStored.make({ episode: episode("s1", "one"), at }),
        EpisodeStored.make({ episode: episode("s2", "two"), at })
      )
        .when(store("s3", "three"))
        .thenEvents(
          EpisodeStored.make({ episode: episode("s3", "three"), at }),
          EpisodesEvicted.make({ sessionIds: ["s1"], reason: "cap", at })
        )
      given().when(store("../x", "escape")).thenRefused("InvalidEpisodeId", 'memory: invalid session id "../x"')
    }
  )

  it("PromoteEpisode and DiscardEpisode act on pending episodes only", () => {
    const pending = EpisodeStored.make({ episode: episode("s1", "Read a web page", untrusted), at })
    given(pending)
      .when({ _tag: "PromoteEpisode", sessionId: "s1", at })
      .thenEvents(EpisodePromoted.make({ sessionId: "s1", at }))
    given(pending, EpisodePromoted.make({ sessionId: "s1", at }))
      .when({ _tag: "PromoteEpisode", sessionId: "s1", at })
      .thenRefused("EpisodeAlreadyApproved")
    given()
      .when({ _tag: "PromoteEpisode", sessionId: "s9", at })
      .thenRefused("EpisodeNotFound", 'memory: episode "s9" not found')
    given(pending)
      .when({ _tag: "DiscardEpisode", sessionId: "s1", at })
      .thenEvents(EpisodeDiscarded.make({ sessionId: "s1", at }))
    given(EpisodeStored.make({ episode: episode("s1", "trusted"), at }))
      .when({ _tag: "DiscardEpisode", sessionId: "s1", at })
      .thenRefused("EpisodeNotPending")
  })

  it("extraction bookkeeping: marked once, settled only while owed", () => {
    given()
      .when({ _tag: "MarkExtractionPending", sessionId: "s1", at })
      .thenEvents(ExtractionPending.make({ sessionId: "s1", at }))
    given(ExtractionPending.make({ sessionId: "s1", at }))
      .when({ _tag: "MarkExtractionPending", sessionId: "s1", at })
      .thenNothing()
    given(ExtractionPending.make({ sessionId: "s1", at }))
      .when({ _tag: "SettleExtraction", sessionId: "s1", outcome: "declined", at })
      .thenEvents(ExtractionSettled.make({ sessionId: "s1", outcome: "declined", at }))
    given().when({ _tag: "SettleExtraction", sessionId: "s1", outcome: "declined", at }).thenNothing()
  })

  it("a disabled memory refuses every command", () => {
    specOf({
      initialState: initialEpisodeStore,
      decide: decideEpisode({ ...policy, enabled: false }),
      evolve: evolveEpisode
    })
      .given()
      .when({ _tag: "PruneEpisodes", at })
      .thenRefused("MemoryDisabled", "memory: disabled")
  })
})
