/**
 * Finding the JSON in a model's reply (spec extended §10.5), shared by extraction, prediction, inference and nudges:
 * models wrap it in Markdown fences or prose. Total over every string: no input makes these throw.
 */
import { trimSpace } from "../text/utf8.js"

/** One surrounding Markdown fence, ```` ```json ```` or ```` ``` ````, removed; the text trimmed either way. */
const stripFence = (reply: string): string => {
  const t = trimSpace(reply)
  if (!t.startsWith("```")) return t
  const body = t.slice(t.startsWith("```json") ? 7 : 3)
  return trimSpace(body.endsWith("```") ? body.slice(0, -3) : body)
}

const isJson = (s: string): boolean => {
  try {
    JSON.parse(s)
    return true
  } catch {
    return false
  }
}

const CLOSER: Readonly<Record<string, string>> = { "[": "]", "{": "}" }

/**
 * The span from the first `[` or `{` outside a string literal to its matching closer, tracking strings and their
 * escapes so brackets quoted inside them do not count. Unclosed, or closed by the wrong bracket → undefined.
 */
const balancedSpan = (s: string): string | undefined => {
  let inString = false
  let escaped = false
  let start = -1
  const expected: Array<string> = []
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!
    if (inString) {
      if (escaped) escaped = false
      else if (c === "\\") escaped = true
      else if (c === '"') inString = false
      continue
    }
    if (c === '"') inString = true
    else if (c === "[" || c === "{") {
      if (start < 0) start = i
      expected.push(CLOSER[c]!)
    } else if (start >= 0 && (c === "]" || c === "}")) {
      if (expected.pop() !== c) return undefined
      if (expected.length === 0) return s.slice(start, i + 1)
    }
  }
  return undefined
}

/**
 * The JSON text of a reply: the whole reply when, without its fence, it is a JSON array or object; else the first
 * balanced `[…]`/`{…}` span outside a string (which may still not be valid JSON); none → undefined.
 */
export const locateJson = (reply: string): string | undefined => {
  const body = stripFence(reply)
  if ((body.startsWith("[") || body.startsWith("{")) && isJson(body)) return body
  return balancedSpan(body)
}

/** The reply's JSON array or object, parsed; undefined when there is none or the located span is not valid JSON. */
export const tolerantJson = (reply: string): unknown => {
  const span = locateJson(reply)
  if (span === undefined) return undefined
  try {
    return JSON.parse(span) as unknown
  } catch {
    return undefined
  }
}
