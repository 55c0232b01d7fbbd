import { Either } from "effect"
import type { LlmRequestText } from "../llm/prompts.js"
import { trimSpace } from "../text/utf8.js"
import { ConsolidationParseFailed } from "./errors.js"
import type { Target } from "./schema.js"

/** The consolidation request (spec facts §6.1 step 3), kept recognisable for test doubles and log readers. */
export const consolidationPrompt = (target: Target, entries: ReadonlyArray<string>): LlmRequestText => ({
  system:
    "You are a memory consolidation system. Merge related entries into concise facts. " +
    "Output as a JSON array of strings. Never more than the original count of entries.",
  user:
    `Consolidate the following memory entries into a concise set of facts. Merge related entries, remove redundancy. ` +
    `Output as a JSON array of strings, for example: ["fact one", "fact two", "fact three"]\n\n` +
    `Entries for ${target}:\n${entries.join("\n")}`
})

const cut = (s: string, n = 80) => (s.length > n ? `${s.slice(0, n)}…` : s)

const stringArray = (v: unknown): ReadonlyArray<string> | undefined =>
  Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as ReadonlyArray<string>) : undefined

/**
 * The model's answer as a list of entries: a JSON array of strings. In JSON mode some servers can only return an
 * object, so an object whose single field is such an array is accepted too. Anything else (prose, code fences)
 * fails the pass.
 */
export const parseConsolidation = (answer: string): Either.Either<ReadonlyArray<string>, ConsolidationParseFailed> => {
  const text = answer.trim()
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    const detail = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, " ")
    return Either.left(new ConsolidationParseFailed({ detail: `${detail} in ${JSON.stringify(cut(text))}` }))
  }
  const direct = stringArray(value)
  if (direct !== undefined) return Either.right(direct)
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const fields = Object.values(value)
    const only = fields.length === 1 ? stringArray(fields[0]) : undefined
    if (only !== undefined) return Either.right(only)
  }
  return Either.left(
    new ConsolidationParseFailed({ detail: `expected a JSON array of strings, got ${JSON.stringify(cut(text))}` })
  )
}

/**
 * Steps 5–6 of the pass: at most as many entries as went in (the model may not add facts), trimmed, empties and
 * repeats dropped. Validation (scan, coverage, cap) is the decider's.
 */
export const normaliseConsolidation = (output: ReadonlyArray<string>, inputCount: number): ReadonlyArray<string> => {
  const seen = new Set<string>()
  const out: Array<string> = []
  for (const raw of output.slice(0, inputCount)) {
    const e = trimSpace(raw)
    if (e === "" || seen.has(e)) continue
    seen.add(e)
    out.push(e)
  }
  return out
}
