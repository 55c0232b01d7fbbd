import { Effect } from "effect"
import type { Episode } from "../domain/episodes/store.js"
import { bestPassages } from "../domain/search/passages.js"
import { FNV64_OFFSET, fnv1a64Units, fnv64Hex } from "../domain/text/fnv.js"
import { isRecallable } from "../domain/sessions/provenance.js"
import { sessionCodec, sessionStream } from "../domain/sessions/stream.js"
import { Embedder, isCorpusFitted, similaritiesOf } from "../ports/Embedder.js"
import { EpisodeSearch, type SearchDocument } from "../ports/EpisodeSearch.js"
import { EventStore } from "../ports/EventStore.js"
import { EpisodeIndex } from "./EpisodeIndex.js"

/**
 * Hybrid recall (DESIGN §7 "Retrieval", docs/EPISODES.md): the lexical index over each recallable episode's summary
 * and, for a trusted session, its recorded text, fused with the embedder's ranking of the summaries; a relevance
 * floor leaves a query about nothing remembered with nothing. Pending episodes are never indexed and are filtered
 * again against the current store, so a lagging index cannot show one.
 */

/** One recalled episode and its fused score. */
export interface Retrieved {
  readonly episode: Episode
  readonly score: number
}

/** Candidates each side contributes before fusion. */
const CANDIDATES = 40
/**
 * What an embedder of meaning's cosine adds to a lexical score (the best lexical match scores 1): it breaks near ties
 * and lets a summary close in meaning rise. On the dev set and the synthetic one, 0.15–0.2 gave the best top-1 and
 * top-3 (each figure within one question of 0.3–0.5).
 */
const VECTOR_WEIGHT = 0.2
/**
 * The same for a corpus-fitted embedder (the default `local`): it reads the summary's words, which the lexical index
 * already scored in the session's whole text, so its cosine mostly counts the same evidence twice. Since the search
 * terms are stemmed it cost top-3 recall on the dev set (0.2: 83.1 %, 0.05: 84.8 %, 0: 85.3 %; the synthetic set
 * within one question); it is kept small, to order what the words leave tied.
 */
const FITTED_VECTOR_WEIGHT = 0.05
/** A hit the words do not support must be this close to the query in the embedding space to count. */
export const VECTOR_FLOOR = 0.6

const hashOf = (s: string) => fnv64Hex(fnv1a64Units(FNV64_OFFSET, s))

// An ended session's words never change, and recall quotes the same few sessions turn after turn: kept per store
// (the memory they belong to), so a recall does not decode each shown session's journal again.
const ENDED_TEXTS_KEPT = 256
const endedTexts = new WeakMap<object, Map<string, string>>()

/** A trusted session's own words, as the agent and the user wrote them (no system prompt, no tool output). */
const sessionText = (sessionId: string) =>
  Effect.gen(function* () {
    const stream = sessionStream(sessionId)
    if (stream === undefined) return ""
    const store = yield* EventStore
    let kept = endedTexts.get(store)
    if (kept === undefined) {
      kept = new Map()
      endedTexts.set(store, kept)
    }
    const known = kept.get(sessionId)
    if (known !== undefined) return known
    const loaded = yield* Effect.option(store.load(stream, sessionCodec))
    if (loaded._tag === "None") return ""
    const text = loaded.value.state.messages
      .filter((m) => m.role === "user" || m.role === "assistant")
      .map((m) => m.content)
      .join("\n")
    if (loaded.value.state.ended) {
      if (kept.size >= ENDED_TEXTS_KEPT) kept.clear()
      kept.set(sessionId, text)
    }
    return text
  })

/** Whether recall may read the session behind an episode: trusted at the source, not merely approved later. */
const readsSession = (e: Episode) => e.provenance.untrusted !== true

