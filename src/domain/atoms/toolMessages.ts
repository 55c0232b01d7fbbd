/**
 * The `memory` tool's texts for the atom actions (spec extended §17), as pure functions of plain data; the app puts
 * them in the `{success, message}` / `{success, error}` envelope.
 */
import { goQuote } from "../text/utf8.js"
import { atomIdProblem, truncate } from "./atom.js"

/** Go's `%.2f`: like `toFixed(2)` except that an exact tie rounds to even (0.125 → "0.12", where JS says "0.13"). */
export const goFixed2 = (x: number): string => {
  // at 20 places a tie shows as ...50000 and its neighbouring doubles do not (checked for every tie up to 10)
  const exact = x.toFixed(20)
  const tie = /\.\d\d50+$/.test(exact)
  const down = exact.slice(0, exact.indexOf(".") + 3)
  return tie && Number(down.at(-1)) % 2 === 0 ? down : x.toFixed(2)
}

/** Required parameters, named as odek names them: `content is required for add_atom`. */
export const requiredMessage = (
  param: "content" | "query" | "atom_id" | "pending_id",
  action: "add_atom" | "search_atoms" | "forget_atom" | "pin_atom" | "confirm_pending_review" | "reject_pending_review"
): string => `${param} is required for ${action}`

/** An id parameter that could not name a file: `invalid atom_id: "../x" is not a valid id: …`. */
export const invalidIdMessage = (param: "atom_id" | "pending_id", id: string): string =>
  `invalid ${param}: ${atomIdProblem(id) ?? goQuote(id)}`

export const invalidAtomTypeMessage = (type: string): string => `invalid atom_type: ${goQuote(type)}`

/** No Extended Memory in this process (odek: the store was never built). */
export const NOT_INITIALIZED = "extended memory is not initialized or disabled"
/** Extended Memory exists but `memory.extended.enabled` is false (§1.1). */
export const DISABLED = "extended memory: disabled"

/** `add_atom` when the atom reached the live store (or refreshed a duplicate). */
export const addedAtomMessage = (content: string): string => `added atom: ${truncate(content, 60)}`

/** `add_atom` when the write path quarantined the atom; an entry without a reason is old (§5.2). */
export const quarantinedAtomMessage = (content: string, reason: string): string =>
  `quarantined for human review (reason: ${reason === "" ? "untrusted content" : reason}): ${truncate(content, 60)}`

export interface SearchHit {
  readonly type: string
  readonly text: string
  readonly confidence?: number
  readonly source_class: string
}

export const searchAtomsMessage = (hits: ReadonlyArray<SearchHit>): string =>
  hits.length === 0
    ? "no matching atoms found"
    : `Found ${hits.length} matching atom(s):\n\n` +
      hits
        .map(
          (h) =>
            `• [${h.type}] ${truncate(h.text, 120)} ` +
            `(confidence ${goFixed2(h.confidence ?? 0)}, source ${h.source_class})\n`
        )
        .join("")

export interface QuarantineListing {
  readonly id: string
  readonly source_class: string
  readonly text: string
}

/** Entries newest `quarantined_at` first, as the store lists them (§5.4). */
export const listQuarantineMessage = (entries: ReadonlyArray<QuarantineListing>): string =>
  entries.length === 0
    ? "no atoms in quarantine"
    : `${entries.length} atom(s) in quarantine:\n\n` +
      entries.map((e) => `• ${e.id} [${e.source_class}] ${truncate(e.text, 120)}\n`).join("")

export const forgotAtomMessage = (id: string): string => `forgot atom ${id}`
export const pinnedAtomMessage = (id: string): string => `pinned atom ${id}`
export const rejectedPendingMessage = (id: string): string => `rejected pending review ${id}`

/**
 * `confirm_pending_review`, whatever its argument: the agent cannot confirm its own inferences (§3.6). `<id>` is
 * literal, as in odek; the command is ours.
 */
export const CONFIRM_REFUSED = "pending reviews must be confirmed by the user via the CLI (tmem atoms confirm <id>)"

export interface PendingListing {
  readonly id: string
  readonly field: string
  readonly value: string
  readonly evidence?: string
  readonly confidence?: number
}

export const listPendingReviewMessage = (pending: ReadonlyArray<PendingListing>): string =>
  pending.length === 0
    ? "no pending reviews"
    : `${pending.length} pending review(s):\n\n` +
      pending
        .map(
          (p) =>
            `• ${p.id} | ${p.field} = ${goQuote(truncate(p.value, 120))} ` +
            `(confidence ${goFixed2(p.confidence ?? 0)})\n` +
            (p.evidence === undefined || p.evidence === "" ? "" : `  evidence: ${truncate(p.evidence, 120)}\n`)
        )
        .join("")
