import { Effect, Option } from "effect"
import { during } from "../ports/Progress.js"
import { cosine } from "../domain/embedding/index.js"
import { type EpisodeHit, formatEpisodeContext, parseRanking, RECALL_KEEP, RECALL_OVERFETCH, RECALL_RAW_HITS, rankerPrompt, recallQuery } from "../domain/episodes/recall.js"
import { type Episode, newestFirst, previewOf } from "../domain/episodes/store.js"
import { isPendingReview, isRecallable } from "../domain/sessions/provenance.js"
import { Embedder } from "../ports/Embedder.js"
import { Llm } from "../ports/Llm.js"
import { EpisodeIndex } from "./EpisodeIndex.js"
import { loadEpisodes } from "./episodes.js"
import { Settings } from "./Settings.js"

const hitOf = (e: Episode): EpisodeHit => ({ sessionId: e.sessionId, turns: e.turns, preview: previewOf(e) })

/**
 * The recallable episodes nearest to `query`, best first: index hits mapped through the current store (an evicted
 * or deduplicated episode is never resurrected by a stale index), pending ones skipped before the cut.
 */
const nearest = (query: string, raw: number, keep: number) =>
  Effect.gen(function* () {
    const { state } = yield* loadEpisodes()
    const hits = yield* (yield* EpisodeIndex).search(state.episodes, query, raw)
    const byId = new Map(state.episodes.map((e) => [e.sessionId, e] as const))
    return hits
      .map((h) => byId.get(h.sessionId))
      .filter((e): e is Episode => e !== undefined && !isPendingReview(e.provenance))
      .slice(0, keep)
  })

/**
 * The per-turn recall block (spec episodes §7): never a model call; any failure is no context. The query is the
 * latest user message plus the titles of the plan steps not done.
 */
export const recallContext = Effect.fn("recallContext")(function* (
  latestUserMessage: string,
  planSteps: ReadonlyArray<{ readonly title: string; readonly status: string }> = []
) {
  return (yield* recallDetailed(latestUserMessage, planSteps)).block
})

/** What one turn's recall found: the episodes shown, best first, and the block the agent sees (`recallContext`). */
export interface Recalled {
  readonly episodes: ReadonlyArray<EpisodeHit>
  readonly block: string
}

/** recallContext with the episodes it chose, for callers that measure or explain recall (`tmem eval recall`). */
export const recallDetailed = Effect.fn("recallDetailed")(function* (
  latestUserMessage: string,
  planSteps: ReadonlyArray<{ readonly title: string; readonly status: string }> = []
) {
  const config = yield* Settings
  if (!config.enabled) return { episodes: [], block: "" } satisfies Recalled
  const found = yield* nearest(recallQuery(latestUserMessage, planSteps), RECALL_RAW_HITS, RECALL_OVERFETCH).pipe(
    Effect.catchAll((e) => Effect.as(Effect.logWarning(`memory: recall skipped: ${e.message}`), []))
  )
  const episodes = found.slice(0, RECALL_KEEP).map(hitOf)
  return { episodes, block: formatEpisodeContext(episodes) } satisfies Recalled
})

/** Orders `items` by the model's ranking; undefined when the model is unusable (callers keep their order). */
const llmRank = (query: string, items: ReadonlyArray<Episode>) =>
  Effect.gen(function* () {
    const llm = yield* Llm
    const config = yield* Settings
    if (!config.llmSearch || !llm.info.available || items.length === 0) return undefined
    const prompt = rankerPrompt(query, items.map(previewOf))
    const reply = yield* Effect.option(
      llm.complete({ system: prompt.system, messages: [{ role: "user", content: prompt.user }], maxTokens: 256 }).pipe(during(`ranking with the model (${llm.info.model})`))
    )
    if (Option.isNone(reply)) return undefined
    const ranking = parseRanking(reply.value, items.length)
    return ranking.kind === "none" ? [] : ranking.kind === "order" ? ranking.indices.map((i) => items[i]!) : undefined
  })

/** Every recallable episode ranked by the model, else by the embedder against the previews, else by recency. */
const rankedFullSearch = (query: string) =>
  Effect.gen(function* () {
    const { state } = yield* loadEpisodes()
    const recallable = newestFirst(state.episodes).filter((e) => isRecallable(e.provenance))
    if (recallable.length <= 1) return recallable
    const ranked = yield* llmRank(query, recallable)
    if (ranked !== undefined) return ranked
    const previews = recallable.map(previewOf)
    const embedder = yield* Embedder
    const vectors = yield* Effect.option(embedder.embed([...previews, query], [...previews, query]).pipe(during(`embedding (${embedder.space.model})`)))
    if (Option.isNone(vectors)) return recallable
    const q = vectors.value[previews.length]!
    // stable: equal scores keep recency order
    return recallable
      .map((e, i) => ({ e, i, s: cosine(q, vectors.value[i]!) }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .map((x) => x.e)
  })

/**
 * The `search` action (spec episodes §8): vector candidates (recallable only), re-ranked by the model when
 * `llm_search` is on and one is configured; without candidates, the ranked full search. A model that says none
 * are relevant means no results.
 */
export const searchEpisodes = Effect.fn("searchEpisodes")(function* (query: string, limit = 5) {
  const n = limit > 0 ? limit : 5
  const candidates = yield* nearest(query, Math.max(4 * n, 20) * 3 + 5, Math.max(4 * n, 20)).pipe(Effect.orElseSucceed(() => []))
  if (candidates.length === 0) return (yield* rankedFullSearch(query)).slice(0, n).map(hitOf)
  const ranked = yield* llmRank(query, candidates)
  return (ranked ?? candidates).slice(0, n).map(hitOf)
})

