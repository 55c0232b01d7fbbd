import { Effect, Either, ParseResult, Schema } from "effect"
import { FIELD_LIMIT, FieldTooLong } from "../domain/facts/errors.js"
import { isAtomType, validAtomId } from "../domain/atoms/atom.js"
import {
  addedAtomMessage,
  CONFIRM_REFUSED,
  DISABLED,
  forgotAtomMessage,
  invalidAtomTypeMessage,
  invalidIdMessage,
  listPendingReviewMessage,
  rejectedPendingMessage,
  listQuarantineMessage,
  pinnedAtomMessage,
  quarantinedAtomMessage,
  requiredMessage,
  searchAtomsMessage
} from "../domain/atoms/toolMessages.js"
import { addAtoms, forgetAtom, listQuarantine, pinAtom, searchAtomsRanked } from "./atoms.js"
import { listPendingReviews, rejectPendingReview } from "./userModel.js"
import type { Target } from "../domain/facts/schema.js"
import { printable } from "../domain/text/printable.js"
import { goQuote, plural, preview, trimSpace, utf8Bytes } from "../domain/text/utf8.js"
import { addFact, factStats, loadFacts, parseTarget, removeFact, replaceFact } from "./facts.js"
import { Settings } from "./Settings.js"
import { Approval } from "../ports/Approval.js"
import { approvalResource, type ApprovalSubject } from "../domain/facts/approval.js"
import { factPolicy } from "../domain/config/MemoryConfig.js"
import { decideFact, selectEntry } from "../domain/facts/decider.js"
import type { FactCommand } from "../domain/facts/schema.js"
import { readout } from "./prompt.js"
import { consolidateFacts, describeOutcome } from "./consolidation.js"
import { findEpisode } from "./episodes.js"
import { searchEpisodes } from "./recall.js"
import { searchToolMessage } from "../domain/episodes/recall.js"
import { isPendingReview } from "../domain/sessions/provenance.js"

/** The tool's actions (spec facts §4.1). */
export const ACTIONS = [
  "add",
  "replace",
  "remove",
  "stats",
  "consolidate",
  "read",
  "search",
  "view",
  "add_atom",
  "search_atoms",
  "forget_atom",
  "list_quarantine",
  "pin_atom",
  "confirm_pending_review",
  "reject_pending_review",
  "list_pending_review"
] as const

export const MUTATING_ACTIONS: ReadonlySet<string> = new Set([
  "add",
  "replace",
  "remove",
  "consolidate",
  "add_atom",
  "forget_atom",
  "pin_atom",
  "confirm_pending_review",
  "reject_pending_review"
])

const BOUNDED_FIELDS = ["content", "old_text", "target", "atom_id", "pending_id", "atom_type"] as const

export const MemoryToolArgs = Schema.Struct({
  action: Schema.String,
  target: Schema.optional(Schema.String),
  content: Schema.optional(Schema.String),
  old_text: Schema.optional(Schema.String),
  query: Schema.optional(Schema.String),
  atom_id: Schema.optional(Schema.String),
  pending_id: Schema.optional(Schema.String),
  atom_type: Schema.optional(Schema.String),
  confidence: Schema.optional(Schema.Number)
})
export type MemoryToolArgs = typeof MemoryToolArgs.Type

/** What the tool returns, always as a JSON object; it never throws. */
export type ToolResult =
  ({ readonly success: true } & Readonly<Record<string, unknown>>) | { readonly success: false; readonly error: string }

const failure = (error: string): ToolResult => ({ success: false, error })
const success = (fields: Readonly<Record<string, unknown>>): ToolResult => ({ success: true, ...fields })

/**
 * A parser's account of bad arguments as one printable line: JSON.parse quotes the text it choked on and the
 * schema quotes the value, either of which may hold a newline or a control character the agent sent (issue 15).
 */
const argumentsProblem = (text: string) => `invalid arguments: ${printable(text.replace(/\s+/g, " ").trim())}`

/** Parses the tool's argument JSON: `invalid arguments: …` on anything that is not the tool's object. */
export const parseToolArgs = (json: string): Either.Either<MemoryToolArgs, string> => {
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch (e) {
    return Either.left(argumentsProblem(e instanceof Error ? e.message : String(e)))
  }
  return decodeToolArgs(value)
}

