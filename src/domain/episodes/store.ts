import { MemoryDisabled } from "../kernel/errors.js"
import { Instant } from "../kernel/Instant.js"
import { Either, Schema } from "effect"
import { EpisodeProvenance, isPendingReview, trustRank } from "../sessions/provenance.js"
import { summariesDiffer } from "../text/distinguishing.js"
import { validSessionId } from "./sessionId.js"
import { capSummary, indexPreview } from "./summary.js"

const absurd = (x: never): never => x

/**
 * The episode store as one stream (`episodes`): which episodes exist, their full summaries and their trust. The
 * journal is the only source of trust: `index.json` is a projection an agent could edit, so nothing read back from
 * it can approve an episode (docs/EPISODES.md).
 */

/** The taint source recorded when the scanner refused an episode's summary. */
export const GUARD_SOURCE = "guard:episode-summary"

/** How an episode's summary was produced: by the model, or by the deterministic no-LLM fallback. */
export const SummarySource = Schema.Literal("llm", "extractive")
export type SummarySource = typeof SummarySource.Type

export const Episode = Schema.Struct({
  sessionId: Schema.String,
  turns: Schema.Number,
  createdAt: Instant,
  /** The stored text (`<session-id>.md`), already capped at 2,048 bytes. */
  summary: Schema.String,
  provenance: EpisodeProvenance,
  source: SummarySource,
  /**
   * The label under which the scanner refused the summary on a later read (scan on load): recall shows a BLOCKED
   * line in its place. Absent while it passes.
   */
  blocked: Schema.optionalWith(Schema.String, { exact: true })
})
export type Episode = typeof Episode.Type

export const EpisodeStored = Schema.TaggedStruct("EpisodeStored", {
  episode: Episode,
  /** An earlier episode of the same session it replaced, if any. */
  replaced: Schema.optionalWith(Schema.Boolean, { exact: true }),
  at: Instant
})
/** A near-duplicate left the store: `removed` was replaced by the newer `by` (same or higher trust). */
export const EpisodeDeduped = Schema.TaggedStruct("EpisodeDeduped", {
  removed: Schema.String,
  by: Schema.String,
  similarity: Schema.Number,
  at: Instant
})
/** An untrusted, unapproved episode near-duplicating a trusted one was not stored; kept here for audit. */
export const EpisodeDropped = Schema.TaggedStruct("EpisodeDropped", {
  episode: Episode,
  duplicateOf: Schema.String,
  similarity: Schema.Number,
  at: Instant
})
export const EpisodesEvicted = Schema.TaggedStruct("EpisodesEvicted", {
  sessionIds: Schema.Array(Schema.String),
  reason: Schema.Literal("ttl", "cap"),
  at: Instant
})
export const EpisodePromoted = Schema.TaggedStruct("EpisodePromoted", { sessionId: Schema.String, at: Instant })
export const EpisodeDiscarded = Schema.TaggedStruct("EpisodeDiscarded", { sessionId: Schema.String, at: Instant })
/**
 * A stored episode's summary failed the current scanner when recall came to show it (it was stored before a rule
 * existed, or imported): recall shows `[BLOCKED: <label>]` in its place until a person discards or replaces it.
 */
export const EpisodeBlocked = Schema.TaggedStruct("EpisodeBlocked", {
  sessionId: Schema.String,
  label: Schema.String,
  at: Instant
})
/** An odek episode directory adopted as the stream's first state. */
export const EpisodesImported = Schema.TaggedStruct("EpisodesImported", {
  episodes: Schema.Array(Episode),
  at: Instant
})
/**
 * A session ended and its session-end work (extraction) is owed. Recorded before the model is asked, so work cut
 * short (Ctrl-C, a closing memory, a crash) is found again and finished; the session's episode (stored or dropped)
 * or an `ExtractionSettled` completes it.
 */
export const ExtractionPending = Schema.TaggedStruct("ExtractionPending", { sessionId: Schema.String, at: Instant })
/** Session-end work finished without an episode (declined, skipped); `outcome` says why, for the audit trail. */
export const ExtractionSettled = Schema.TaggedStruct("ExtractionSettled", {
  sessionId: Schema.String,
  outcome: Schema.String,
  at: Instant
})

export const EpisodeEvent = Schema.Union(
  EpisodeStored,
  EpisodeDeduped,
  EpisodeDropped,
  EpisodesEvicted,
  EpisodePromoted,
  EpisodeDiscarded,
  EpisodesImported,
  ExtractionPending,
  ExtractionSettled,
  EpisodeBlocked
)
export type EpisodeEvent = typeof EpisodeEvent.Type

