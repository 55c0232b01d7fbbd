import { Either, Match } from "effect"
import { rejectionMessage, scanForWrite } from "../scan/index.js"
import { changeFrom, describeChange, factChange } from "../text/distinguishing.js"
import { goQuote, preview, trimSpace, utf8Bytes } from "../text/utf8.js"
import {
  canonicalEntries,
  characterProblem,
  entryIndex,
  entryProblem,
  EVICTION_GUIDANCE,
  parseEntries,
  SEPARATOR_BYTES,
  usedBytes
} from "./codec.js"
import type { GuardRecord } from "../scan/guardVerdict.js"
import { blockedEntries } from "./blocked.js"
import { coverageProblem } from "./coverage.js"
import {
  AmbiguousMatch,
  CapExceeded,
  ConsolidationConflict,
  ConsolidationRejected,
  ContentRejected,
  EmptyField,
  EntryChanged,
  type FactError,
  FIELD_LIMIT,
  FieldTooLong,
  InvalidContent,
  MemoryDisabled,
  NoMatch
} from "./errors.js"
import {
  type FactCommand,
  FactAdded,
  type FactEvent,
  type FactFileState,
  FactMerged,
  FactRemoved,
  FactReplaced,
  FactsBlocked,
  FactsConsolidated,
  FactsReverted,
  FactsRewritten,
  type KeptApart,
  type MergeProbe,
  type Target
} from "./schema.js"

/**
 * The per-edit events are built from fields this decider has just checked, and the store encodes every batch through
 * the event schema before writing it: validating them a second time here cost an add more than its decision.
 */
const CHECKED = { disableValidation: true } as const

/** The settings a fact file's decisions depend on (resolved config). */
export interface FactPolicy {
  readonly enabled: boolean
  readonly caps: Readonly<Record<Target, number>>
  readonly mergeOnWrite: boolean
  readonly mergeThreshold: number
  readonly addThreshold: number
}

export const DEFAULT_FACT_POLICY: FactPolicy = {
  enabled: true,
  caps: { user: 4000, env: 8000 },
  mergeOnWrite: true,
  mergeThreshold: 0.7,
  addThreshold: 0.3
}

export const initialFactFile: FactFileState = { entries: [] }

/** Where a similarity falls. Bounds are strict (DESIGN §5.2): exactly 0.7 or 0.3 is the judgement band. */
export const classifySimilarity = (similarity: number, policy: FactPolicy): "merge" | "add" | "judge" => {
  const s = Number.isNaN(similarity) ? 0 : similarity
  if (s > policy.mergeThreshold) return "merge"
  if (s < policy.addThreshold) return "add"
  return "judge"
}

/** The merged entry, computed without an LLM: containment keeps the longer text, otherwise both as one sentence. */
export const mergeText = (existing: string, incoming: string): string => {
  if (existing.includes(incoming)) return existing
  if (incoming.includes(existing)) return incoming
  const joiner = /[.!?。！？]$/u.test(existing) ? " " : ". "
  return trimSpace(`${existing}${joiner}${incoming}`)
}

/**
 * The entry `oldText` selects: a unique whole-entry match wins even when longer entries also contain it;
 * otherwise exactly one entry must contain it.
 */
export const selectEntry = (
  entries: ReadonlyArray<string>,
  oldText: string
): Either.Either<number, NoMatch | AmbiguousMatch> => {
  const exact = entries.flatMap((e, i) => (e === oldText ? [i] : []))
  if (exact.length === 1) return Either.right(exact[0]!)
  const containing = entries.flatMap((e, i) => (e.includes(oldText) ? [i] : []))
  if (containing.length === 1 && exact.length === 0) return Either.right(containing[0]!)
  if (containing.length === 0) return Either.left(new NoMatch({ oldText }))
  return Either.left(new AmbiguousMatch({ oldText, count: containing.length }))
}

/** The entry a replace or remove acts on; with an approval, only if it is still the entry the approver saw. */
const selectForChange = (entries: ReadonlyArray<string>, oldText: string, expectedEntry: string | undefined) =>
  Either.flatMap(
    selectEntry(entries, oldText),
    (index): Either.Either<{ index: number; previous: string }, NoMatch | AmbiguousMatch | EntryChanged> => {
      const previous = entries[index]!
      return expectedEntry !== undefined && expectedEntry !== previous
        ? Either.left(new EntryChanged())
        : Either.right({ index, previous })
    }
  )

