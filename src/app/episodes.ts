import { Clock, Effect, Either } from "effect"
import { handleCommand } from "./commandHandler.js"
import type { MemoryConfig } from "../domain/config/MemoryConfig.js"
import { episodeLifecycle } from "../domain/events/lifecycle.js"
import {
  decideEpisode,
  type DedupMatch,
  type Episode,
  type EpisodeCommand,
  type EpisodeError,
  type EpisodeEvent,
  type EpisodePolicy,
  type EpisodeStoreState,
  newestFirst,
  type SummarySource
} from "../domain/episodes/store.js"
import { EPISODES_STREAM, episodeCodec } from "../domain/episodes/stream.js"
import type { Batch } from "../domain/kernel/Stream.js"
import { type EpisodeProvenance, isPendingReview } from "../domain/sessions/provenance.js"
import { Embedder, similaritiesOf } from "../ports/Embedder.js"
import { EventStore } from "../ports/EventStore.js"
import { Notifier } from "../ports/Notifier.js"
import { Settings } from "./Settings.js"

/** The episode decider's view of the settings. */
export const episodePolicy = (c: MemoryConfig): EpisodePolicy => ({
  enabled: c.enabled,
  dedupThreshold: c.episodeDedupThreshold,
  maxEpisodes: c.maxEpisodes,
  ttlDays: c.episodeTtlDays,
  autoApprove: c.autoApproveEpisodes
})

const notify = (batches: ReadonlyArray<Batch<EpisodeEvent>>) =>
  Effect.flatMap(Notifier, (n) => n.notify(batches.flatMap((b) => episodeLifecycle(EPISODES_STREAM, b))))

/**
 * The episode store's state and version. What the store appended while loading (the adoption of an odek directory)
 * is announced: the notifier is woken to read the feed.
 */
export const loadEpisodes = Effect.fn("loadEpisodes")(function* () {
  const loaded = yield* (yield* EventStore).load(EPISODES_STREAM, episodeCodec)
  yield* notify([])
  return loaded
})

/** Load → decide → append → notify for the episode stream, re-decided when another writer got in between. */
const execute = <R>(command: (state: EpisodeStoreState, at: string) => Effect.Effect<EpisodeCommand, never, R>) =>
  Effect.flatMap(Settings, (config) => {
    const decide = decideEpisode(episodePolicy(config))
    return handleCommand({
      stream: EPISODES_STREAM,
      codec: episodeCodec,
      decide: (state: EpisodeStoreState, at: string) =>
        Effect.flatMap(command(state, at), (c) => Either.mapLeft(decide(c, state), (e): EpisodeError => e)),
      publish: notify
    })
  })

/**
 * The existing episode closest to `summary` (spec §4.5.2): a fresh fit on every full summary plus the new one,
 * best cosine strictly above 0. Any embedding failure is "no duplicate": a wrong dedup would delete an episode.
 */
export const dedupProbe = Effect.fn("dedupProbe")(function* (
  episodes: ReadonlyArray<Episode>,
  sessionId: string,
  summary: string
) {
  const others = episodes.filter((e) => e.sessionId !== sessionId)
  if (others.length === 0) return undefined
  // the fit includes the new summary, as odek's does
  const scores = yield* Effect.option(
    similaritiesOf(yield* Embedder, [...others.map((e) => e.summary), summary], summary)
  )
  if (scores._tag === "None") return undefined
  let best: { readonly index: number; readonly score: number } | undefined
  for (let index = 0; index < others.length; index++) {
    const score = scores.value[index]!
    if (best === undefined || score > best.score) best = { index, score }
  }
  return best === undefined || !(best.score > 0)
    ? undefined
    : ({ sessionId: others[best.index]!.sessionId, similarity: best.score } satisfies DedupMatch)
})

export interface NewEpisode {
  readonly sessionId: string
  readonly summary: string
  readonly turns: number
  readonly provenance: EpisodeProvenance
  readonly source: SummarySource
}

/** Writes one episode: capped, de-duplicated by trust rank, evicting by TTL and count (spec §4.2). */
export const storeEpisode = Effect.fn("storeEpisode")(function* (input: NewEpisode) {
  const config = yield* Settings
  const result = yield* execute((state, at) =>
    Effect.gen(function* () {
      const match =
        config.episodeDedupThreshold > 0 ? yield* dedupProbe(state.episodes, input.sessionId, input.summary) : undefined
      return { _tag: "StoreEpisode", ...input, match, at } satisfies EpisodeCommand
    })
  )
  const stored = result.events.find((e) => e._tag === "EpisodeStored")
  const dropped = result.events.find((e) => e._tag === "EpisodeDropped")
  return {
    stored: stored !== undefined,
    dropped: dropped?._tag === "EpisodeDropped" ? dropped.duplicateOf : undefined,
    events: result.events
  }
})