/** The closest existing episode to a new summary, as the app's embedder found it (absent: none, or a failure). */
export const DedupMatch = Schema.Struct({ sessionId: Schema.String, similarity: Schema.Number })
export type DedupMatch = typeof DedupMatch.Type

export const StoreEpisode = Schema.TaggedStruct("StoreEpisode", {
  sessionId: Schema.String,
  summary: Schema.String,
  turns: Schema.Number,
  provenance: EpisodeProvenance,
  source: SummarySource,
  match: Schema.optional(DedupMatch),
  at: Instant
})
export const PromoteEpisode = Schema.TaggedStruct("PromoteEpisode", { sessionId: Schema.String, at: Instant })
export const DiscardEpisode = Schema.TaggedStruct("DiscardEpisode", { sessionId: Schema.String, at: Instant })
export const PruneEpisodes = Schema.TaggedStruct("PruneEpisodes", { at: Instant })
export const MarkExtractionPending = Schema.TaggedStruct("MarkExtractionPending", {
  sessionId: Schema.String,
  at: Instant
})
export const SettleExtraction = Schema.TaggedStruct("SettleExtraction", {
  sessionId: Schema.String,
  outcome: Schema.String,
  at: Instant
})
export const ReportBlockedEpisode = Schema.TaggedStruct("ReportBlockedEpisode", {
  sessionId: Schema.String,
  label: Schema.String,
  at: Instant
})
export const EpisodeCommand = Schema.Union(
  StoreEpisode,
  PromoteEpisode,
  DiscardEpisode,
  PruneEpisodes,
  MarkExtractionPending,
  SettleExtraction,
  ReportBlockedEpisode
)
export type EpisodeCommand = typeof EpisodeCommand.Type

export interface EpisodeStoreState {
  /** In the order they were stored; `newestFirst` gives the order every reader sees. */
  readonly episodes: ReadonlyArray<Episode>
  /** Sessions whose session-end work is owed, oldest first (absent when none). */
  readonly pending?: ReadonlyArray<string>
}

export const initialEpisodeStore: EpisodeStoreState = { episodes: [] }

/** The settings episode decisions depend on (resolved config). */
export interface EpisodePolicy {
  readonly enabled: boolean
  /** ≤ 0 disables dedup. */
  readonly dedupThreshold: number
  /** ≤ 0 disables the count cap. */
  readonly maxEpisodes: number
  /** ≤ 0 keeps episodes forever. */
  readonly ttlDays: number
  readonly autoApprove: boolean
}

/** A session id an episode cannot have: it would not be a safe file stem (sessionId.ts). */
export class InvalidEpisodeId extends Schema.TaggedError<InvalidEpisodeId>()("InvalidEpisodeId", {
  sessionId: Schema.String
}) {
  override get message() {
    return `memory: invalid session id ${JSON.stringify(this.sessionId)}`
  }
}
export class EpisodeNotFound extends Schema.TaggedError<EpisodeNotFound>()("EpisodeNotFound", {
  sessionId: Schema.String
}) {
  override get message() {
    return `memory: episode ${JSON.stringify(this.sessionId)} not found`
  }
}
export class EpisodeAlreadyApproved extends Schema.TaggedError<EpisodeAlreadyApproved>()("EpisodeAlreadyApproved", {
  sessionId: Schema.String
}) {
  override get message() {
    return `memory: episode ${JSON.stringify(this.sessionId)} is already approved`
  }
}
/**
 * Only an episode waiting for a person's review, or one the scanner blocks from recall, can be discarded; a trusted
 * one leaves by eviction.
 */
export class EpisodeNotPending extends Schema.TaggedError<EpisodeNotPending>()("EpisodeNotPending", {
  sessionId: Schema.String
}) {
  override get message() {
    return (
      `memory: episode ${JSON.stringify(this.sessionId)} is not pending review; ` +
      `only pending or blocked episodes can be discarded`
    )
  }
}
export type EpisodeError =
  MemoryDisabled | InvalidEpisodeId | EpisodeNotFound | EpisodeAlreadyApproved | EpisodeNotPending

const fail = (error: EpisodeError) => Either.left(error)

// Imported odek timestamps carry any RFC 3339 precision (Go writes nanoseconds), so instants are compared as times.
const millis = (instant: string) => {
  const t = Date.parse(instant)
  return Number.isNaN(t) ? 0 : t
}