// An add decides twice on one text (before and after the merge probe): the scan, the costlier part, runs once.
let lastValidated:
  { readonly text: string; readonly result: Either.Either<string, InvalidContent | ContentRejected> } | undefined
const validate = (text: string): Either.Either<string, InvalidContent | ContentRejected> => {
  if (lastValidated?.text === text) return lastValidated.result
  const result = validateNow(text)
  lastValidated = { text, result }
  return result
}

const validateNow = (text: string): Either.Either<string, InvalidContent | ContentRejected> => {
  const problem = entryProblem(text)
  if (problem !== undefined) return Either.left(new InvalidContent({ reason: problem }))
  const finding = scanForWrite(text)
  if (finding !== undefined)
    return Either.left(
      new ContentRejected({ code: finding.code, label: finding.label, text: rejectionMessage(finding) })
    )
  return Either.right(text)
}

/**
 * Why a person's hand edit cannot be adopted, or undefined: it obeys the rules of any write (DESIGN §7) — no NUL or
 * control characters, nothing the scanner refuses, the cap. The separator rules are not applied: the entries were
 * parsed from the file, and canonicalEntries settles what they leave open. `scan: false` (an import) leaves the
 * scanner to the reads, which block what it refuses.
 */
export const handEditProblem = (entries: ReadonlyArray<string>, cap: number, scan = true): string | undefined => {
  for (const [i, entry] of entries.entries()) {
    const finding = scan ? scanForWrite(entry) : undefined
    const problem =
      characterProblem(entry) ??
      (finding === undefined ? undefined : rejectionMessage(finding).replace(/^memory: /, ""))
    if (problem !== undefined) return `entry [${i + 1}]: ${problem}`
  }
  const used = usedBytes(canonicalEntries(entries))
  return used > cap ? `its entries take ${used} bytes, over the cap of ${cap}` : undefined
}

const addCapError = (target: Target, cap: number, entries: ReadonlyArray<string>, incoming: string) =>
  new CapExceeded({
    target,
    cap,
    used: usedBytes(entries),
    text: [
      `memory: adding entry (${utf8Bytes(incoming)} chars) would exceed cap (${cap} chars); ` +
        `current: ${usedBytes(entries)}, max: ${cap}.`,
      entryIndex(entries),
      EVICTION_GUIDANCE
    ].join("\n")
  })

const replaceCapError = (target: Target, cap: number, entries: ReadonlyArray<string>, total: number) =>
  new CapExceeded({
    target,
    cap,
    used: usedBytes(entries),
    text: [
      `memory: replacement (${total} chars) would exceed cap (${cap} chars).`,
      entryIndex(entries),
      EVICTION_GUIDANCE
    ].join("\n")
  })

const mergeCapError = (target: Target, cap: number, entries: ReadonlyArray<string>, index: number, total: number) =>
  new CapExceeded({
    target,
    cap,
    used: usedBytes(entries),
    text: [
      `memory: adding entry would exceed cap (${cap} chars) once merged into entry [${index + 1}] ` +
        `(file would be ${total} chars); current: ${usedBytes(entries)}, max: ${cap}.`,
      entryIndex(entries),
      EVICTION_GUIDANCE
    ].join("\n")
  })

/**
 * The refusal of a whole-file change (rewrite, revert) whose entries do not fit, worded for that change; else
 * undefined.
 */
const wholeFileOverCap = (
  target: Target,
  cap: number,
  state: FactFileState,
  entries: ReadonlyArray<string>,
  say: (total: number) => string
) => {
  const total = usedBytes(entries)
  return total > cap ? new CapExceeded({ target, cap, used: usedBytes(state.entries), text: say(total) }) : undefined
}

/** Size of the file after putting `text` at `index` in place of the entry there. */
const usedAfterReplace = (entries: ReadonlyArray<string>, index: number, text: string) =>
  usedBytes(entries) - utf8Bytes(entries[index]!) + utf8Bytes(text)

/**
 * Why `incoming` may not be merged into `existing` automatically, whatever their similarity and whatever a model
 * says (docs/adr/0005): a line naming the distinguishing tokens it would change, or undefined when it restates or
 * extends the entry.
 */
export const mergeBlocker = (existing: string, incoming: string): string | undefined => {
  const change = factChange(existing, incoming)
  return change === undefined ? undefined : describeChange(change)
}