/**
 * Checks arguments that arrived as a value (a library caller's object, or parsed JSON) exactly as the JSON path
 * does: anything that is not the tool's object is `invalid arguments: …`, never a TypeError further in.
 */
export const decodeToolArgs = (value: unknown): Either.Either<MemoryToolArgs, string> => {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return Either.left('invalid arguments: expected a JSON object such as {"action":"stats","target":"user"}')
  return Schema.decodeUnknownEither(MemoryToolArgs, { errors: "first" })(value).pipe(
    Either.mapLeft((e) => {
      try {
        const issue = ParseResult.ArrayFormatter.formatErrorSync(e)[0]
        const where = issue === undefined || issue.path.length === 0 ? "" : `${issue.path.map(String).join(".")}: `
        return argumentsProblem(`${where}${issue?.message ?? e.message}`)
      } catch {
        // the formatter quotes the offending value recursively: one nested thousands deep overflows the stack
        return "invalid arguments: a value is nested too deeply to show; expected the tool's object of strings"
      }
    })
  )
}

export { FIELD_LIMIT }

/** The 2,048-byte rule, checked before anything else on a mutating call (the tool names every bounded field). */
export const fieldBoundError = (args: MemoryToolArgs): string | undefined => {
  if (!MUTATING_ACTIONS.has(args.action)) return undefined
  for (const field of BOUNDED_FIELDS) {
    const v = args[field]
    if (v === undefined) continue
    const n = utf8Bytes(v)
    if (n > FIELD_LIMIT) return new FieldTooLong({ field, bytes: n }).message
  }
  return undefined
}

const requireTarget = (args: MemoryToolArgs, action: string): Either.Either<Target, string> =>
  args.target === undefined || args.target === ""
    ? Either.left(`target is required for ${action} (must be 'user' or 'env')`)
    : Either.mapLeft(parseTarget(args.target), (e) => e.message)

const listed = (entries: ReadonlyArray<string>) => ({ entries: [...entries] })

/** Asks the Approval port about a mutating call, showing the resource string of spec facts §4.3. */
const approve = (subject: ApprovalSubject) =>
  Effect.flatMap(Approval, (a) => a.approve({ action: subject.action, resource: approvalResource(subject) }))

const notApproved = (action: string, target: string) =>
  failure(`memory: ${action} on ${target} was not approved; nothing written`)

/**
 * The call decided on the current state without writing: the refusal the decider would make (a person is asked
 * only about calls that can succeed), and the entry `old_text` selects, which the approver is shown.
 */
const dryRun = (command: FactCommand, target: Target, oldText?: string) =>
  Effect.gen(function* () {
    const config = yield* Settings
    const { entries } = (yield* loadFacts(target)).state
    const r = decideFact(factPolicy(config))(command, { entries })
    const selected = oldText === undefined ? undefined : Either.getOrUndefined(selectEntry(entries, trimSpace(oldText)))
    return {
      refused: Either.isLeft(r) ? r.left : undefined,
      entry: selected === undefined ? undefined : entries[selected]
    }
  })

/**
 * The atom actions (spec extended §17). The agent may add, search, forget, pin and list; promotion and confirming
 * an inference are a person's, on the CLI, never the agent's (§3.6). Mutations go through the approval gate.
 */