/** Newest first by creation time; ties keep the later-stored first (a stable, total order). */
export const newestFirst = (episodes: ReadonlyArray<Episode>): ReadonlyArray<Episode> =>
  episodes
    .map((e, i) => ({ e, i, t: millis(e.createdAt) }))
    .sort((a, b) => b.t - a.t || b.i - a.i)
    .map(({ e }) => e)

/** Sessions to evict from `episodes` at `at`: TTL first, then the count cap on what remains (spec §4.6). */
const evictions = (episodes: ReadonlyArray<Episode>, policy: EpisodePolicy, at: string) => {
  const out: Array<{ readonly sessionIds: ReadonlyArray<string>; readonly reason: "ttl" | "cap" }> = []
  let live = episodes
  if (policy.ttlDays > 0) {
    const cutoff = millis(at) - policy.ttlDays * 24 * 3600 * 1000
    const old = live.filter((e) => millis(e.createdAt) < cutoff).map((e) => e.sessionId)
    if (old.length > 0) {
      out.push({ sessionIds: old, reason: "ttl" })
      live = live.filter((e) => !old.includes(e.sessionId))
    }
  }
  if (policy.maxEpisodes > 0 && live.length > policy.maxEpisodes) {
    const over = newestFirst(live)
      .slice(policy.maxEpisodes)
      .map((e) => e.sessionId)
    out.push({ sessionIds: over, reason: "cap" })
  }
  return out
}

const evictionEvents = (
  episodes: ReadonlyArray<Episode>,
  policy: EpisodePolicy,
  at: string
): ReadonlyArray<EpisodeEvent> => evictions(episodes, policy, at).map((e) => EpisodesEvicted.make({ ...e, at }))

const find = (state: EpisodeStoreState, id: string) => state.episodes.find((e) => e.sessionId === id)

/** Decisions for the episode store. Time, the dedup match and the provenance arrive inside the command. */
export const decideEpisode =
  (policy: EpisodePolicy) =>
  (command: EpisodeCommand, state: EpisodeStoreState): Either.Either<ReadonlyArray<EpisodeEvent>, EpisodeError> => {
    if (!policy.enabled) return fail(new MemoryDisabled())
    switch (command._tag) {
      case "StoreEpisode": {
        if (!validSessionId(command.sessionId)) return fail(new InvalidEpisodeId({ sessionId: command.sessionId }))
        // A summary the guard refused is never auto-approved: only a person's promote makes it recallable (§3.5.4).
        const guarded = command.provenance.sources?.includes(GUARD_SOURCE) === true
        const provenance: EpisodeProvenance =
          command.provenance.untrusted === true &&
          policy.autoApprove &&
          !guarded &&
          command.provenance.user_approved !== true
            ? { ...command.provenance, auto_approved: true }
            : command.provenance
        const episode: Episode = {
          sessionId: command.sessionId,
          turns: command.turns,
          createdAt: command.at,
          summary: capSummary(command.summary),
          provenance,
          source: command.source
        }
        const replaced = find(state, command.sessionId) !== undefined
        // The same session's older episode is out of the comparison: re-running a session overwrites its episode.
        const others = state.episodes.filter((e) => e.sessionId !== command.sessionId)
        const match = command.match
        const candidate =
          match !== undefined && policy.dedupThreshold > 0 && match.similarity >= policy.dedupThreshold
            ? others.find((e) => e.sessionId === match.sessionId)
            : undefined
        // Close wording is not the same session: summaries whose names, numbers, paths or words differ are both kept.
        const matched =
          candidate !== undefined && summariesDiffer(candidate.summary, episode.summary) === undefined
            ? candidate
            : undefined
        if (matched !== undefined && trustRank(provenance) < trustRank(matched.provenance))
          // An unapproved untrusted near-copy never displaces what a person can rely on.
          return Either.right([
            EpisodeDropped.make({
              episode,
              duplicateOf: matched.sessionId,
              similarity: match!.similarity,
              at: command.at
            })
          ])
        const deduped =
          matched === undefined
            ? []
            : [
                EpisodeDeduped.make({
                  removed: matched.sessionId,
                  by: command.sessionId,
                  similarity: match!.similarity,
                  at: command.at
                })
              ]
        const stored = EpisodeStored.make({ episode, ...(replaced ? { replaced: true } : {}), at: command.at })
        const after = [...others.filter((e) => e.sessionId !== matched?.sessionId), episode]
        return Either.right([...deduped, stored, ...evictionEvents(after, policy, command.at)])
      }
      case "PromoteEpisode": {
        if (!validSessionId(command.sessionId)) return fail(new InvalidEpisodeId({ sessionId: command.sessionId }))
        const e = find(state, command.sessionId)
        if (e === undefined) return fail(new EpisodeNotFound({ sessionId: command.sessionId }))
        if (e.provenance.user_approved === true)
          return fail(new EpisodeAlreadyApproved({ sessionId: command.sessionId }))
        return Either.right([EpisodePromoted.make({ sessionId: command.sessionId, at: command.at })])
      }
      case "DiscardEpisode": {
        if (!validSessionId(command.sessionId)) return fail(new InvalidEpisodeId({ sessionId: command.sessionId }))
        const e = find(state, command.sessionId)
        if (e === undefined) return fail(new EpisodeNotFound({ sessionId: command.sessionId }))
        // a blocked episode is what a person must be able to remove, trusted or not
        if (!isPendingReview(e.provenance) && e.blocked === undefined)
          return fail(new EpisodeNotPending({ sessionId: command.sessionId }))
        return Either.right([EpisodeDiscarded.make({ sessionId: command.sessionId, at: command.at })])
      }
      case "PruneEpisodes":
        return Either.right(evictionEvents(state.episodes, policy, command.at))
      case "MarkExtractionPending":
        if (!validSessionId(command.sessionId)) return fail(new InvalidEpisodeId({ sessionId: command.sessionId }))
        return Either.right(
          isPending(state, command.sessionId)
            ? []
            : [ExtractionPending.make({ sessionId: command.sessionId, at: command.at })]
        )
      case "SettleExtraction":
        return Either.right(
          isPending(state, command.sessionId)
            ? [ExtractionSettled.make({ sessionId: command.sessionId, outcome: command.outcome, at: command.at })]
            : []
        )
      case "ReportBlockedEpisode": {
        // once per episode and label: an episode gone since, or already recorded so, needs no record
        const e = find(state, command.sessionId)
        return Either.right(
          e === undefined || e.blocked === command.label
            ? []
            : [EpisodeBlocked.make({ sessionId: command.sessionId, label: command.label, at: command.at })]
        )
      }
    }
  }

