import { FastCheck as fc, Match } from "effect"
import { describe, expect, it } from "vitest"
import {
  type Episode,
  type EpisodeEvent,
  type EpisodeStoreState,
  evolveEpisode,
  foldEpisodes,
  initialEpisodeStore
} from "../../../src/domain/episodes/store.js"
import { episodeCodec } from "../../../src/domain/episodes/stream.js"
import { foldStream } from "../../../src/domain/kernel/Stream.js"

/** The fold as it was before the one-pass helper (each event copies the list): the semantics to keep. */
const without = (state: EpisodeStoreState, ids: ReadonlyArray<string>): EpisodeStoreState => ({
  ...state,
  episodes: state.episodes.filter((e) => !ids.includes(e.sessionId))
})
const pendingWithout = (state: EpisodeStoreState, id: string): EpisodeStoreState => {
  const { pending, ...rest } = state
  const left = (pending ?? []).filter((p) => p !== id)
  return left.length === 0 ? rest : { ...rest, pending: left }
}
const referenceEvolve = (state: EpisodeStoreState, event: EpisodeEvent): EpisodeStoreState =>
  Match.valueTags(event, {
    EpisodeStored: (e) =>
      pendingWithout(
        { ...state, episodes: [...without(state, [e.episode.sessionId]).episodes, e.episode] },
        e.episode.sessionId
      ),
    EpisodeDeduped: (e) => without(state, [e.removed]),
    EpisodeDropped: (e) => pendingWithout(state, e.episode.sessionId),
    EpisodesEvicted: (e) => without(state, e.sessionIds),
    EpisodePromoted: (e) => ({
      ...state,
      episodes: state.episodes.map((x) =>
        x.sessionId === e.sessionId ? { ...x, provenance: { ...x.provenance, user_approved: true } } : x
      )
    }),
    EpisodeDiscarded: (e) => without(state, [e.sessionId]),
    EpisodesImported: (e) => ({ ...state, episodes: e.episodes }),
    ExtractionPending: (e) =>
      state.pending?.includes(e.sessionId) ? state : { ...state, pending: [...(state.pending ?? []), e.sessionId] },
    ExtractionSettled: (e) => pendingWithout(state, e.sessionId),
    EpisodeBlocked: (e) => ({
      ...state,
      episodes: state.episodes.map((x) => (x.sessionId === e.sessionId ? { ...x, blocked: e.label } : x))
    })
  })
const referenceFold = (events: ReadonlyArray<EpisodeEvent>) => events.reduce(referenceEvolve, initialEpisodeStore)

// A small id pool, so events keep hitting ids that exist: replacements, evictions, promotions of stored episodes.
const id = fc.integer({ min: 0, max: 11 }).map((n) => `s${n}`)
const at = "2026-01-01T00:00:00.000Z"
const episode = fc
  .record({ sessionId: id, turns: fc.integer({ min: 3, max: 9 }), untrusted: fc.boolean() })
  .map(({ sessionId, turns, untrusted }): Episode => ({
    sessionId,
    turns,
    createdAt: at,
    summary: `summary of ${sessionId} (${turns})`,
    provenance: untrusted ? { untrusted: true, sources: ["web"] } : {},
    source: "llm"
  }))
