import { contentWords, covers } from "../../domain/facts/coverage.js"
import { COMBINED_SYSTEM_PROMPT, EPISODE_SYSTEM_PROMPT, FACTS_SYSTEM_PROMPT } from "../../domain/episodes/prompts.js"
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
  const v = Array.from({ length: DEMO_DIMS }, () => 0)
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

const messagesOf = (body: unknown): ReadonlyArray<{ readonly role: string; readonly content: string }> =>
  ((body as { messages?: ReadonlyArray<{ role?: unknown; content?: unknown }> } | undefined)?.messages ?? []).map(
    (m) => ({
      role: typeof m.role === "string" ? m.role : "",
      content: typeof m.content === "string" ? m.content : ""
    })
  )

const chatText = (body: unknown): string =>
  messagesOf(body)
    .map((m) => m.content)
    .join("\n")

/** A quoted excerpt on one line, cut at a word near `max` characters. */
const excerpt = (text: string, max: number) => {
  const flat = text.replace(/\s+/gu, " ").trim()
  return flat.length <= max
    ? flat
    : `${flat.slice(0, flat.lastIndexOf(" ", max) > max / 2 ? flat.lastIndexOf(" ", max) : max)}…`
}

/**
 * The episode a careful model might write for an extraction transcript (`user: …`, `assistant: …`, `tool: …`
 * lines, a message's later lines following its first): third person, past tense, made of what the session said.
 * A session whose user said nothing with content words is not worth remembering: `NONE`.
 */
export const demoEpisode = (transcript: string): string => {
  const turns: Array<{ role: string; text: string }> = []
  for (const line of transcript.split("\n")) {
    const m = /^(user|assistant|tool): (.*)$/u.exec(line)
    if (m !== null) turns.push({ role: m[1]!, text: m[2]! })
    else if (turns.length > 0) turns[turns.length - 1]!.text += `\n${line}`
  }
  const asks = turns.filter((t) => t.role === "user" && contentWords(t.text).size > 0)
  if (asks.length === 0) return "NONE"
  const tools = turns.filter((t) => t.role === "tool").length
  const reply = turns.findLast((t) => t.role === "assistant")
  const more = asks.length > 1 ? ` and ${asks.length - 1} more request${asks.length > 2 ? "s" : ""}` : ""
  const ran = tools > 0 ? ` ran ${tools} tool call${tools > 1 ? "s" : ""} and` : ""
  const answer = reply === undefined ? " gave no written reply" : ` last replied "${excerpt(reply.text, 120)}"`
  return `In this session the user asked "${excerpt(asks[0]!.text, 120)}"${more}; the agent${ran}${answer}.`
}

/** The search reranker's answer (src/domain/episodes/recall.ts): items sharing words with the query, most first. */
export const demoRanking = (prompt: string): string => {
  const query = /^Rank these memory summaries by relevance to: (.*)$/mu.exec(prompt)?.[1] ?? ""
  const items = [...prompt.matchAll(/^\[(\d+)\] (.*)$/gmu)].map((m) => ({ index: m[1]!, score: jaccard(query, m[2]!) }))
  const relevant = items.filter((i) => i.score > 0).sort((a, b) => b.score - a.score)
  return relevant.length === 0 ? "none" : relevant.map((i) => i.index).join(",")
}

/**
 * The session-end extraction calls (src/domain/episodes/prompts.ts) and the reranker, told apart by their system
 * prompt.
 */
const byPrompt = (system: string, transcript: string): string | undefined => {
  if (system === EPISODE_SYSTEM_PROMPT) return demoEpisode(transcript)
  // durable facts are the model's judgement; the scripted one proposes none rather than invent them
  if (system === COMBINED_SYSTEM_PROMPT) return JSON.stringify({ summary: demoEpisode(transcript), facts: [] })
  if (system === FACTS_SYSTEM_PROMPT) return "[]"
  if (system.startsWith("You are a relevance ranking system")) return demoRanking(transcript)
  return undefined
}

/** The behaviour of `tmem dev llm-server`: deterministic answers to every request tmem makes. */
export const demoHandler: Handler = (request): Reply => {
  if (request.path.endsWith("/embeddings")) {
    const input = (request.body as { input?: unknown } | undefined)?.input
    if (!Array.isArray(input) || !input.every((t) => typeof t === "string"))
      return {
        kind: "json",
        status: 400,
        body: { error: { message: "input must be an array of strings", type: "invalid_request_error" } }
      }
    return { kind: "embeddings", vectors: input.map((t: string) => [...demoEmbedding(t)]) }
  }
  if (request.method === "GET" && request.path.split("?")[0]!.endsWith("/models"))
    return {
      kind: "json",
      body: { object: "list", data: [{ id: "scripted", object: "model", created: 0, owned_by: "tmem" }] }
    }
  if (request.path.endsWith("/chat/completions")) {
    const messages = messagesOf(request.body)
    const extraction = byPrompt(messages[0]?.content ?? "", messages[messages.length - 1]?.content ?? "")
    if (extraction !== undefined) return { kind: "chat", content: extraction }
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
    // a request tmem never makes: an error, so that no canned sentence can pass for an answer (or an episode)
    return {
      kind: "status",
      status: 400,
      message:
        "tmem's scripted model answers only tmem's own requests (consolidation, merge judgement, session extraction)"
    }
  }
  return { kind: "status", status: 404, message: `no route for ${request.method} ${request.path}` }
}
