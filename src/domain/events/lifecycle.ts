import { Match } from "effect"
import type { Batch } from "../kernel/Stream.js"
import type { NudgeEvent } from "../atoms/nudges.js"
import type { FactEvent, Target } from "../facts/schema.js"
import type { SessionEvent } from "../sessions/session.js"
import { type EpisodeEvent, previewOf } from "../episodes/store.js"
import { isPendingReview } from "../sessions/provenance.js"
import { plural, preview } from "../text/utf8.js"

/**
 * Public event types: the spec's (facts §9), those that make hand edits and imports visible, and two of sessions
 * (a session's first untrusted source, its end) so the audit trail shows where an untrusted episode came from.
 */
export type LifecycleType =
  | "fact_added"
  | "fact_merged"
  | "fact_replaced"
  | "fact_removed"
  | "fact_consolidated"
  | "facts_imported"
  | "facts_edited_externally"
  | "facts_rewritten"
  | "facts_reverted"
  | "facts_edit_rejected"
  | "fact_blocked"
  | "episode_stored"
  | "episode_deduped"
  | "episode_evicted"
  | "episode_promoted"
  | "episode_pending_review"
  | "episode_discarded"
  | "episode_blocked"
  | "episodes_imported"
  | "session_tainted"
  | "session_ended"
  | "nudge"

/**
 * A lifecycle event as library users and `tmem events` see it: the spec's fields (unused ones absent) plus the
 * stream and version it was recorded at, so every event points back into the journal.
 */
export interface LifecycleEvent {
  readonly type: LifecycleType
  readonly stream: string
  readonly version: number
  /** The batch's place in the store-wide feed, when the event was read from the feed: a consumer's checkpoint. */
  readonly position?: number
  readonly timestamp: string
  readonly target?: Target
  readonly sessionId?: string
  /** For fact_removed: the old_text selector, as odek reports it. */
  readonly content?: string
  /** The entry a replace, remove or merge overwrote. */
  readonly previous?: string
  readonly count?: number
  readonly newCount?: number
  readonly sessions?: ReadonlyArray<string>
  readonly similarity?: number
  readonly untrusted?: boolean
  /** For facts_reverted: the version that was undone. */
  readonly reverted?: number
  /** For facts_edit_rejected: where the refused file was moved. */
  readonly keptAs?: string
  /** For fact_blocked and episode_blocked: the scanner's label; for nudge: its kind. */
  readonly label?: string
  /** For nudge: the atoms it was drawn from. */
  readonly atomIds?: ReadonlyArray<string>
}

const CREDENTIAL_LABEL = "potential credential material"

/** What a blocked entry's event shows of it: enough to find it, and nothing of a credential. */
const blockedPreview = (entry: string, label: string): string =>
  label === CREDENTIAL_LABEL ? "(credential hidden)" : preview(entry, 70)

/** Lifecycle events of one appended fact batch, in event order. `version` is that of each event. */
export const factLifecycle = (stream: string, batch: Batch<FactEvent>): ReadonlyArray<LifecycleEvent> => {
  const first = batch.version - batch.events.length
  return batch.events.flatMap((event, i): ReadonlyArray<LifecycleEvent> => {
    const base = { stream, version: first + i + 1, timestamp: event.at, target: event.target }
    // one line per blocked entry: each is a separate thing for a person to remove
    if (event._tag === "FactsBlocked")
      return event.blocked.map((b) => ({
        ...base,
        type: "fact_blocked" as const,
        content: blockedPreview(b.entry, b.label),
        label: b.label
      }))
    const one: LifecycleEvent = Match.valueTags(event, {
      FactAdded: (e) => ({ ...base, type: "fact_added" as const, content: e.content }),
      FactMerged: (e) => ({
        ...base,
        type: "fact_merged" as const,
        content: e.content,
        previous: e.previous,
        similarity: e.similarity
      }),
      FactReplaced: (e) => ({ ...base, type: "fact_replaced" as const, content: e.content, previous: e.previous }),
      FactRemoved: (e) => ({ ...base, type: "fact_removed" as const, content: e.selector, previous: e.previous }),
      FactsImported: (e) => ({ ...base, type: "facts_imported" as const, count: 0, newCount: e.entries.length }),
      FactsEditedExternally: (e) => ({
        ...base,
        type: "facts_edited_externally" as const,
        count: e.previous.length,
        newCount: e.entries.length,
        ...(e.note !== undefined ? { content: e.note } : {})
      }),
      FactsRewritten: (e) => ({
        ...base,
        type: "facts_rewritten" as const,
        count: e.previous.length,
        newCount: e.entries.length
      }),
      FactsConsolidated: (e) => ({
        ...base,
        type: "fact_consolidated" as const,
        count: e.previous.length,
        newCount: e.entries.length
      }),
      FactsReverted: (e) => ({
        ...base,
        type: "facts_reverted" as const,
        count: e.previous.length,
        newCount: e.entries.length,
        reverted: e.reverted
      }),
      FactsEditRejected: (e) => ({ ...base, type: "facts_edit_rejected" as const, content: e.reason, keptAs: e.keptAs })
    })
    return [one]
  })
}