const uniqueEpisodes = fc.uniqueArray(episode, { selector: (e) => e.sessionId, maxLength: 8 })
const event: fc.Arbitrary<EpisodeEvent> = fc.oneof(
  { weight: 6, arbitrary: episode.map((e) => ({ _tag: "EpisodeStored" as const, episode: e, at })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(id, id)
      .map(([removed, by]) => ({ _tag: "EpisodeDeduped" as const, removed, by, similarity: 0.95, at }))
  },
  {
    weight: 1,
    arbitrary: episode.map((e) => ({
      _tag: "EpisodeDropped" as const,
      episode: e,
      duplicateOf: "s0",
      similarity: 0.95,
      at
    }))
  },
  {
    weight: 2,
    arbitrary: fc
      .array(id, { minLength: 1, maxLength: 3 })
      .map((ids) => ({ _tag: "EpisodesEvicted" as const, sessionIds: ids, reason: "cap" as const, at }))
  },
  { weight: 2, arbitrary: id.map((sessionId) => ({ _tag: "EpisodePromoted" as const, sessionId, at })) },
  { weight: 1, arbitrary: id.map((sessionId) => ({ _tag: "EpisodeDiscarded" as const, sessionId, at })) },
  { weight: 1, arbitrary: uniqueEpisodes.map((episodes) => ({ _tag: "EpisodesImported" as const, episodes, at })) },
  { weight: 3, arbitrary: id.map((sessionId) => ({ _tag: "ExtractionPending" as const, sessionId, at })) },
  {
    weight: 2,
    arbitrary: id.map((sessionId) => ({ _tag: "ExtractionSettled" as const, sessionId, outcome: "declined", at }))
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(id, fc.constantFrom("instruction override", "safety bypass"))
      .map(([sessionId, label]) => ({ _tag: "EpisodeBlocked" as const, sessionId, label, at }))
  }
)

describe("episode fold", () => {
  it("the one-pass fold equals the event-by-event reference on random histories, from any starting state", () => {
    const reached = { replaced: 0, evictedLive: 0, promotedLive: 0, pendingLeft: 0, pendingCleared: 0, bigStates: 0 }
    fc.assert(
      fc.property(
        fc.array(event, { minLength: 20, maxLength: 120 }),
        fc.integer({ min: 0, max: 120 }),
        (events, cut) => {
          const expected = referenceFold(events)
          expect(foldEpisodes(initialEpisodeStore, events)).toStrictEqual(expected)
          expect(foldStream(episodeCodec, initialEpisodeStore, events)).toStrictEqual(expected)
          // a fold continued from an intermediate state (the disk store's cached fold plus new batches)
          const k = Math.min(cut, events.length)
          expect(foldEpisodes(foldEpisodes(initialEpisodeStore, events.slice(0, k)), events.slice(k))).toStrictEqual(
            expected
          )
          expect(events.reduce(evolveEpisode, initialEpisodeStore)).toStrictEqual(expected)
          // how often the interesting cases came up
          let s = initialEpisodeStore
          for (const e of events) {
            const live = new Set(s.episodes.map((x) => x.sessionId))
            if (e._tag === "EpisodeStored" && live.has(e.episode.sessionId)) reached.replaced++
            if (e._tag === "EpisodesEvicted" && e.sessionIds.some((x) => live.has(x))) reached.evictedLive++
            if (e._tag === "EpisodePromoted" && live.has(e.sessionId)) reached.promotedLive++
            if ((e._tag === "EpisodeStored" || e._tag === "ExtractionSettled") && s.pending?.length)
              reached.pendingCleared++
            s = referenceEvolve(s, e)
          }
          if ((expected.pending?.length ?? 0) > 0) reached.pendingLeft++
          if (expected.episodes.length >= 6) reached.bigStates++
        }
      ),
      { numRuns: 300 }
    )
    for (const [name, n] of Object.entries(reached)) expect(n, name).toBeGreaterThan(20)
  })

  it("leaves the state it started from untouched", () => {
    const start = foldEpisodes(initialEpisodeStore, [
      {
        _tag: "EpisodesImported",
        episodes: [{ sessionId: "a", turns: 3, createdAt: at, summary: "A.", provenance: {}, source: "llm" }],
        at
      },
      { _tag: "ExtractionPending", sessionId: "b", at }
    ])
    const copy = structuredClone(start)
    foldEpisodes(start, [
      { _tag: "EpisodePromoted", sessionId: "a", at },
      { _tag: "ExtractionSettled", sessionId: "b", outcome: "declined", at },
      { _tag: "EpisodesEvicted", sessionIds: ["a"], reason: "cap", at }
    ])
    expect(start).toStrictEqual(copy)
  })
})