/**
 * The entry an add is compared with, given every entry's similarity to it: the most similar one that may be merged
 * (it passes the gate and is not in the add band), else the most similar one, so a refusal is still explained.
 * A different fact that happens to be closer must not hide the entry the new text restates.
 */
export const mergeCandidate = (
  entries: ReadonlyArray<string>,
  incoming: string,
  similarities: ReadonlyArray<number>,
  policy: FactPolicy
): MergeProbe | undefined => {
  const scored = entries.map((_, index) => ({
    index,
    similarity: Number.isNaN(similarities[index] ?? 0) ? 0 : (similarities[index] ?? 0)
  }))
  // most similar first, the earlier entry on ties (as bestMatch): the first the gate allows is the one
  const ranked = [...scored].sort((a, b) => b.similarity - a.similarity || a.index - b.index)
  const change = changeFrom(incoming)
  for (const c of ranked) {
    if (classifySimilarity(c.similarity, policy) === "add") break
    if (change(entries[c.index]!) === undefined) return c
  }
  return ranked[0]
}

type MergeDecision = Either.Either<ReadonlyArray<FactEvent>, FactError> | { readonly keptApart: KeptApart } | undefined

const guardOf = (cmd: { readonly guard?: GuardRecord | undefined }) =>
  cmd.guard === undefined ? {} : { guard: cmd.guard }

const decideMerge = (
  cmd: { readonly target: Target; readonly at: string; readonly guard?: GuardRecord | undefined },
  state: FactFileState,
  policy: FactPolicy,
  incoming: string,
  probe: MergeProbe | undefined
): MergeDecision => {
  if (!policy.mergeOnWrite || probe === undefined || state.entries.length === 0) return undefined
  const existing = state.entries[probe.index]
  if (existing === undefined) return undefined
  const band = classifySimilarity(probe.similarity, policy)
  if (band === "add") return undefined
  // The gate before the band and the model: a different fact is never folded, however close or however judged.
  const blocker = mergeBlocker(existing, incoming)
  if (blocker !== undefined) return { keptApart: { entry: existing, similarity: probe.similarity, reason: blocker } }
  const merge = band === "merge" || probe.judgement === "merge"
  if (!merge) return undefined
  const content = mergeText(existing, incoming)
  // A merge text that fails a check is not an error: the new fact passed alone, so it is added instead.
  if (Either.isLeft(validate(content))) return undefined
  const cap = policy.caps[cmd.target]
  const total = usedAfterReplace(state.entries, probe.index, content)
  if (total > cap) return Either.left(mergeCapError(cmd.target, cap, state.entries, probe.index, total))
  return Either.right([
    FactMerged.make({
      target: cmd.target,
      index: probe.index,
      previous: existing,
      incoming,
      content,
      similarity: probe.similarity,
      at: cmd.at,
      ...guardOf(cmd)
    })
  ])
}

/**
 * The 2,048-byte rule for the fields an agent supplies (DESIGN §5.7). A person's `tmem facts edit` is not
 * bounded: legacy entries may be longer and stay editable.
 */
const fieldTooLong = (command: FactCommand): FieldTooLong | undefined => {
  const fields: ReadonlyArray<readonly [string, string]> =
    command._tag === "AddFact"
      ? [["content", command.content]]
      : command._tag === "ReplaceFact"
        ? [
            ["old_text", command.oldText],
            ["content", command.content]
          ]
        : command._tag === "RemoveFact"
          ? [["old_text", command.oldText]]
          : []
  for (const [field, value] of fields) {
    const bytes = utf8Bytes(value)
    if (bytes > FIELD_LIMIT) return new FieldTooLong({ field, bytes })
  }
  return undefined
}

const sameEntries = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  a.length === b.length && a.every((e, i) => e === b[i])

const rejected = (reason: ConsolidationRejected["reason"], text: string) =>
  Either.left(new ConsolidationRejected({ reason, text }))

