import { Schema } from "effect"
import { MemoryDisabled } from "../kernel/errors.js"
import { goQuote } from "../text/utf8.js"

/** `memory.enabled` is false: every mutation is refused, reads still work. */
export { MemoryDisabled }

export class InvalidTarget extends Schema.TaggedError<InvalidTarget>()("InvalidTarget", { target: Schema.String }) {
  override get message() {
    return `memory: invalid target ${goQuote(this.target)} (must be 'user' or 'env')`
  }
}

/** Which required text trimmed to nothing. */
export class EmptyField extends Schema.TaggedError<EmptyField>()("EmptyField", {
  field: Schema.Literal("content", "replacement content", "old_text")
}) {
  override get message() {
    return `memory: empty ${this.field}`
  }
}

/** Text that no entry may hold (separator, NUL, control characters, unpaired surrogates). */
export class InvalidContent extends Schema.TaggedError<InvalidContent>()("InvalidContent", { reason: Schema.String }) {
  override get message() {
    return `memory: ${this.reason}`
  }
}

/** The write-time scanner refused the text; `code` is the scanner's stable reason code. */
export class ContentRejected extends Schema.TaggedError<ContentRejected>()("ContentRejected", {
  code: Schema.String,
  label: Schema.String,
  text: Schema.String
}) {
  override get message() {
    return this.text
  }
}

export class NoMatch extends Schema.TaggedError<NoMatch>()("NoMatch", { oldText: Schema.String }) {
  override get message() {
    return `memory: no entry contains ${goQuote(this.oldText)}`
  }
}

export class AmbiguousMatch extends Schema.TaggedError<AmbiguousMatch>()("AmbiguousMatch", {
  oldText: Schema.String,
  count: Schema.Number
}) {
  override get message() {
    return `memory: ${this.count} entries contain ${goQuote(this.oldText)} — use a more specific old_text`
  }
}

/** Decision-ready cap refusal: the text lists every entry so the caller can choose what to evict. */
export class CapExceeded extends Schema.TaggedError<CapExceeded>()("CapExceeded", {
  target: Schema.String,
  cap: Schema.Number,
  used: Schema.Number,
  text: Schema.String
}) {
  override get message() {
    return this.text
  }
}

/** Largest mutating field, in UTF-8 bytes: an approver must be able to see every field in full. */
export const FIELD_LIMIT = 2048

/** A mutating field over FIELD_LIMIT bytes; refused before any other check. */
export class FieldTooLong extends Schema.TaggedError<FieldTooLong>()("FieldTooLong", {
  field: Schema.String,
  bytes: Schema.Number
}) {
  override get message() {
    return (
      `${this.field} is ${this.bytes} bytes; memory writes are limited to ${FIELD_LIMIT} bytes per field ` +
      `so the approval can show them in full — split it into smaller entries`
    )
  }
}

/** The entry an approver saw is no longer the entry `old_text` selects. */
export class EntryChanged extends Schema.TaggedError<EntryChanged>()("EntryChanged", {}) {
  override get message() {
    return "memory: entry changed while awaiting approval; re-run the call"
  }
}

/** The model's consolidation answer is not a JSON array of strings; the file is unchanged. */
export class ConsolidationParseFailed extends Schema.TaggedError<ConsolidationParseFailed>()(
  "ConsolidationParseFailed",
  {
    detail: Schema.String
  }
) {
  override get message() {
    return `memory: consolidate: failed to parse JSON response: ${this.detail}`
  }
}

/**
 * A consolidation result that may not replace the file: an entry fails the scan or the separator rule, an original
 * entry is not covered, a new fact appears, or the result is over the cap. The whole pass is rejected.
 */
export class ConsolidationRejected extends Schema.TaggedError<ConsolidationRejected>()("ConsolidationRejected", {
  reason: Schema.Literal("unsafe", "lost", "invented", "cap", "blocked"),
  text: Schema.String
}) {
  override get message() {
    return this.text
  }
}

/** The file changed between the snapshot the model saw and the apply; nothing was written. */
export class ConsolidationConflict extends Schema.TaggedError<ConsolidationConflict>()("ConsolidationConflict", {
  target: Schema.String
}) {
  override get message() {
    return (
      `memory: ${this.target} changed while consolidating; nothing written, ` +
      `every concurrent change kept — run consolidate again`
    )
  }
}

/** A revert that cannot be done as asked (unknown version, an event kind without a whole-file pre-image). */
export class RevertRefused extends Schema.TaggedError<RevertRefused>()("RevertRefused", { text: Schema.String }) {
  override get message() {
    return this.text
  }
}

export type FactError =
  | FieldTooLong
  | MemoryDisabled
  | InvalidTarget
  | EmptyField
  | InvalidContent
  | ContentRejected
  | NoMatch
  | AmbiguousMatch
  | CapExceeded
  | EntryChanged
  | ConsolidationParseFailed
  | ConsolidationRejected
  | ConsolidationConflict
  | RevertRefused
