import { Schema } from "effect"
import { Instant } from "../kernel/Instant.js"
import { GuardRecord } from "../scan/guardVerdict.js"

/** Which fact file: `user` (who the user is, preferences) or `env` (the machine, projects, tools). */
export const Target = Schema.Literal("user", "env")
export type Target = typeof Target.Type
export const TARGETS: ReadonlyArray<Target> = ["user", "env"]

export { Instant }

/**
 * Why an added fact was not merged into the close entry it was compared with (issue 10): absent on events stored
 * before it existed and on adds that met no close entry.
 */
export const KeptApart = Schema.Struct({ entry: Schema.String, similarity: Schema.Number, reason: Schema.String })
export type KeptApart = typeof KeptApart.Type
export const FactAdded = Schema.TaggedStruct("FactAdded", {
  target: Target,
  content: Schema.String,
  at: Instant,
  keptApart: Schema.optionalWith(KeptApart, { exact: true }),
  /** What the configured guard said about the new text (absent: no guard was asked). */
  guard: Schema.optionalWith(GuardRecord, { exact: true })
})
/** Merge-on-write replaced the entry at `index` (0-based) with `content`, which now covers `incoming` too. */
export const FactMerged = Schema.TaggedStruct("FactMerged", {
  target: Target,
  index: Schema.Number,
  previous: Schema.String,
  incoming: Schema.String,
  content: Schema.String,
  similarity: Schema.Number,
  at: Instant,
  /** What the configured guard said about the new text (absent: no guard was asked). */
  guard: Schema.optionalWith(GuardRecord, { exact: true })
})
export const FactReplaced = Schema.TaggedStruct("FactReplaced", {
  target: Target,
  index: Schema.Number,
  previous: Schema.String,
  content: Schema.String,
  selector: Schema.String,
  at: Instant,
  /** What the configured guard said about the new text (absent: no guard was asked). */
  guard: Schema.optionalWith(GuardRecord, { exact: true })
})
export const FactRemoved = Schema.TaggedStruct("FactRemoved", {
  target: Target,
  index: Schema.Number,
  previous: Schema.String,
  selector: Schema.String,
  at: Instant
})
/** A fact file found without history (an odek directory), adopted as the stream's first state. */
export const FactsImported = Schema.TaggedStruct("FactsImported", {
  target: Target,
  entries: Schema.Array(Schema.String),
  at: Instant
})
/** A person changed the file outside tmem; the edit is kept as the new state. `note` says what was repaired. */
export const FactsEditedExternally = Schema.TaggedStruct("FactsEditedExternally", {
  target: Target,
  entries: Schema.Array(Schema.String),
  previous: Schema.Array(Schema.String),
  findings: Schema.Array(Schema.String),
  note: Schema.optionalWith(Schema.String, { exact: true }),
  at: Instant
})
/**
 * A person's edit of the file broke a write rule (cap, scanner, control characters, invalid UTF-8), so it was
 * not adopted: the file was moved to `keptAs` (beside the projection) and the entries stay as they were.
 */
export const FactsEditRejected = Schema.TaggedStruct("FactsEditRejected", {
  target: Target,
  reason: Schema.String,
  keptAs: Schema.String,
  bytes: Schema.Number,
  at: Instant
})
/** One entry the scanner refuses on load, with the label it refuses it under. */
export const BlockedFact = Schema.Struct({ entry: Schema.String, label: Schema.String })
export type BlockedFact = typeof BlockedFact.Type
/**
 * Entries already in the file that the current scanner refuses (written before a rule existed, or imported) were
 * found: they stay in the file, and the prompt and `read` show a BLOCKED line in their place until a person removes
 * them. Recorded once per entry and label, so the audit trail and the lifecycle feed say so exactly once.
 */
export const FactsBlocked = Schema.TaggedStruct("FactsBlocked", {
  target: Target,
  blocked: Schema.Array(BlockedFact),
  at: Instant
})
/** The whole file rewritten through `tmem facts edit`, after validation. */
export const FactsRewritten = Schema.TaggedStruct("FactsRewritten", {
  target: Target,
  entries: Schema.Array(Schema.String),
  previous: Schema.Array(Schema.String),
  at: Instant
})