const atomAction = (args: MemoryToolArgs, caller: ToolCaller) =>
  Effect.gen(function* () {
    const extended = (yield* Settings).extended
    const mutating = MUTATING_ACTIONS.has(args.action) && args.action !== "confirm_pending_review"
    if (mutating && !extended.enabled) return failure(DISABLED)
    const needsId = (param: "atom_id" | "pending_id", action: Parameters<typeof requiredMessage>[1]) => {
      const id = (param === "atom_id" ? args.atom_id : args.pending_id)?.trim() ?? ""
      if (id === "") return Either.left(requiredMessage(param, action))
      return validAtomId(id) ? Either.right(id) : Either.left(invalidIdMessage(param, id))
    }
    switch (args.action) {
      case "add_atom": {
        if (!args.content || args.content.trim() === "") return failure(requiredMessage("content", "add_atom"))
        const type = args.atom_type?.trim() || "fact"
        if (!isAtomType(type)) return failure(invalidAtomTypeMessage(type))
        if (!(yield* approve({ action: "add_atom", content: args.content }))) return notApproved("add_atom", "atoms")
        const [landing] = yield* addAtoms([
          {
            text: args.content,
            type,
            // a sub-agent's words are its parent model's, not the user's: held for review (spec extended §17.2)
            source_class: caller.subagent === true ? "subagent" : "user_said",
            ...(args.confidence !== undefined ? { confidence: args.confidence } : {})
          }
        ])
        if (landing?.kind === "quarantined")
          return success({ message: quarantinedAtomMessage(args.content.trim(), landing.entry.reason) })
        if (landing?.kind === "failed") return failure(landing.message)
        return success({ message: addedAtomMessage(args.content.trim()) })
      }
      case "search_atoms": {
        if (!args.query || args.query.trim() === "") return failure(requiredMessage("query", "search_atoms"))
        const hits = yield* searchAtomsRanked(args.query)
        return success({
          message: searchAtomsMessage(
            hits.map((h) => ({
              type: h.atom.type,
              text: h.atom.text,
              confidence: h.atom.confidence ?? 1,
              source_class: h.atom.source_class
            }))
          )
        })
      }
      case "forget_atom": {
        const id = needsId("atom_id", "forget_atom")
        if (Either.isLeft(id)) return failure(id.left)
        if (!(yield* approve({ action: "forget_atom", atomId: id.right }))) return notApproved("forget_atom", "atoms")
        yield* forgetAtom(id.right)
        return success({ message: forgotAtomMessage(id.right) })
      }
      case "pin_atom": {
        const id = needsId("atom_id", "pin_atom")
        if (Either.isLeft(id)) return failure(id.left)
        if (!(yield* approve({ action: "pin_atom", atomId: id.right }))) return notApproved("pin_atom", "atoms")
        yield* pinAtom(id.right)
        return success({ message: pinnedAtomMessage(id.right) })
      }
      case "list_quarantine": {
        const entries = yield* listQuarantine()
        return success({
          message: listQuarantineMessage(
            entries.map((q) => ({ id: q.atom.id, source_class: q.atom.source_class, text: q.atom.text }))
          )
        })
      }
      case "confirm_pending_review": {
        const id = needsId("pending_id", "confirm_pending_review")
        return failure(Either.isLeft(id) ? id.left : CONFIRM_REFUSED)
      }
      case "reject_pending_review": {
        const id = needsId("pending_id", "reject_pending_review")
        if (Either.isLeft(id)) return failure(id.left)
        if (!extended.enabled) return failure(DISABLED)
        if (!(yield* approve({ action: "reject_pending_review", atomId: id.right })))
          return notApproved("reject_pending_review", "atoms")
        const rejected = yield* Effect.either(rejectPendingReview(id.right))
        if (Either.isLeft(rejected)) return failure(rejected.left.message)
        return success({ message: rejectedPendingMessage(id.right) })
      }
      default:
        return success({ message: listPendingReviewMessage(yield* listPendingReviews()) })
    }
  })

/** One call of the unified `memory` tool with decoded arguments. */
/** Who calls the tool: a sub-agent's atom writes are quarantined (spec extended §17.2). */
export interface ToolCaller {
  readonly subagent?: boolean
}