const simple = (make: (at: string) => EpisodeCommand) => execute((_, at) => Effect.succeed(make(at)))

/** A person's approval of an episode (CLI only, never a tool action: DESIGN §5.6). */
export const promoteEpisode = Effect.fn("promoteEpisode")(function* (sessionId: string) {
  yield* simple((at) => ({ _tag: "PromoteEpisode", sessionId, at }))
})

/**
 * Records that recall met an episode whose summary the current scanner refuses (scan on load); recall shows it as
 * a BLOCKED line whether or not the record could be made, so a failure is only a warning.
 */
export const reportBlockedEpisode = (sessionId: string, label: string) =>
  simple((at) => ({ _tag: "ReportBlockedEpisode", sessionId, label, at })).pipe(
    Effect.asVoid,
    Effect.catchAll((e) =>
      Effect.logWarning(`memory: episode ${sessionId} blocked from recall (${label}) was not recorded: ${e.message}`)
    )
  )

/** A person's removal of a pending (or blocked) episode and its summary file. */
export const discardEpisode = Effect.fn("discardEpisode")(function* (sessionId: string) {
  yield* simple((at) => ({ _tag: "DiscardEpisode", sessionId, at }))
})

/** TTL and count eviction on demand (it also runs on every write). */
export const pruneEpisodes = Effect.fn("pruneEpisodes")(function* () {
  const r = yield* simple((at) => ({ _tag: "PruneEpisodes", at }))
  return r.events.flatMap((e) => (e._tag === "EpisodesEvicted" ? e.sessionIds : []))
})

/**
 * The retention rule a person chooses for the episodes journal (never applied by default): the history written more
 * than `keepDays` days ago is folded into the journal's base line, so the journal stops growing with every session
 * ever ingested. The episodes themselves, their trust and the files are unchanged; `tmem events` and the feed no
 * longer show the forgotten batches. Answers how many batches were forgotten and up to which version.
 */
export const compactEpisodes = Effect.fn("compactEpisodes")(function* (keepDays: number) {
  const store = yield* EventStore
  const cutoff = (yield* Clock.currentTimeMillis) - keepDays * 86_400_000
  const batches = yield* store.read(EPISODES_STREAM, episodeCodec)
  let through = 0
  for (const b of batches) if (Date.parse(b.at) < cutoff) through = b.version
  const forgotten = through === 0 ? 0 : yield* store.compact(EPISODES_STREAM, episodeCodec, through)
  // the journal's last batch always stays, so the base may end before `through`
  return { forgotten, through: forgotten === 0 ? undefined : batches[forgotten - 1]!.version }
})

/** Records that a session's session-end work is owed, before the model is asked (see `ExtractionPending`). */
export const markExtractionPending = Effect.fn("markExtractionPending")(function* (sessionId: string) {
  yield* simple((at) => ({ _tag: "MarkExtractionPending", sessionId, at }))
})

/** Completes owed session-end work that ended without an episode (an episode completes it by itself). */
export const settleExtraction = Effect.fn("settleExtraction")(function* (sessionId: string, outcome: string) {
  yield* simple((at) => ({ _tag: "SettleExtraction", sessionId, outcome, at }))
})

/** Sessions whose session-end work is owed, oldest first. */
export const pendingExtractions = Effect.fn("pendingExtractions")(function* () {
  return (yield* loadEpisodes()).state.pending ?? []
})

/** Episodes newest first: pending review only (the review queue), or all of them with their trust. */
export const listEpisodes = Effect.fn("listEpisodes")(function* (options: { readonly all: boolean }) {
  const { state } = yield* loadEpisodes()
  const all = newestFirst(state.episodes)
  return options.all ? all : all.filter((e) => isPendingReview(e.provenance))
})

/** One episode by id (for a person: the CLI shows pending ones too). */
export const findEpisode = Effect.fn("findEpisode")(function* (sessionId: string) {
  const { state } = yield* loadEpisodes()
  return state.episodes.find((e) => e.sessionId === sessionId)
})