/** Who asked for a consolidation pass. */
export const ConsolidationTrigger = Schema.Literal("tool", "cli", "session_end", "cap")
export type ConsolidationTrigger = typeof ConsolidationTrigger.Type

/** A consolidation pass replaced the file; `previous` is the pre-image a revert restores. */
export const FactsConsolidated = Schema.TaggedStruct("FactsConsolidated", {
  target: Target,
  entries: Schema.Array(Schema.String),
  previous: Schema.Array(Schema.String),
  trigger: ConsolidationTrigger,
  /** The model that answered, for the audit trail. */
  model: Schema.String,
  at: Instant,
  /** What the configured guard said about the entries the model wrote (the least clean answer). */
  guard: Schema.optionalWith(GuardRecord, { exact: true })
})
/** A whole-file change (consolidation, rewrite, hand edit) undone; later changes are kept (docs/CONSOLIDATION.md). */
export const FactsReverted = Schema.TaggedStruct("FactsReverted", {
  target: Target,
  /** The version of the event that was reverted. */
  reverted: Schema.Number,
  entries: Schema.Array(Schema.String),
  previous: Schema.Array(Schema.String),
  at: Instant
})

export const FactEvent = Schema.Union(
  FactAdded,
  FactMerged,
  FactReplaced,
  FactRemoved,
  FactsImported,
  FactsEditedExternally,
  FactsRewritten,
  FactsConsolidated,
  FactsReverted,
  FactsEditRejected,
  FactsBlocked
)
export type FactEvent = typeof FactEvent.Type

/** What the caller already knows about the closest existing entry (from the embedder, computed on this state). */
export interface MergeProbe {
  readonly index: number
  readonly similarity: number
  /** The LLM's word for the 0.3–0.7 band, when one was asked. Without it the band adds; it never overrides the gate. */
  readonly judgement?: "merge" | "add"
}

export const AddFact = Schema.TaggedStruct("AddFact", {
  target: Target,
  content: Schema.String,
  at: Instant
})
export const ReplaceFact = Schema.TaggedStruct("ReplaceFact", {
  target: Target,
  oldText: Schema.String,
  content: Schema.String,
  at: Instant
})
export const RemoveFact = Schema.TaggedStruct("RemoveFact", {
  target: Target,
  oldText: Schema.String,
  at: Instant
})
export const RewriteFacts = Schema.TaggedStruct("RewriteFacts", {
  target: Target,
  text: Schema.String,
  at: Instant
})

/** Apply a consolidation computed on `snapshot`: refused unless the file still holds exactly those entries. */
export const ApplyConsolidation = Schema.TaggedStruct("ApplyConsolidation", {
  target: Target,
  snapshot: Schema.Array(Schema.String),
  entries: Schema.Array(Schema.String),
  trigger: ConsolidationTrigger,
  model: Schema.String,
  at: Instant
})
/** Undo the whole-file event at `version`, whose pre-image was `before` and post-image `after`. */
export const RevertFacts = Schema.TaggedStruct("RevertFacts", {
  target: Target,
  version: Schema.Number,
  before: Schema.Array(Schema.String),
  after: Schema.Array(Schema.String),
  at: Instant
})

/**
 * Record the entries the current scanner refuses that `reported` (every entry and label recorded before) does not
 * hold yet.
 */
export const ReportBlocked = Schema.TaggedStruct("ReportBlocked", {
  target: Target,
  reported: Schema.Array(BlockedFact),
  at: Instant
})

/** Commands carry plain data; the merge probe and approval expectation ride alongside since they come from ports. */
/** The guard's answer on a command's new text, asked before deciding; the decider only records it. */
interface Guarded {
  readonly guard?: GuardRecord | undefined
}

export type FactCommand =
  | (typeof AddFact.Type & { readonly probe?: MergeProbe | undefined } & Guarded)
  | (typeof ReplaceFact.Type & { readonly expectedEntry?: string | undefined } & Guarded)
  | (typeof RemoveFact.Type & { readonly expectedEntry?: string | undefined })
  | typeof RewriteFacts.Type
  | (typeof ApplyConsolidation.Type & Guarded)
  | typeof RevertFacts.Type
  | typeof ReportBlocked.Type

export interface FactFileState {
  readonly entries: ReadonlyArray<string>
}
