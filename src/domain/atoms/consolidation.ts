/**
 * Consolidation of near-duplicate atoms (spec extended §12): which live atoms form a group, the call that merges a
 * group's texts, how the reply is read, and the atom that replaces the group.
 */
import { cosine, type Vector } from "../embedding/vector.js"
import type { LlmRequestText } from "../llm/prompts.js"
import { trimSpace } from "../text/utf8.js"
import type { Atom } from "./atom.js"

/**
 * Groups of near-duplicates as indices into `atoms` (listed newest first, §12.1), each ascending, greedily: every atom
 * not yet grouped seeds a group that absorbs every later ungrouped atom whose cosine to the seed (not to the other
 * members) is at least `threshold`. Only groups of two or more are returned. An atom without a vector (missing or
 * empty: its embedding failed) is never grouped, as odek skips a nil vector.
 */
export const consolidationGroups = (
  atoms: ReadonlyArray<{ readonly id: string }>,
  vectors: ReadonlyArray<Vector>,
  threshold: number
): Array<Array<number>> => {
  const hasVector = (i: number) => (vectors[i]?.length ?? 0) > 0
  const grouped = new Set<number>()
  const groups: Array<Array<number>> = []
  for (let seed = 0; seed < atoms.length; seed++) {
    if (grouped.has(seed) || !hasVector(seed)) continue
    const group = [seed]
    for (let j = seed + 1; j < atoms.length; j++)
      if (!grouped.has(j) && hasVector(j) && cosine(vectors[seed]!, vectors[j]!) >= threshold) group.push(j)
    if (group.length < 2) continue
    for (const i of group) grouped.add(i)
    groups.push(group)
  }
  return groups
}

export const CONSOLIDATION_SYSTEM_PROMPT = "You are a memory consolidation system. Return only the merged statement."

const CONSOLIDATION_INSTRUCTIONS =
  "You are a memory consolidation system. The following memory atoms are near-duplicates of the same fact. " +
  "Merge them into a single concise statement that preserves all durable information. " +
  "Return only the merged statement, nothing else."

/** The merge call for one group (§12.2): the members' texts numbered from 1, one line each, in group order. */
export const consolidationRequest = (texts: ReadonlyArray<string>): LlmRequestText => ({
  system: CONSOLIDATION_SYSTEM_PROMPT,
  user: `${CONSOLIDATION_INSTRUCTIONS}\n\n${texts.map((t, i) => `${i + 1}. ${t}\n`).join("")}`
})

// An info string after the opening fence: a language name such as `text`, never a sentence.
const INFO_STRING = /^[\w+.-]*$/
const QUOTES: ReadonlyArray<readonly [string, string]> = [
  ['"', '"'],
  ["'", "'"],
  ["`", "`"],
  ["“", "”"],
  ["‘", "’"]
]

/** The body of one surrounding Markdown fence, its info-string line dropped; anything else unchanged. */
const unfenced = (t: string): string => {
  if (t.length < 6 || !t.startsWith("```") || !t.endsWith("```")) return t
  const body = t.slice(3, -3)
  const newline = body.indexOf("\n")
  return newline >= 0 && INFO_STRING.test(body.slice(0, newline)) ? body.slice(newline + 1) : body
}

/** The text inside one pair of surrounding quotes, when it holds no other closing quote (else they quote a part). */
const unquoted = (t: string): string => {
  for (const [open, close] of QUOTES) {
    if (t.length < open.length + close.length || !t.startsWith(open) || !t.endsWith(close)) continue
    const inner = t.slice(open.length, -close.length)
    return inner.includes(close) ? t : inner
  }
  return t
}

/**
 * The merged statement in a reply (§12.3): trimmed, with one surrounding code fence and then one pair of surrounding
 * quotes removed. Nothing left → undefined: the group is skipped and its atoms stay as they are.
 */
export const mergedText = (reply: string): string | undefined => {
  const text = trimSpace(unquoted(trimSpace(unfenced(trimSpace(reply)))))
  return text === "" ? undefined : text
}

/** A member's confidence for choosing the base: outside (0, 1] or absent it reads as certain, as on write (§2.3). */
const confidenceOf = (a: Atom): number =>
  a.confidence !== undefined && a.confidence > 0 && a.confidence <= 1 ? a.confidence : 1

/**
 * The atom that replaces a group (§12.3): the member with the highest confidence (the earliest in the group on a tie)
 * gives its type, source class, confidence and context; it gets id `id`, the merged `text` and `created_at` = `now`.
 * It is pinned when any member was (§12.4 Rec: v1.15 loses a lower-confidence member's pin). `related_atom_ids` is
 * `outsideLinks`, the members' links leaving the group, sorted and unique, with the members themselves left out.
 * `members` must not be empty: a group has at least two.
 */
export const mergedAtom = (
  members: ReadonlyArray<Atom>,
  text: string,
  id: string,
  now: string,
  outsideLinks: ReadonlyArray<string>
): Atom => {
  const base = members.reduce<Atom | undefined>(
    (best, a) => (best === undefined || confidenceOf(a) > confidenceOf(best) ? a : best),
    undefined
  )
  if (base === undefined) throw new Error("mergedAtom: a group has at least one member")
  const inGroup = new Set([...members.map((m) => m.id), id])
  const related = [...new Set(outsideLinks.filter((l) => !inGroup.has(l)))].sort()
  const { related_atom_ids: _, ...context } = base.context
  return {
    id,
    text,
    source_class: base.source_class,
    type: base.type,
    created_at: now,
    context: related.length > 0 ? { ...context, related_atom_ids: related } : context,
    ...(members.some((m) => m.pin === true) ? { pin: true } : {}),
    ...(base.confidence !== undefined ? { confidence: base.confidence } : {})
  }
}