/** DESIGN §5.4: the snapshot must still hold, every output entry must pass the write checks and the coverage rule. */
const decideConsolidation = (
  command: Extract<FactCommand, { _tag: "ApplyConsolidation" }>,
  state: FactFileState,
  cap: number
): Either.Either<ReadonlyArray<FactEvent>, FactError> => {
  if (!sameEntries(state.entries, command.snapshot))
    return Either.left(new ConsolidationConflict({ target: command.target }))
  const entries = command.entries
  if (entries.length === 0 || sameEntries(entries, state.entries)) return Either.right([])
  if (entries.length > state.entries.length)
    return rejected(
      "invented",
      `memory: consolidation returned ${entries.length} entries for ${state.entries.length}; keeping existing entries`
    )
  for (const entry of entries) {
    const valid = validate(entry)
    if (Either.isLeft(valid))
      return rejected("unsafe", `memory: consolidated entry rejected: ${valid.left.message}; keeping existing entries`)
  }
  const problem = coverageProblem(state.entries, entries)
  if (problem?.kind === "lost")
    return rejected(
      "lost",
      `memory: consolidation would lose entry [${problem.index + 1}] ${goQuote(preview(problem.entry))} ` +
        `(no consolidated entry has ${problem.missing.map((w) => goQuote(w)).join(", ")}); keeping existing entries`
    )
  if (problem?.kind === "invented")
    return rejected(
      "invented",
      `memory: consolidated entry [${problem.index + 1}] adds words found in no original entry ` +
        `(${problem.words.map((w) => goQuote(w)).join(", ")}); keeping existing entries`
    )
  const total = usedBytes(entries)
  if (total > cap)
    return rejected(
      "cap",
      `memory: consolidated entries (${total} chars) would exceed cap (${cap} chars); keeping existing entries`
    )
  return Either.right([
    FactsConsolidated.make({
      target: command.target,
      entries,
      previous: state.entries,
      trigger: command.trigger,
      model: command.model,
      at: command.at,
      ...guardOf(command)
    })
  ])
}

/**
 * Undoing a whole-file change without losing what came after: the pre-image comes back (oldest first), followed
 * by every current entry that is neither in the pre-image nor in the post-image the change produced.
 */
export const revertedEntries = (
  current: ReadonlyArray<string>,
  before: ReadonlyArray<string>,
  after: ReadonlyArray<string>
): ReadonlyArray<string> => {
  const restored = new Set(before)
  const produced = new Set(after)
  return canonicalEntries([...before, ...current.filter((e) => !restored.has(e) && !produced.has(e))])
}

const decideRevert = (
  command: Extract<FactCommand, { _tag: "RevertFacts" }>,
  state: FactFileState,
  cap: number
): Either.Either<ReadonlyArray<FactEvent>, FactError> => {
  const entries = revertedEntries(state.entries, command.before, command.after)
  if (sameEntries(entries, state.entries)) return Either.right([])
  const tooBig = wholeFileOverCap(
    command.target,
    cap,
    state,
    entries,
    (total) =>
      `memory: reverting version ${command.version} would make ${command.target} ${total} chars, ` +
      `over its cap (${cap} chars); remove entries first, then revert again`
  )
  if (tooBig !== undefined) return Either.left(tooBig)
  return Either.right([
    FactsReverted.make({
      target: command.target,
      reverted: command.version,
      entries,
      previous: state.entries,
      at: command.at
    })
  ])
}