/**
 * Lifecycle events of one appended episode batch (spec episodes §4.7), in the spec's order within a write:
 * deduped, stored, pending review, evicted. `version` is that of the domain event each comes from.
 */
export const episodeLifecycle = (stream: string, batch: Batch<EpisodeEvent>): ReadonlyArray<LifecycleEvent> => {
  const first = batch.version - batch.events.length
  return batch.events.flatMap((event, i): ReadonlyArray<LifecycleEvent> => {
    const base = { stream, version: first + i + 1, timestamp: event.at }
    return Match.valueTags(event, {
      EpisodeStored: (e): ReadonlyArray<LifecycleEvent> => {
        const stored: LifecycleEvent = {
          ...base,
          type: "episode_stored",
          sessionId: e.episode.sessionId,
          content: previewOf(e.episode),
          count: e.episode.turns,
          untrusted: e.episode.provenance.untrusted === true
        }
        return isPendingReview(e.episode.provenance)
          ? [stored, { ...base, type: "episode_pending_review", sessionId: e.episode.sessionId }]
          : [stored]
      },
      EpisodeDeduped: (e): ReadonlyArray<LifecycleEvent> => [
        { ...base, type: "episode_deduped", sessionId: e.removed, similarity: e.similarity }
      ],
      EpisodeDropped: (e): ReadonlyArray<LifecycleEvent> => [
        { ...base, type: "episode_deduped", sessionId: e.episode.sessionId, similarity: e.similarity }
      ],
      EpisodesEvicted: (e): ReadonlyArray<LifecycleEvent> => [
        { ...base, type: "episode_evicted", sessions: e.sessionIds, count: e.sessionIds.length }
      ],
      EpisodePromoted: (e): ReadonlyArray<LifecycleEvent> => [
        { ...base, type: "episode_promoted", sessionId: e.sessionId }
      ],
      EpisodeDiscarded: (e): ReadonlyArray<LifecycleEvent> => [
        { ...base, type: "episode_discarded", sessionId: e.sessionId }
      ],
      EpisodesImported: (e): ReadonlyArray<LifecycleEvent> => [
        { ...base, type: "episodes_imported", count: 0, newCount: e.episodes.length }
      ],
      EpisodeBlocked: (e): ReadonlyArray<LifecycleEvent> => [
        { ...base, type: "episode_blocked", sessionId: e.sessionId, label: e.label }
      ],
      // bookkeeping of owed session-end work: the episode it leads to is the event people see
      ExtractionPending: (): ReadonlyArray<LifecycleEvent> => [],
      ExtractionSettled: (): ReadonlyArray<LifecycleEvent> => []
    })
  })
}

/**
 * Lifecycle events of one session batch: the sources that first made the session untrusted, and its end. Messages
 * and buffer lines are the session's content, not events of the memory.
 */
export const sessionLifecycle = (stream: string, batch: Batch<SessionEvent>): ReadonlyArray<LifecycleEvent> => {
  const first = batch.version - batch.events.length
  const sessionId = stream.slice(stream.indexOf("/") + 1)
  return batch.events.flatMap((event, i): ReadonlyArray<LifecycleEvent> => {
    const base = { stream, version: first + i + 1, timestamp: event.at, sessionId }
    switch (event._tag) {
      case "TaintObserved":
        return [{ ...base, type: "session_tainted", content: event.sources.join(", ") }]
      case "SessionEnded":
        return [{ ...base, type: "session_ended", count: event.turns }]
      default:
        return []
    }
  })
}