/** Whether the session's session-end work is still owed. */
export const isPending = (state: EpisodeStoreState, sessionId: string): boolean =>
  state.pending?.includes(sessionId) === true

/**
 * The state after `events`, in one pass however long the history: stores fold whole journals with it. The maps are
 * local to the call (the caller's state is never touched), and a Map keeps insertion order, so delete-then-set is
 * "remove, then append" and set on a present key keeps the position, exactly as the array operations would.
 * Session ids within one import are unique (the importer skips repeats), so one entry per id loses nothing.
 */
export const foldEpisodes = (state: EpisodeStoreState, events: Iterable<EpisodeEvent>): EpisodeStoreState => {
  let byId = new Map(state.episodes.map((e) => [e.sessionId, e] as const))
  const pending = new Set(state.pending)
  // a switch, not Match: this loop runs once per event of the whole journal
  for (const e of events)
    switch (e._tag) {
      case "EpisodeStored":
        byId.delete(e.episode.sessionId)
        byId.set(e.episode.sessionId, e.episode)
        pending.delete(e.episode.sessionId)
        break
      case "EpisodeDeduped":
        byId.delete(e.removed)
        break
      case "EpisodeDropped":
        pending.delete(e.episode.sessionId)
        break
      case "EpisodesEvicted":
        for (const id of e.sessionIds) byId.delete(id)
        break
      case "EpisodePromoted": {
        const x = byId.get(e.sessionId)
        if (x !== undefined) byId.set(e.sessionId, { ...x, provenance: { ...x.provenance, user_approved: true } })
        break
      }
      case "EpisodeDiscarded":
        byId.delete(e.sessionId)
        break
      case "EpisodesImported":
        byId = new Map(e.episodes.map((x) => [x.sessionId, x] as const))
        break
      case "ExtractionPending":
        pending.add(e.sessionId)
        break
      case "ExtractionSettled":
        pending.delete(e.sessionId)
        break
      case "EpisodeBlocked": {
        const x = byId.get(e.sessionId)
        if (x !== undefined) byId.set(e.sessionId, { ...x, blocked: e.label })
        break
      }
      default:
        return absurd(e)
    }
  return pending.size === 0 ? { episodes: [...byId.values()] } : { episodes: [...byId.values()], pending: [...pending] }
}

export const evolveEpisode = (state: EpisodeStoreState, event: EpisodeEvent): EpisodeStoreState =>
  foldEpisodes(state, [event])

/** The ≤120-byte preview the index, recall and search show. */
export const previewOf = (e: Episode): string => indexPreview(e.summary)
