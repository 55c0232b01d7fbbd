import { Either, Schema } from "effect"
import type { FilesProjection, StreamCodec } from "../kernel/Stream.js"
import { EpisodeProvenance } from "../sessions/provenance.js"
import { validSessionId } from "./sessionId.js"
import { capSummary, indexPreview } from "./summary.js"
import {
  Episode,
  EpisodeEvent,
  EpisodeStored,
  type EpisodeStoreState,
  EpisodesImported,
  evolveEpisode,
  foldEpisodes,
  initialEpisodeStore,
  newestFirst
} from "./store.js"

/** The taint source of an episode re-adopted from index.json after the journal lost the batch that stored it. */
export const RECOVERED_SOURCE = "recovered_from_index"

/** The episode store's stream. */
export const EPISODES_STREAM = "episodes"
export const INDEX_FILE = "index.json"

/** `<session-id>.md`: the stored summary, verbatim (spec episodes §1.3). */
export const summaryFile = (sessionId: string) => `${sessionId}.md`

/** The provenance object as odek writes it: keys omitted when false or empty. */
const provenanceJson = (p: EpisodeProvenance): Record<string, unknown> => ({
  ...(p.untrusted === true ? { untrusted: true } : {}),
  ...(p.sources !== undefined && p.sources.length > 0 ? { sources: [...p.sources] } : {}),
  ...(p.user_approved === true ? { user_approved: true } : {}),
  ...(p.auto_approved === true ? { auto_approved: true } : {})
})

/**
 * `index.json` in odek's format (spec §1.4): an array, newest first, two-space indented, fields in odek's order.
 * `extractive: true` marks summaries made without a model (odek's readers ignore the extra key).
 */
export const renderIndex = (state: EpisodeStoreState): string => {
  const episodes = newestFirst(state.episodes)
  // byte for byte JSON.stringify(entries, null, 2), one remembered entry per episode: index.json is written whole on
  // every change, and rendering all 10,000 entries again was the largest part of an ingest there
  return episodes.length === 0 ? "[]" : `[\n${episodes.map(indexEntryText).join(",\n")}\n]`
}

// Episodes never change (a change is a new episode object): each one's entry is rendered once.
const entryTexts = new WeakMap<Episode, string>()
const indexEntryText = (e: Episode): string => {
  let text = entryTexts.get(e)
  if (text === undefined) {
    const entry = {
      session_id: e.sessionId,
      turns: e.turns,
      created_at: e.createdAt,
      summary: indexPreview(e.summary),
      provenance: provenanceJson(e.provenance),
      ...(e.source === "extractive" ? { extractive: true } : {})
    }
    // one level deeper than on its own: every line indented two more spaces
    text = `  ${JSON.stringify(entry, null, 2).replaceAll("\n", "\n  ")}`
    entryTexts.set(e, text)
  }
  return text
}

const IndexEntry = Schema.Struct({
  session_id: Schema.String,
  turns: Schema.optionalWith(Schema.Number, { default: () => 0 }),
  created_at: Schema.optionalWith(Schema.String, { default: () => "1970-01-01T00:00:00.000Z" }),
  summary: Schema.optionalWith(Schema.String, { default: () => "" }),
  provenance: Schema.optionalWith(EpisodeProvenance, { default: () => ({}) }),
  extractive: Schema.optionalWith(Schema.Boolean, { default: () => false })
})

/**
 * The episodes of an odek directory: entries of `index.json` with a valid session id (invalid ones never name a
 * file), the full text from `<id>.md` (the preview when that file is missing), provenance as written — legacy
 * entries without one read as trusted, as in odek. Unparseable entries are skipped; a corrupt index adopts nothing.
 */
export const parseOdekIndex = (read: (file: string) => string | undefined): ReadonlyArray<Episode> => {
  const text = read(INDEX_FILE)
  if (text === undefined) return []
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return []
  }
  if (!Array.isArray(json)) return []
  const seen = new Set<string>()
  const out: Array<Episode> = []
  for (const raw of json) {
    const entry = Schema.decodeUnknownEither(IndexEntry)(raw)
    if (Either.isLeft(entry)) continue
    const e = entry.right
    if (!validSessionId(e.session_id) || seen.has(e.session_id)) continue
    seen.add(e.session_id)
    const full = read(summaryFile(e.session_id))
    out.push({
      sessionId: e.session_id,
      // JSON's 1e999 parses as Infinity, which a journal line would write as null and no reader could decode
      turns: Number.isFinite(e.turns) ? Math.max(0, Math.floor(e.turns)) : 0,
      createdAt: e.created_at,
      summary: capSummary((full ?? e.summary).trim()),
      provenance: e.provenance,
      source: e.extractive ? "extractive" : "llm"
    })
  }
  // oldest first, as if they had been stored in order
  return [...newestFirst(out)].reverse()
}

/** How stores keep the episode store: the fold and the event schema. */
export const episodeCodec: StreamCodec<EpisodeStoreState, EpisodeEvent> = {
  initialState: initialEpisodeStore,
  evolve: evolveEpisode,
  fold: foldEpisodes,
  events: EpisodeEvent,
  // the episode store's history grows with every session: a new process starts from a snapshot
  snapshot: Schema.Struct({
    episodes: Schema.Array(Episode),
    pending: Schema.optionalWith(Schema.Array(Schema.String), { exact: true })
  })
}

/** odek's files of the episode store: a summary file per session and `index.json`, written, never read back. */
export const episodeFiles: FilesProjection<EpisodeStoreState, EpisodeEvent> = {
  manifest: INDEX_FILE,
  render: (state) => {
    const files = new Map<string, string>()
    for (const e of state.episodes) files.set(summaryFile(e.sessionId), e.summary)
    files.set(INDEX_FILE, renderIndex(state))
    return files
  },
  imported: (read, at) => {
    const episodes = parseOdekIndex(read)
    return episodes.length === 0 ? [] : [EpisodesImported.make({ episodes, at })]
  },
  // the index is a file an agent could write: what comes back from it waits for a person's review
  recovered: (read, state, at) => {
    const known = new Set(state.episodes.map((e) => e.sessionId))
    return parseOdekIndex(read)
      .filter((e) => !known.has(e.sessionId))
      .map((e) =>
        EpisodeStored.make({
          episode: {
            ...e,
            provenance: {
              untrusted: true,
              sources: [...new Set([...(e.provenance.sources ?? []), RECOVERED_SOURCE])]
            }
          },
          at
        })
      )
  }
}