/** The text recall searches and quotes for an episode. */
const documentText = (e: Episode) =>
  readsSession(e)
    ? Effect.map(sessionText(e.sessionId), (body) =>
        // an extractive summary is sentences of the session itself: indexing both would count them twice
        body === "" ? e.summary : e.source === "extractive" ? body : `${e.summary}\n${body}`
      )
    : Effect.succeed(e.summary)

// what the stamp covers: the summary and whether the session's text is read (a session's text never changes once
// ended); an episode never changes (a change is a new object), so each is hashed once, not on every sync after
// every ingest
const stamps = new WeakMap<Episode, string>()
const stampOf = (e: Episode) => {
  let stamp = stamps.get(e)
  if (stamp === undefined) {
    stamp = `${hashOf(e.summary)}:${readsSession(e) ? "s" : "-"}`
    stamps.set(e, stamp)
  }
  return stamp
}

// Stores hand back the same state object while a stream is unchanged: an episode list an index was brought in step
// with needs no second look (comparing every stamp would cost more than the search at 10,000 episodes).
const inStep = new WeakMap<ReadonlyArray<Episode>, WeakSet<object>>()

const recallable = new WeakMap<ReadonlyArray<Episode>, ReadonlyMap<string, Episode>>()
/** The recallable episodes by id, once per episode list (see inStep). */
const recallableById = (episodes: ReadonlyArray<Episode>): ReadonlyMap<string, Episode> => {
  let m = recallable.get(episodes)
  if (m === undefined) {
    m = new Map(episodes.filter((e) => isRecallable(e.provenance)).map((e) => [e.sessionId, e] as const))
    recallable.set(episodes, m)
  }
  return m
}

/** The cosine of the query to each candidate's summary, in a space fitted on those summaries; none on failure. */
const candidateCosines = (candidates: ReadonlyArray<Episode>, query: string) =>
  Effect.gen(function* () {
    if (candidates.length === 0) return []
    const scores = yield* Effect.option(
      similaritiesOf(
        yield* Embedder,
        candidates.map((e) => e.summary),
        query
      )
    )
    if (scores._tag === "None") return []
    return candidates.map((e, i) => ({ sessionId: e.sessionId, score: scores.value[i]! }))
  })

/**
 * A name for the episode list at `version` of the episode stream: the index persists the name it was last brought in
 * step with, so a new process whose list has the same name compares no stamps (at 10,000 episodes that comparison
 * hashed every summary, about 90 ms of a cold recall). The count and the last episode's id and time make a history
 * that was replaced by another of the same length a different name.
 */
const markOf = (episodes: ReadonlyArray<Episode>, version: number) => {
  const last = episodes[episodes.length - 1]
  return `${version}:${episodes.length}:${last?.sessionId ?? ""}:${last?.createdAt ?? ""}`
}

/**
 * Brings the lexical index in step with the recallable episodes: indexes what is new or changed, drops the rest.
 * `version` (the episode stream's, when the caller has it) lets an index already in step with that list be trusted
 * without comparing stamps.
 */
export const syncSearch = (episodes: ReadonlyArray<Episode>, version?: number) =>
  Effect.gen(function* () {
    const search = yield* EpisodeSearch
    if (inStep.get(episodes)?.has(search) === true) return
    const mark = version === undefined ? undefined : markOf(episodes, version)
    if (mark === undefined || (yield* search.inStepWith) !== mark) yield* syncNow(search, episodes, mark)
    const synced = inStep.get(episodes) ?? new WeakSet<object>()
    synced.add(search)
    inStep.set(episodes, synced)
  })

const syncNow = (search: EpisodeSearch["Type"], episodes: ReadonlyArray<Episode>, mark: string | undefined) =>
  Effect.gen(function* () {
    const indexed = yield* search.indexed
    const wanted = recallableById(episodes)
    const remove = [...indexed.keys()].filter((id) => !wanted.has(id))
    const put: Array<SearchDocument> = []
    for (const e of wanted.values()) {
      const stamp = stampOf(e)
      if (indexed.get(e.sessionId) === stamp) continue
      put.push({ id: e.sessionId, stamp, text: yield* documentText(e) })
    }
    yield* search.update(put, remove, mark)
  })

