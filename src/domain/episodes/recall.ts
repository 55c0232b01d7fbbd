/**
 * Texts around episode recall (spec episodes §7, §8): the per-turn query and context block, the LLM ranker's
 * prompt and reply, and the search tool's message.
 */
import type { LlmRequestText } from "../llm/prompts.js"
import { trimSpace, truncateBytes, utf8Bytes } from "../text/utf8.js"

/** Trusted hits a per-turn recall keeps before choosing the best (§7.4). */
export const RECALL_OVERFETCH = 8
/** Episodes shown per turn (§7.4). */
export const RECALL_KEEP = 3
/**
 * Raw index hits asked for, `3k + 5` with k = RECALL_OVERFETCH: room for hits the trust and index filters drop (§7.4).
 */
export const RECALL_RAW_HITS = 3 * RECALL_OVERFETCH + 5

/** One episode as recall and search show it: its preview, and the sentences of its text that match the query. */
export interface EpisodeHit {
  readonly sessionId: string
  readonly turns: number
  readonly preview: string
  /** Best first; empty when nothing but the preview is shown. */
  readonly passages?: ReadonlyArray<string>
}

/** What recall searches for (§7.1): the latest user message, then each plan step not yet `done`, one per line. */
export const recallQuery = (
  latestUserMessage: string,
  planSteps: ReadonlyArray<{ readonly title: string; readonly status: string }>
): string => [latestUserMessage, ...planSteps.filter((s) => s.status !== "done").map((s) => s.title)].join("\n")

const HEADER = "\n═══ RELEVANT PAST SESSIONS ═══\nSummaries of past sessions related to the current task:\n"
const FOOTER = `${"─".repeat(33)}\nUse this context to recall past decisions, fixes, and discussions.\n`
const PASSAGE_PREFIX = "  › "

/** The block's fixed text and one episode's line, in bytes: what is left of a budget for the matching sentences. */
export const blockOverhead = (episodes: ReadonlyArray<Pick<EpisodeHit, "sessionId" | "turns" | "preview">>): number =>
  utf8Bytes(HEADER) + utf8Bytes(FOOTER) + episodes.reduce((n, e) => n + utf8Bytes(episodeLine(e)), 0)

const episodeLine = (e: Pick<EpisodeHit, "sessionId" | "turns" | "preview">) =>
  `• [${e.sessionId}] (${e.turns} turns): ${e.preview}\n`

/** Bytes each passage line adds besides its text. */
export const PASSAGE_LINE_OVERHEAD = utf8Bytes(PASSAGE_PREFIX) + 1

/**
 * The per-turn context block (§7.5, extended by DESIGN §7 "Retrieval"), best first, at most RECALL_KEEP episodes,
 * each with its matching sentences indented under it; no episodes → "".
 */
export const formatEpisodeContext = (episodes: ReadonlyArray<EpisodeHit>): string => {
  if (episodes.length === 0) return ""
  const lines = episodes
    .slice(0, RECALL_KEEP)
    .map((e) => episodeLine(e) + (e.passages ?? []).map((p) => `${PASSAGE_PREFIX}${p}\n`).join(""))
  return HEADER + lines.join("") + FOOTER
}

const RANKER_SYSTEM =
  "You are a relevance ranking system. Given a query and a list of items, return the indices of the most relevant " +
  "items ordered by relevance. Return only a comma-separated list of numbers or the word 'none'."
const RANKER_ITEM_BYTES = 200

const rankerItem = (preview: string): string =>
  utf8Bytes(preview) <= RANKER_ITEM_BYTES ? preview : `${truncateBytes(preview, RANKER_ITEM_BYTES - 3)}...`

/** The explicit-search reranking call (§8.2): items numbered from 0, each cut rune-safely to 200 bytes. */
export const rankerPrompt = (query: string, previews: ReadonlyArray<string>): LlmRequestText => ({
  system: RANKER_SYSTEM,
  user:
    `Rank these memory summaries by relevance to: ${query}\n\n` +
    previews.map((p, i) => `[${i}] ${rankerItem(p)}\n`).join("") +
    "\nReturn only the indices of the most relevant entries, ordered by relevance (most relevant first).\n" +
    'Format: a single line of comma-separated numbers, e.g. "3,0,1"\n' +
    'If none are relevant, return "none".'
})

/** What the ranker said: an order over the items, that nothing is relevant, or nothing usable (keep input order). */
export type Ranking =
  | { readonly kind: "order"; readonly indices: ReadonlyArray<number> }
  | { readonly kind: "none" }
  | { readonly kind: "unusable" }

/**
 * Reads the ranker's reply (§8.2): `none` in any case → none; else comma-separated parts, each read as its ASCII
 * digits (parts without digits skipped), kept when in `[0, count)`, first occurrence wins. No valid index → unusable.
 */
export const parseRanking = (reply: string, count: number): Ranking => {
  const t = trimSpace(reply)
  if (t === "") return { kind: "unusable" }
  if (t.toLowerCase() === "none") return { kind: "none" }
  const indices: Array<number> = []
  for (const part of t.split(",")) {
    const digits = part.replace(/[^0-9]/g, "")
    if (digits === "") continue
    const i = Number(digits)
    if (i < count && !indices.includes(i)) indices.push(i)
  }
  return indices.length === 0 ? { kind: "unusable" } : { kind: "order", indices }
}

/** The `memory` tool's search message (§8.5). */
export const searchToolMessage = (results: ReadonlyArray<EpisodeHit>): string =>
  results.length === 0
    ? "no matching episodes found"
    : `Found ${results.length} matching episode(s):\n\n` +
      results.map((r) => `• ${r.sessionId} (${r.turns} turns)\n  ${r.preview}\n\n`).join("")
