import { Effect, Option } from "effect"
import { during } from "../ports/Progress.js"
import {
  blockOverhead,
  type EpisodeHit,
  formatEpisodeContext,
  PASSAGE_LINE_OVERHEAD,
  parseRanking,
  RECALL_KEEP,
  rankerPrompt,
  recallQuery
} from "../domain/episodes/recall.js"
import { type Episode, newestFirst, previewOf } from "../domain/episodes/store.js"
import { blockedLabel, blockedLine } from "../domain/facts/blocked.js"
import { isRecallable } from "../domain/sessions/provenance.js"
import { utf8Bytes } from "../domain/text/utf8.js"
import { Llm } from "../ports/Llm.js"
import { loadEpisodes, reportBlockedEpisode } from "./episodes.js"
import { passagesOf, type Retrieved, retrieve } from "./retrieval.js"
import { Settings } from "./Settings.js"

/**
 * An episode as the model is shown it (scan on load): a summary the current scanner refuses becomes one BLOCKED
 * line with no sentences, and a refused sentence (a trusted session's own text may quote an attack) its BLOCKED
 * line.
 */
const hitOf = (e: Episode, passages: ReadonlyArray<string> = []): EpisodeHit => {
  const label = blockedLabel(e.summary)
  if (label !== undefined) return { sessionId: e.sessionId, turns: e.turns, preview: blockedLine(label), passages: [] }
  return {
    sessionId: e.sessionId,
    turns: e.turns,
    preview: previewOf(e),
    passages: passages.map((p) => {
      const l = blockedLabel(p)
      return l === undefined ? p : blockedLine(l)
    })
  }
}

/** The preview a model may read (the ranker's items): the BLOCKED line for a refused summary. */
const shownPreview = (e: Episode): string => {
  const label = blockedLabel(e.summary)
  return label === undefined ? previewOf(e) : blockedLine(label)
}

/** Records, once per episode and label, the shown episodes whose summary the scanner now refuses. */
const recordBlocked = (episodes: ReadonlyArray<Episode>) =>
  Effect.forEach(
    episodes,
    (e) => {
      const label = blockedLabel(e.summary)
      return label === undefined || e.blocked === label ? Effect.void : reportBlockedEpisode(e.sessionId, label)
    },
    { discard: true }
  )

/** Most matching sentences shown under one recalled episode. */
const PASSAGES_PER_EPISODE = 3
/** What the search tool shows of each result's matching sentences. */
const SEARCH_PASSAGE_BYTES = 480

/**
 * The recalled episodes with their matching sentences, within `budget` bytes for the whole block: episodes that do
 * not fit even without sentences are left out from the last; the sentences share what is left, best episode first
 * (what one leaves unused passes to the next).
 */
const withPassages = (hits: ReadonlyArray<Episode>, weights: ReadonlyMap<string, number>, budget: number) =>
  Effect.gen(function* () {
    let chosen = hits
    while (chosen.length > 0 && blockOverhead(chosen.map((e) => hitOf(e))) > budget) chosen = chosen.slice(0, -1)
    let left = budget - blockOverhead(chosen.map((e) => hitOf(e)))
    const out: Array<EpisodeHit> = []
    for (const [i, e] of chosen.entries()) {
      const share = Math.floor(left / (chosen.length - i))
      // each line also carries its indent and marker, which bestPassages does not count
      const passages = yield* passagesOf(
        e,
        weights,
        share - (PASSAGE_LINE_OVERHEAD - 1) * PASSAGES_PER_EPISODE,
        PASSAGES_PER_EPISODE
      )
      left -= passages.reduce((n, p) => n + utf8Bytes(p) + PASSAGE_LINE_OVERHEAD, 0)
      out.push(hitOf(e, passages))
    }
    yield* recordBlocked(chosen)
    return out
  })

/**
 * The per-turn recall block (spec episodes §7, DESIGN §7 "Retrieval"): never a model call; any failure is no
 * context. The query is the latest user message plus the titles of the plan steps not done.
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
  const found = yield* Effect.gen(function* () {
    const { state, version } = yield* loadEpisodes()
    const { hits, weights } = yield* retrieve(state.episodes, recallQuery(latestUserMessage, planSteps), {
      limit: RECALL_KEEP,
      floor: config.recallFloor,
      version
    })
    return yield* withPassages(
      hits.map((h) => h.episode),
      weights,
      config.recallBlockBytes
    )
  }).pipe(
    Effect.catchAll((e) =>
      Effect.as(Effect.logWarning(`memory: recall skipped: ${e.message}`), [] as ReadonlyArray<EpisodeHit>)
    )
  )
  return { episodes: found, block: formatEpisodeContext(found) } satisfies Recalled
})

/** Orders `items` by the model's ranking; undefined when the model is unusable (callers keep their order). */
const llmRank = (query: string, items: ReadonlyArray<Episode>) =>
  Effect.gen(function* () {
    const llm = yield* Llm
    const config = yield* Settings
    if (!config.llmSearch || !llm.info.available || items.length === 0) return undefined
    const prompt = rankerPrompt(query, items.map(shownPreview))
    const reply = yield* Effect.option(
      llm
        .complete({ system: prompt.system, messages: [{ role: "user", content: prompt.user }], maxTokens: 256 })
        .pipe(during(`ranking with the model (${llm.info.model})`))
    )
    if (Option.isNone(reply)) return undefined
    const ranking = parseRanking(reply.value, items.length)
    return ranking.kind === "none" ? [] : ranking.kind === "order" ? ranking.indices.map((i) => items[i]!) : undefined
  })

/**
 * Every recallable episode ranked by the model, when one is configured for search: it may find what the words and
 * the embedder missed, and may answer that nothing is relevant. Without a model, nothing: the hybrid search already
 * judged that no episode matches.
 */
const rankedFullSearch = (query: string) =>
  Effect.gen(function* () {
    const { state } = yield* loadEpisodes()
    const recallable = newestFirst(state.episodes).filter((e) => isRecallable(e.provenance))
    return (yield* llmRank(query, recallable)) ?? []
  })

/**
 * The `search` action (spec episodes §8, DESIGN §7 "Retrieval"): the hybrid candidates (recallable only, above the
 * relevance floor), re-ranked by the model when `llm_search` is on and one is configured. Without candidates only a
 * model may still find something in the whole store (it can answer "none"); otherwise nothing matched.
 */
export const searchEpisodes = Effect.fn("searchEpisodes")(function* (query: string, limit = 5) {
  const n = limit > 0 ? limit : 5
  const config = yield* Settings
  const found = yield* Effect.gen(function* () {
    const { state, version } = yield* loadEpisodes()
    return yield* retrieve(state.episodes, query, { limit: Math.max(4 * n, 20), floor: config.recallFloor, version })
  }).pipe(
    Effect.orElseSucceed(() => ({
      hits: [] as ReadonlyArray<Retrieved>,
      weights: new Map<string, number>() as ReadonlyMap<string, number>
    }))
  )
  const candidates = found.hits.map((h) => h.episode)
  if (candidates.length === 0) {
    const all = yield* rankedFullSearch(query)
    yield* recordBlocked(all.slice(0, n))
    return all.slice(0, n).map((e) => hitOf(e))
  }
  const ranked = yield* llmRank(query, candidates)
  const shown = (ranked ?? candidates).slice(0, n)
  yield* recordBlocked(shown)
  const out: Array<EpisodeHit> = []
  for (const e of shown)
    out.push(
      hitOf(e, yield* passagesOf(e, found.weights, SEARCH_PASSAGE_BYTES, 2).pipe(Effect.orElseSucceed(() => [])))
    )
  return out
})