/**
 * The recallable episodes that answer `query`, best first, at most `limit`, with each query term's weight (for
 * `passagesOf`). `floor` is the share of the query's weight an episode's words must match, unless the embedder
 * alone puts it within VECTOR_FLOOR.
 */
export const retrieve = (
  episodes: ReadonlyArray<Episode>,
  query: string,
  options: { readonly limit: number; readonly floor: number; readonly version?: number | undefined }
) =>
  Effect.gen(function* () {
    const search = yield* EpisodeSearch
    if (options.limit <= 0)
      return { hits: [] as ReadonlyArray<Retrieved>, weights: new Map<string, number>() as ReadonlyMap<string, number> }
    yield* syncSearch(episodes, options.version)
    const byId = recallableById(episodes)
    const lexical = (yield* search.search(query, CANDIDATES)).filter((m) => byId.has(m.id))
    const embedder = yield* Embedder
    // a local embedder sees the same words the lexical index does: it can only re-weigh the lexical candidates, so
    // it embeds just them (fitted on them: no index to load or rebuild when an episode arrives); an embedder of
    // meaning (http) searches the whole persisted index for what the words missed
    const vector = (
      isCorpusFitted(embedder.space)
        ? yield* candidateCosines(
            lexical.map((m) => byId.get(m.id)!),
            query
          )
        : yield* (yield* EpisodeIndex).search(episodes, query, CANDIDATES)
    ).filter((h) => byId.has(h.sessionId))
    const fused = new Map<string, { score: number; coverage: number; cosine: number }>()
    const entry = (id: string) => {
      let f = fused.get(id)
      if (f === undefined) {
        f = { score: 0, coverage: 0, cosine: 0 }
        fused.set(id, f)
      }
      return f
    }
    // calibrated scores, not ranks: the best lexical match scores 1, and the cosine (0–1) adds its weight; rank
    // fusion would let the embedder's order override a clear lexical winner
    const vectorWeight = isCorpusFitted(embedder.space) ? FITTED_VECTOR_WEIGHT : VECTOR_WEIGHT
    const top = lexical[0]?.score ?? 0
    for (const m of lexical) {
      const f = entry(m.id)
      f.score += top > 0 ? m.score / top : 0
      f.coverage = m.coverage
    }
    for (const h of vector) {
      const f = entry(h.sessionId)
      f.score += vectorWeight * Math.max(0, h.score)
      f.cosine = h.score
    }
    const relevant = (f: { coverage: number; cosine: number }, floor: number) =>
      f.coverage >= floor || f.cosine >= VECTOR_FLOOR
    const ordered = [...fused].sort((a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : 1))
    // the floor decides whether the query is about anything remembered at all (its best answer must reach it);
    // once it is, the episodes after the best need only half of it
    const best = ordered.find(([, f]) => relevant(f, options.floor))
    const hits: ReadonlyArray<Retrieved> =
      best === undefined
        ? []
        : ordered
            .filter(([, f]) => relevant(f, options.floor / 2))
            .slice(0, options.limit)
            .map(([id, f]) => ({ episode: byId.get(id)!, score: f.score }))
    return { hits, weights: hits.length === 0 ? new Map<string, number>() : yield* search.termWeights(query) }
  })

/** The sentences of an episode's text (its session's words when trusted, else its summary) that best match. */
export const passagesOf = (episode: Episode, weights: ReadonlyMap<string, number>, budget: number, max: number) =>
  // the session's own words when recall may read them (the preview already stands for the summary), else the summary
  Effect.map(readsSession(episode) ? sessionText(episode.sessionId) : Effect.succeed(""), (body) =>
    bestPassages(body === "" ? episode.summary : body, weights, budget, max)
  )
