import { contentWords, covers } from "../../domain/facts/coverage.js"
import type { Handler, Reply } from "./ScriptedServer.js"

/** Dimensions of the demo embeddings: small, deterministic, enough to tell related texts apart. */
const DEMO_DIMS = 64

const fnv1a = (s: string): number => {
  let h = 0x811c9dc5
  for (const b of Buffer.from(s, "utf8")) h = Math.imul(h ^ b, 0x01000193) >>> 0
  return h
}

/** A hashed bag of content words: texts sharing words point the same way. */
export const demoEmbedding = (text: string): ReadonlyArray<number> => {
  const v = new Array<number>(DEMO_DIMS).fill(0)
  for (const w of contentWords(text)) {
    const h = fnv1a(w)
    v[h % DEMO_DIMS]! += (h >>> 16) & 1 ? 1 : -1
  }
  const norm = Math.hypot(...v)
  return norm === 0 ? v.map((_, i) => (i === 0 ? 1 : 0)) : v.map((x) => x / norm)
}

const jaccard = (a: string, b: string) => {
  const x = contentWords(a)
  const y = contentWords(b)
  const inter = [...x].filter((w) => y.has(w)).length
  const union = new Set([...x, ...y]).size
  return union === 0 ? 0 : inter / union
}

/**
 * A consolidation a careful model might give: entries another entry already covers are dropped, and entries that
 * share most of their words are joined. Every word is kept, so the result passes the coverage rule.
 */
export const demoConsolidation = (entries: ReadonlyArray<string>): ReadonlyArray<string> => {
  const kept = entries.filter((e, i) => !entries.some((o, j) => j !== i && covers(o, e) && (!covers(e, o) || j < i)))
  const out: Array<string> = []
  for (const e of kept) {
    const k = out.findIndex((o) => jaccard(o, e) >= 0.5)
    if (k >= 0) out[k] = `${out[k]!.replace(/[.;]\s*$/u, "")}; ${e}`
    else out.push(e)
  }
  return out
}

const chatText = (body: unknown): string => {
  const messages = (body as { messages?: ReadonlyArray<{ content?: unknown }> } | undefined)?.messages ?? []
  return messages.map((m) => (typeof m.content === "string" ? m.content : "")).join("\n")
}

/** The behaviour of `tmem dev llm-server`: deterministic answers to every request tmem makes. */
export const demoHandler: Handler = (request): Reply => {
  if (request.path.endsWith("/embeddings")) {
    const input = (request.body as { input?: unknown } | undefined)?.input
    if (!Array.isArray(input) || !input.every((t) => typeof t === "string"))
      return { kind: "json", status: 400, body: { error: { message: "input must be an array of strings", type: "invalid_request_error" } } }
    return { kind: "embeddings", vectors: input.map((t: string) => [...demoEmbedding(t)]) }
  }
  if (request.path.endsWith("/chat/completions")) {
    const text = chatText(request.body)
    const marker = text.match(/Entries for (?:user|env):\n([\s\S]*)$/u)
    if (text.includes("Consolidate the following memory entries") && marker !== null) {
      const entries = marker[1]!.split("\n").filter((l) => l.trim() !== "")
      return { kind: "chat", content: JSON.stringify(demoConsolidation(entries)) }
    }
    const pair = text.match(/Existing entry: (".*")\nNew entry: (".*")/u)
    if (pair !== null) {
      const [existing, incoming] = [JSON.parse(pair[1]!) as string, JSON.parse(pair[2]!) as string]
      return { kind: "chat", content: jaccard(existing, incoming) >= 0.4 ? "merge" : "add" }
    }
    return { kind: "chat", content: "This is tmem's scripted model: it only answers tmem's own requests." }
  }
  return { kind: "status", status: 404, message: `no route for ${request.method} ${request.path}` }
}
