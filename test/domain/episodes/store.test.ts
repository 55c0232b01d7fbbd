import { Either, FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import {
  decideEpisode,
  type Episode,
  type EpisodeCommand,
  type EpisodeEvent,
  type EpisodePolicy,
  type EpisodeStoreState,
  evolveEpisode,
  initialEpisodeStore,
  newestFirst
} from "../../../src/domain/episodes/store.js"
import { type EpisodeProvenance, isRecallable } from "../../../src/domain/sessions/provenance.js"

const policy: EpisodePolicy = { enabled: true, dedupThreshold: 0.92, maxEpisodes: 500, ttlDays: 0, autoApprove: false }
const TRUSTED: EpisodeProvenance = {}
const UNTRUSTED: EpisodeProvenance = { untrusted: true, sources: ["read_file"] }
const day = (d: number) => `2026-01-${String(d).padStart(2, "0")}T00:00:00.000Z`
const store = (
  sessionId: string,
  at: string,
  provenance = TRUSTED,
  match?: { sessionId: string; similarity: number }
): EpisodeCommand => ({
  // one wording for every session: the dedup tests need true near-copies (issue 10: summaries that differ in a
  // distinguishing token, such as the session's own name, are never deduplicated)
  _tag: "StoreEpisode",
  sessionId,
  summary: "The session fixed the parser.",
  turns: 4,
  provenance,
  source: "llm",
  match,
  at
})
const run = (commands: ReadonlyArray<EpisodeCommand>, p: EpisodePolicy = policy) => {
  let state: EpisodeStoreState = initialEpisodeStore
  const events: Array<EpisodeEvent> = []
  for (const c of commands) {
    const r = decideEpisode(p)(c, state)
    if (Either.isLeft(r)) throw r.left
    events.push(...r.right)
    state = r.right.reduce(evolveEpisode, state)
  }
  return { state, events, ids: newestFirst(state.episodes).map((e) => e.sessionId) }
}

describe("episode store decisions", () => {
  it("stores, newest first; re-running a session replaces its episode", () => {
    const r = run([store("a", day(1)), store("b", day(2)), store("a", day(3))])
    expect(r.ids).toEqual(["a", "b"])
    expect(r.events.map((e) => e._tag)).toEqual(["EpisodeStored", "EpisodeStored", "EpisodeStored"])
  })

  it("caps the stored summary at 2,048 bytes", () => {
    const r = run([{ ...store("a", day(1)), summary: "Fixed it. ".repeat(400) } as EpisodeCommand])
    expect(new TextEncoder().encode(r.state.episodes[0]!.summary).length).toBeLessThanOrEqual(2048)
  })

  it("a near-duplicate of equal or lower trust is replaced by the newer episode", () => {
    const r = run([
      store("old", day(1), UNTRUSTED),
      store("new", day(2), TRUSTED, { sessionId: "old", similarity: 0.95 })
    ])
    expect(r.ids).toEqual(["new"])
    expect(r.events[1]).toMatchObject({ _tag: "EpisodeDeduped", removed: "old", by: "new", similarity: 0.95 })
  })

  it("an untrusted near-duplicate of a trusted episode is dropped, the trusted one untouched", () => {
    const r = run([store("good", day(1)), store("bad", day(2), UNTRUSTED, { sessionId: "good", similarity: 0.97 })])
    expect(r.ids).toEqual(["good"])
    expect(r.events[1]).toMatchObject({ _tag: "EpisodeDropped", duplicateOf: "good", episode: { sessionId: "bad" } })
  })

  it("below the threshold, or with no match (an embedding failure), nothing is deduplicated", () => {
    expect(run([store("a", day(1)), store("b", day(2), TRUSTED, { sessionId: "a", similarity: 0.91 })]).ids).toEqual([
      "b",
      "a"
    ])
    expect(run([store("a", day(1)), store("b", day(2), TRUSTED)]).ids).toEqual(["b", "a"])
  })

  it("auto-approval stamps untrusted episodes, keeping their sources", () => {
    const r = run([store("a", day(1), UNTRUSTED)], { ...policy, autoApprove: true })
    expect(r.state.episodes[0]!.provenance).toEqual({ untrusted: true, sources: ["read_file"], auto_approved: true })
  })

  it("evicts by TTL, then by count, trust-blind", () => {
    const r = run([store("a", day(1)), store("b", day(2), UNTRUSTED), store("c", day(3)), store("d", day(20))], {
      ...policy,
      ttlDays: 10,
      maxEpisodes: 1
    })
    expect(r.ids).toEqual(["d"])
    expect(r.events.filter((e) => e._tag === "EpisodesEvicted")).toMatchObject([
      { reason: "cap", sessionIds: ["a"] },
      { reason: "cap", sessionIds: ["b"] },
      { reason: "ttl", sessionIds: ["c"] }
    ])
  })

  it("promote and discard: the human gate", () => {
    const base = [store("p", day(1), UNTRUSTED)]
    const promoted = run([...base, { _tag: "PromoteEpisode", sessionId: "p", at: day(2) }])
    expect(isRecallable(promoted.state.episodes[0]!.provenance)).toBe(true)
    const twice = decideEpisode(policy)({ _tag: "PromoteEpisode", sessionId: "p", at: day(3) }, promoted.state)
    expect(Either.isLeft(twice) && twice.left.message).toBe('memory: episode "p" is already approved')
    const missing = decideEpisode(policy)({ _tag: "PromoteEpisode", sessionId: "x", at: day(3) }, promoted.state)
    expect(Either.isLeft(missing) && missing.left.message).toBe('memory: episode "x" not found')
    expect(run([...base, { _tag: "DiscardEpisode", sessionId: "p", at: day(2) }]).ids).toEqual([])
    const trusted = decideEpisode(policy)({ _tag: "DiscardEpisode", sessionId: "p", at: day(3) }, promoted.state)
    expect(Either.isLeft(trusted) && trusted.left.message).toMatch(/is not pending review/)
  })

  it("promoting one episode approves that one only; the others stay pending review", () => {
    const r = run([
      store("p", day(1), UNTRUSTED),
      store("q", day(2), UNTRUSTED),
      store("r", day(3), UNTRUSTED),
      { _tag: "PromoteEpisode", sessionId: "q", at: day(4) }
    ])
    const byId = new Map(r.state.episodes.map((e) => [e.sessionId, e.provenance] as const))
    expect([...byId].map(([id, p]) => [id, isRecallable(p)])).toEqual([
      ["p", false],
      ["q", true],
      ["r", false]
    ])
    expect(byId.get("q")).toEqual({ untrusted: true, sources: ["read_file"], user_approved: true })
  })

  it("dedup at exactly the threshold replaces; a hair below keeps both", () => {
    const at = (similarity: number) =>
      run([store("a", day(1)), store("b", day(2), TRUSTED, { sessionId: "a", similarity })]).ids
    expect(at(policy.dedupThreshold)).toEqual(["b"])
    expect(at(policy.dedupThreshold - 1e-9)).toEqual(["b", "a"])
    // a threshold of 0 turns dedup off, even for a perfect copy
    expect(
      run([store("a", day(1)), store("b", day(2), TRUSTED, { sessionId: "a", similarity: 1 })], {
        ...policy,
        dedupThreshold: 0
      }).ids
    ).toEqual(["b", "a"])
  })

  it("max_episodes: 0 keeps every episode (no count cap); at exactly the cap nothing is evicted", () => {
    const many = Array.from({ length: 7 }, (_, i) => store(`s${i}`, day(i + 1)))
    const uncapped = run(many, { ...policy, maxEpisodes: 0 })
    expect(uncapped.ids).toHaveLength(7)
    expect(uncapped.events.some((e) => e._tag === "EpisodesEvicted")).toBe(false)
    const atCap = run(many, { ...policy, maxEpisodes: 7 })
    expect(atCap.ids).toHaveLength(7)
    expect(atCap.events.some((e) => e._tag === "EpisodesEvicted")).toBe(false)
    expect(run(many, { ...policy, maxEpisodes: 6 }).ids).toEqual(["s6", "s5", "s4", "s3", "s2", "s1"])
  })

  it("refuses ids that could name a path outside the directory", () => {
    for (const id of ["", ".", "..", "a/b", "a\\b", "x..y", "a\u0000"]) {
      const r = decideEpisode(policy)(store(id, day(1)), initialEpisodeStore)
      expect(Either.isLeft(r)).toBe(true)
    }
  })

  it(
    "property: an untrusted near-duplicate never replaces or deletes a trusted episode; " + "no match never deletes",
    () => {
      const step = fc.record({
        id: fc.constantFrom("a", "b", "c", "d", "e"),
        trusted: fc.boolean(),
        match: fc.option(
          fc.record({
            sessionId: fc.constantFrom("a", "b", "c", "d", "e"),
            similarity: fc.double({ min: 0.8, max: 1, noNaN: true })
          }),
          { nil: undefined }
        )
      })
      let protectedDrops = 0
      fc.assert(
        fc.property(fc.array(step, { minLength: 1, maxLength: 25 }), (steps) => {
          let state: EpisodeStoreState = initialEpisodeStore
          steps.forEach((s, i) => {
            const before = new Map(state.episodes.map((e) => [e.sessionId, e] as const))
            const r = decideEpisode(policy)(store(s.id, day(1 + i), s.trusted ? TRUSTED : UNTRUSTED, s.match), state)
            state = Either.getOrThrow(r).reduce(evolveEpisode, state)
            const after = new Set(state.episodes.map((e) => e.sessionId))
            for (const [id, e] of before) {
              if (after.has(id) || id === s.id) continue
              // something left: only a match of at least the threshold, by an incoming episode of equal or higher trust
              expect(s.match?.sessionId).toBe(id)
              expect(s.match!.similarity).toBeGreaterThanOrEqual(0.92)
              expect(!s.trusted && isRecallable((e as Episode).provenance)).toBe(false)
            }
            if (
              !s.trusted &&
              s.match !== undefined &&
              s.match.similarity >= 0.92 &&
              before.get(s.match.sessionId) !== undefined &&
              isRecallable(before.get(s.match.sessionId)!.provenance) &&
              s.match.sessionId !== s.id
            )
              protectedDrops++
          })
        }),
        { numRuns: 2000 }
      )
      // the region that matters: untrusted near-copies of recallable episodes arrive often
      expect(protectedDrops).toBeGreaterThan(200)
    }
  )
})