export const dispatchMemoryTool = (args: MemoryToolArgs, caller: ToolCaller = {}) =>
  Effect.gen(function* () {
    const bound = fieldBoundError(args)
    if (bound !== undefined) return failure(bound)
    switch (args.action) {
      case "add": {
        if (!args.content) return failure("content is required for add")
        const target = requireTarget(args, "add")
        if (Either.isLeft(target)) return failure(target.left)
        // refusals the decider would make anyway are not put to a person (a cap refusal may still become a merge)
        const { refused } = yield* dryRun(
          { _tag: "AddFact", target: target.right, content: args.content, at: "" },
          target.right
        )
        if (refused !== undefined && refused._tag !== "CapExceeded") return failure(refused.message)
        if (!(yield* approve({ action: "add", target: target.right, content: args.content })))
          return notApproved("add", target.right)
        const { outcome, entries } = yield* addFact(target.right, args.content)
        const verb =
          outcome.kind === "merged" ? "merged into" : outcome.kind === "duplicate" ? "already in" : "added to"
        return success({ message: `${verb} ${target.right}: ${preview(outcome.content)}`, ...listed(entries) })
      }
      case "replace": {
        if (!args.old_text || !args.content) return failure("old_text and content are required for replace")
        const target = requireTarget(args, "replace")
        if (Either.isLeft(target)) return failure(target.left)
        const { refused, entry } = yield* dryRun(
          { _tag: "ReplaceFact", target: target.right, oldText: args.old_text, content: args.content, at: "" },
          target.right,
          args.old_text
        )
        if (refused !== undefined) return failure(refused.message)
        // the person sees the entry old_text selects now; the change applies only if it is still that entry
        if (
          !(yield* approve({
            action: "replace",
            target: target.right,
            oldText: args.old_text,
            content: args.content,
            entry
          }))
        )
          return notApproved("replace", target.right)
        const { entries, content } = yield* replaceFact(target.right, args.old_text, args.content, entry)
        return success({ message: `replaced in ${target.right}: ${preview(content)}`, ...listed(entries) })
      }
      case "remove": {
        if (!args.old_text) return failure("old_text is required for remove")
        const target = requireTarget(args, "remove")
        if (Either.isLeft(target)) return failure(target.left)
        const { refused, entry } = yield* dryRun(
          { _tag: "RemoveFact", target: target.right, oldText: args.old_text, at: "" },
          target.right,
          args.old_text
        )
        if (refused !== undefined) return failure(refused.message)
        if (!(yield* approve({ action: "remove", target: target.right, oldText: args.old_text, entry })))
          return notApproved("remove", target.right)
        const { entries } = yield* removeFact(target.right, args.old_text, entry)
        return success({
          message: `removed from ${target.right} matching ${goQuote(args.old_text)}`,
          ...listed(entries)
        })
      }
      case "stats": {
        const target = requireTarget(args, "stats")
        if (Either.isLeft(target)) return failure(target.left)
        const stats = yield* factStats(target.right)
        return success({
          target: stats.target,
          used: stats.used,
          cap: stats.cap,
          entries: stats.entries,
          message:
            `${stats.target}: ${stats.used}/${stats.cap} bytes, ` +
            `${plural(stats.entries.length, "entry", "entries")}`
        })
      }
      case "read":
        return success({ message: yield* readout })
      case "consolidate": {
        const target = requireTarget(args, "consolidate")
        if (Either.isLeft(target)) return failure(target.left)
        if (!(yield* approve({ action: "consolidate", target: target.right })))
          return notApproved("consolidate", target.right)
        const outcome = yield* consolidateFacts(target.right, "tool")
        return success({
          message: describeOutcome(outcome),
          ...(outcome.kind === "consolidated"
            ? { before: outcome.count, after: outcome.newCount, ...listed(outcome.entries) }
            : {})
        })
      }
      case "search": {
        if (!args.query || args.query.trim() === "") return failure("query is required for search")
        return success({ message: searchToolMessage(yield* searchEpisodes(args.query, 5)) })
      }
      case "view": {
        if (args.target !== undefined && args.target !== "episodes") return failure("view target must be 'episodes'")
        const id = (args.query ?? "").trim()
        if (id === "") return failure("query (session_id) is required for view")
        // Fail closed: an unknown id reads as pending, so the answer never tells a quarantined episode from none.
        const episode = yield* findEpisode(id)
        if (episode === undefined || isPendingReview(episode.provenance))
          return failure(
            `episode ${printable(id)} is pending review (untrusted provenance) — ` +
              `promote it with \`tmem episodes promote\` before viewing`
          )
        return success({ message: episode.summary, session_id: episode.sessionId, turns: episode.turns })
      }
      case "add_atom":
      case "search_atoms":
      case "forget_atom":
      case "list_quarantine":
      case "pin_atom":
      case "confirm_pending_review":
      case "reject_pending_review":
      case "list_pending_review":
        return yield* atomAction(args, caller)
      default:
        return failure(`unknown action: ${goQuote(args.action)}`)
    }
  }).pipe(
    // Every refusal becomes the tool's error result; the tool itself never fails.
    Effect.catchAll((e) => Effect.succeed(failure(e.message)))
  )

/** The tool as an agent calls it: a JSON string (or an already parsed value) in, a JSON object out. */
export const runMemoryTool = (args: unknown, caller: ToolCaller = {}) =>
  Either.match(typeof args === "string" ? parseToolArgs(args) : decodeToolArgs(args), {
    onLeft: (error) => Effect.succeed(failure(error)),
    onRight: (decoded) => dispatchMemoryTool(decoded, caller)
  })
