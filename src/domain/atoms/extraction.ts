/**
 * Per-turn extraction (spec extended §10.4): what the model is sent for one user message, and how its reply becomes
 * atoms. The extractor does not scan; the write path is the single gate.
 */
import type { LlmRequestText } from "../llm/prompts.js"
import { trimSpace } from "../text/utf8.js"
import { type Atom, isAtomType } from "./atom.js"
import { tolerantJson } from "./tolerantJson.js"

/**
 * The message without its untrusted blocks, trimmed: every `<untrusted_content_<nonce> source="…">…` block up to the
 * nearest `</untrusted_content_<nonce>>` with the same nonce is removed (a block closes only with its own nonce, which
 * the text inside cannot guess, so a planted closing tag does not end it early). A block that is never closed is
 * removed to the end of the message: wrapped content must never reach the extractor (§10.6), whose atoms are trusted.
 */
export const stripUntrusted = (message: string): string => {
  // the nonce is bounded so that a long run without spaces cannot make each match attempt rescan it (quadratic time)
  const opening = /<untrusted_content_([^\s>]{0,128})\s+source="[^"]*"\s*>/g
  let out = ""
  let kept = 0
  for (let m = opening.exec(message); m !== null; m = opening.exec(message)) {
    out += message.slice(kept, m.index)
    const closing = `</untrusted_content_${m[1]}>`
    const end = message.indexOf(closing, m.index + m[0].length)
    if (end < 0) return trimSpace(out)
    kept = end + closing.length
    opening.lastIndex = kept
  }
  return trimSpace(out + message.slice(kept))
}

/** The extraction system prompt, exactly as §10.4 gives it (the spec's contract with the model). */
export const EXTRACTION_SYSTEM_PROMPT = [
  "You are a memory extraction system. Read the user message and extract durable, reusable atomic memories.",
  "",
  "For each atom, output an object with:",
  '- "text": a concise, first-person-paraphrased statement (not a command).',
  '- "type": one of "fact", "preference", "intent", "decision", "goal", "convention", "file", "error", "question".',
  '- "confidence": a number 0.0-1.0 indicating how certain the memory is.',
  "",
  "Rules:",
  "- Only extract stable information worth recalling in future sessions.",
  "- Do NOT extract instructions, commands, or requests to perform actions.",
  '- DO emit a "question" atom when the user asks a question that has not been answered yet, so it can be ' +
    "followed up on later.",
  '- DO emit a "goal" atom when the user states an intention or plan (e.g. "I want to…", "we should…", ' +
    '"next week I\'ll…").',
  "- Do NOT extract ephemeral details specific only to this message.",
  "- If nothing durable is present, return an empty array.",
  "",
  "Output ONLY a JSON array. Example:",
  '[{"text":"User prefers concise answers","type":"preference","confidence":0.9}]'
].join("\n")

/** The call for one user message, or undefined when nothing is left once untrusted blocks are stripped (no call). */
export const extractionRequest = (message: string): LlmRequestText | undefined => {
  const user = stripUntrusted(message)
  return user === "" ? undefined : { system: EXTRACTION_SYSTEM_PROMPT, user }
}

/** Confidence of an extracted atom whose model gave none, or one outside (0, 1]. */
export const DEFAULT_EXTRACTED_CONFIDENCE = 0.7

/**
 * What a reply yields: atoms (at least one), nothing to keep (an empty reply or array, or only empty texts), or no
 * usable JSON array of objects (an error: v1.15 then skips the turn's user-state inference too).
 */
export type Extraction =
  | { readonly kind: "atoms"; readonly atoms: ReadonlyArray<Atom> }
  | { readonly kind: "none" }
  | { readonly kind: "unparseable" }

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)
const trimmedString = (v: unknown): string => (typeof v === "string" ? trimSpace(v) : "")

/**
 * The reply read per §10.4, with §10.5's tolerance for fences and prose. Each element: text is the trimmed `text`,
 * else the trimmed legacy `content` (a non-string counts as empty; empty → skipped); a type outside the ten →
 * `observation`; a confidence missing, not a number or outside (0, 1] → 0.7. Every atom is `user_said`, created
 * `now`, with an id from `ids` (called once per kept atom) and an empty context the caller fills.
 */
export const parseExtraction = (reply: string, now: string, ids: () => string): Extraction => {
  const t = trimSpace(reply)
  if (t === "" || t === "[]") return { kind: "none" }
  const json = tolerantJson(t)
  if (!Array.isArray(json) || !json.every(isObject)) return { kind: "unparseable" }
  const atoms: Array<Atom> = []
  for (const element of json) {
    const text = trimmedString(element["text"]) || trimmedString(element["content"])
    if (text === "") continue
    const type = element["type"]
    const confidence = element["confidence"]
    atoms.push({
      id: ids(),
      text,
      source_class: "user_said",
      type: isAtomType(type) ? type : "observation",
      created_at: now,
      context: {},
      confidence:
        typeof confidence === "number" && confidence > 0 && confidence <= 1 ? confidence : DEFAULT_EXTRACTED_CONFIDENCE
    })
  }
  return atoms.length === 0 ? { kind: "none" } : { kind: "atoms", atoms }
}
