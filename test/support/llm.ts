import { Layer, ManagedRuntime } from "effect"
import type { RecordedRequest, ScriptedServer } from "../../src/adapters/dev/ScriptedServer.js"
import * as HttpEmbedder from "../../src/adapters/http/HttpEmbedder.js"
import * as NoneLlm from "../../src/adapters/llm/NoneLlm.js"
import * as OpenAiLlm from "../../src/adapters/http/OpenAiLlm.js"
import {
  DEFAULT_EMBEDDING,
  DEFAULT_LLM,
  type LlmConfig,
  type MemoryConfig
} from "../../src/domain/config/MemoryConfig.js"
import type { LifecycleEvent } from "../../src/domain/events/lifecycle.js"
import { appLayer } from "./app.js"

/** The real OpenAI-compatible adapter pointed at a scripted server; no retries unless asked, fast back-off. */
export const llmConfig = (url: string, over: Partial<LlmConfig> = {}): LlmConfig => ({
  ...DEFAULT_LLM,
  provider: "openai",
  baseUrl: url,
  model: "scripted",
  maxRetries: 0,
  timeoutSeconds: 5,
  ...over
})

export const scriptedLlm = (server: ScriptedServer, over: Partial<LlmConfig> = {}) =>
  OpenAiLlm.layer(llmConfig(server.url, over), { backoffBaseMs: 5 })

export const scriptedEmbedder = (server: ScriptedServer) =>
  HttpEmbedder.layer({ ...DEFAULT_EMBEDDING, provider: "http", baseUrl: server.url, model: "scripted" })

export const chats = (server: ScriptedServer): ReadonlyArray<RecordedRequest> =>
  server.requests.filter((r) => r.path.endsWith("/chat/completions"))

/** The last message a chat request sent (the user prompt). */
export const promptOf = (r: RecordedRequest): string => {
  const messages = (r.body as { messages: ReadonlyArray<{ content: string }> }).messages
  return messages[messages.length - 1]!.content
}

/** The entries a consolidation request listed. */
export const entriesOf = (r: RecordedRequest): ReadonlyArray<string> => {
  const m = /Entries for (?:user|env):\n([\s\S]*)$/.exec(promptOf(r))
  return m === null ? [] : m[1]!.split("\n")
}

/** A runtime over the app services with a scripted model: for tests that act from inside the server's handler. */
export const scriptedRuntime = (
  server: ScriptedServer,
  options: {
    config?: Partial<MemoryConfig>
    events?: Array<LifecycleEvent>
    llm?: Partial<LlmConfig>
    embedder?: "rp" | "http"
    cap?: NonNullable<Parameters<typeof appLayer>[0]>["cap"]
    store?: NonNullable<Parameters<typeof appLayer>[0]>["store"]
    drain?: NonNullable<Parameters<typeof appLayer>[0]>["drain"]
  } = {}
) =>
  ManagedRuntime.make(
    appLayer({
      ...(options.config !== undefined ? { config: options.config } : {}),
      ...(options.events !== undefined ? { events: options.events } : {}),
      llm: options.llm?.provider === "none" ? NoneLlm.layer : scriptedLlm(server, options.llm),
      ...(options.embedder === "http" ? { embedder: scriptedEmbedder(server) } : {}),
      ...(options.cap !== undefined ? { cap: options.cap } : {}),
      ...(options.store !== undefined ? { store: options.store } : {}),
      ...(options.drain !== undefined ? { drain: options.drain } : {})
    })
  )

export type { Layer }