/**
 * A proactive nudge delivered (spec extended §15.5): one event per nudge, which a host shows the user (odek's
 * Telegram bot prefixes `💡 `). Only trusted atoms fed it; its text was model-written and scanned.
 */
export const nudgeLifecycle = (stream: string, batch: Batch<NudgeEvent>): ReadonlyArray<LifecycleEvent> => {
  const first = batch.version - batch.events.length
  return batch.events.flatMap((event, i): ReadonlyArray<LifecycleEvent> =>
    event._tag === "NudgesDelivered"
      ? event.nudges.map((n) => ({
          type: "nudge" as const,
          stream,
          version: first + i + 1,
          timestamp: event.at,
          content: n.text,
          label: n.kind,
          atomIds: n.source_atom_ids
        }))
      : []
  )
}

const cut = (s: string | undefined) => preview(s ?? "", 70)

/** The one-line terminal rendering (verbose mode), as odek prints it. */
export const formatLifecycle = (e: LifecycleEvent): string => {
  const t = e.target ?? ""
  switch (e.type) {
    case "fact_added":
      return `🧠 + memory[${t}] added: ${cut(e.content)}`
    case "fact_merged":
      return `🧠 ⇄ memory[${t}] merged: ${cut(e.content)}`
    case "fact_replaced":
      return `🧠 ✎ memory[${t}] replaced: ${cut(e.content)}`
    case "fact_removed":
      return `🧠 − memory[${t}] removed: ${cut(e.content)}`
    case "fact_consolidated":
      return `🧠 consolidated memory[${t}] (${e.count ?? 0} → ${e.newCount ?? 0} entries)`
    case "facts_imported":
      return `🧠 ⇣ memory[${t}] imported (${plural(e.newCount ?? 0, "entry", "entries")})`
    case "facts_edited_externally":
      return (
        `🧠 ✎ memory[${t}] edited outside tmem (${e.count ?? 0} → ${e.newCount ?? 0} entries)` +
        `${e.content ? `: ${cut(e.content)}` : ""}`
      )
    case "facts_rewritten":
      return `🧠 ✎ memory[${t}] rewritten (${e.count ?? 0} → ${e.newCount ?? 0} entries)`
    case "facts_reverted":
      return `🧠 ↶ memory[${t}] reverted version ${e.reverted ?? 0} (${e.count ?? 0} → ${e.newCount ?? 0} entries)`
    case "facts_edit_rejected":
      return `🧠 ✗ memory[${t}] hand edit not adopted: ${cut(e.content)} (kept as ${e.keptAs ?? "?"})`
    case "fact_blocked":
      return `🧠 ⛔ memory[${t}] entry blocked from the prompt (${e.label ?? "?"}): ${cut(e.content)}`
    case "episode_stored":
      return `💾 episode stored: ${e.sessionId ?? ""} ${cut(e.content)}`
    case "episode_deduped":
      return `💾 ⇄ episode deduped: ${e.sessionId ?? ""}`
    case "episode_evicted":
      return `💾 ✗ episode evicted: ${(e.sessions ?? []).join(", ")}`
    case "episode_promoted":
      return `💾 ✓ episode promoted: ${e.sessionId ?? ""}`
    case "episode_pending_review":
      return `🔒 episode pending_review: ${e.sessionId ?? ""}`
    case "episode_discarded":
      return `💾 ✗ episode discarded: ${e.sessionId ?? ""}`
    case "episode_blocked":
      return `💾 ⛔ episode blocked from recall (${e.label ?? "?"}): ${e.sessionId ?? ""}`
    case "episodes_imported":
      return `💾 ⇣ episodes imported (${plural(e.newCount ?? 0, "episode", "episodes")})`
    case "session_tainted":
      return `🔒 session ${e.sessionId ?? ""} untrusted: ${cut(e.content)}`
    case "session_ended":
      return `■ session ${e.sessionId ?? ""} ended (${plural(e.count ?? 0, "turn", "turns")})`
    case "nudge":
      return `💡 ${e.content ?? ""}`
  }
}