/** Decisions for one fact file. Time and the merge probe arrive inside the command. */
export const decideFact =
  (policy: FactPolicy) =>
  (command: FactCommand, state: FactFileState): Either.Either<ReadonlyArray<FactEvent>, FactError> => {
    if (!policy.enabled) return Either.left(new MemoryDisabled())
    const tooLong = fieldTooLong(command)
    if (tooLong !== undefined) return Either.left(tooLong)
    const cap = policy.caps[command.target]
    switch (command._tag) {
      case "AddFact": {
        const content = trimSpace(command.content)
        if (content === "") return Either.left(new EmptyField({ field: "content" }))
        const valid = validate(content)
        if (Either.isLeft(valid)) return Either.left(valid.left)
        // An exact duplicate is a silent success, checked before merging so it never counts as a merge.
        if (state.entries.includes(content)) return Either.right([])
        const merged = decideMerge(command, state, policy, content, command.probe)
        if (merged !== undefined && Either.isEither(merged)) return merged
        const grown = usedBytes(state.entries) + (state.entries.length > 0 ? SEPARATOR_BYTES : 0) + utf8Bytes(content)
        if (grown > cap) return Either.left(addCapError(command.target, cap, state.entries, content))
        const keptApart = merged?.keptApart
        return Either.right([
          FactAdded.make(
            {
              target: command.target,
              content,
              at: command.at,
              ...(keptApart === undefined ? {} : { keptApart }),
              ...guardOf(command)
            },
            CHECKED
          )
        ])
      }
      case "ReplaceFact": {
        const content = trimSpace(command.content)
        const oldText = trimSpace(command.oldText)
        if (content === "") return Either.left(new EmptyField({ field: "replacement content" }))
        if (oldText === "") return Either.left(new EmptyField({ field: "old_text" }))
        const valid = validate(content)
        if (Either.isLeft(valid)) return Either.left(valid.left)
        const selected = selectForChange(state.entries, oldText, command.expectedEntry)
        if (Either.isLeft(selected)) return Either.left(selected.left)
        const { index, previous } = selected.right
        const total = usedAfterReplace(state.entries, index, content)
        if (total > cap) return Either.left(replaceCapError(command.target, cap, state.entries, total))
        return Either.right([
          FactReplaced.make(
            {
              target: command.target,
              index,
              previous,
              content,
              selector: oldText,
              at: command.at,
              ...guardOf(command)
            },
            CHECKED
          )
        ])
      }
      case "RemoveFact": {
        const oldText = trimSpace(command.oldText)
        if (oldText === "") return Either.left(new EmptyField({ field: "old_text" }))
        const selected = selectForChange(state.entries, oldText, command.expectedEntry)
        if (Either.isLeft(selected)) return Either.left(selected.left)
        const { index, previous } = selected.right
        return Either.right([
          FactRemoved.make({ target: command.target, index, previous, selector: oldText, at: command.at }, CHECKED)
        ])
      }
      case "RewriteFacts": {
        const entries = parseEntries(command.text)
          .map(trimSpace)
          .filter((e) => e !== "")
        for (const [i, entry] of entries.entries()) {
          const valid = validate(entry)
          if (Either.isLeft(valid)) {
            const e = valid.left
            return Either.left(
              new InvalidContent({ reason: `entry [${i + 1}]: ${e.message.replace(/^memory: /, "")}` })
            )
          }
        }
        const tooBig = wholeFileOverCap(
          command.target,
          cap,
          state,
          entries,
          (total) =>
            `memory: edited ${command.target} facts (${total} chars) would exceed cap (${cap} chars); ` +
            `remove entries and save again`
        )
        if (tooBig !== undefined) return Either.left(tooBig)
        if (sameEntries(entries, state.entries)) return Either.right([])
        return Either.right([
          FactsRewritten.make({ target: command.target, entries, previous: state.entries, at: command.at })
        ])
      }
      case "ApplyConsolidation":
        return decideConsolidation(command, state, cap)
      case "RevertFacts":
        return decideRevert(command, state, cap)
      case "ReportBlocked": {
        const known = new Set(command.reported.map((b) => JSON.stringify([b.entry, b.label])))
        const blocked = blockedEntries(state.entries)
          .filter((b) => !known.has(JSON.stringify([b.entry, b.label])))
          .map(({ entry, label }) => ({ entry, label }))
        return Either.right(
          blocked.length === 0 ? [] : [FactsBlocked.make({ target: command.target, blocked, at: command.at }, CHECKED)]
        )
      }
    }
  }

export const evolveFact = (state: FactFileState, event: FactEvent): FactFileState =>
  Match.valueTags(event, {
    FactAdded: (e) => ({ entries: canonicalEntries([...state.entries, e.content]) }),
    FactMerged: (e) => ({ entries: canonicalEntries(state.entries.map((x, i) => (i === e.index ? e.content : x))) }),
    FactReplaced: (e) => ({ entries: canonicalEntries(state.entries.map((x, i) => (i === e.index ? e.content : x))) }),
    // Order-preserving removal keeps "oldest first" true for stats and cap errors (DESIGN §5.3).
    FactRemoved: (e) => ({ entries: canonicalEntries(state.entries.filter((_, i) => i !== e.index)) }),
    FactsImported: (e) => ({ entries: canonicalEntries(e.entries) }),
    FactsEditedExternally: (e) => ({ entries: canonicalEntries(e.entries) }),
    FactsRewritten: (e) => ({ entries: canonicalEntries(e.entries) }),
    FactsConsolidated: (e) => ({ entries: canonicalEntries(e.entries) }),
    FactsReverted: (e) => ({ entries: canonicalEntries(e.entries) }),
    // a refused hand edit never changes the entries: the memory keeps its last valid state
    FactsEditRejected: () => state,
    // the blocked entries stay in the file: the report changes what a person is told, not the state
    FactsBlocked: () => state
  })
