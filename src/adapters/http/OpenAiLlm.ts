import { HttpClient } from "@effect/platform"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Layer } from "effect"
import type { LlmConfig } from "../../domain/config/MemoryConfig.js"
import { Llm, LlmBadResponse, type LlmError, type LlmRequest, LlmTimeout, LlmUnavailable } from "../../ports/Llm.js"
import { type Answer, describeCause, isRetryableStatus, oneLine, type PostFailure, postJson } from "./transport.js"

/** Test and tuning knobs; production uses the defaults. */
export interface OpenAiLlmOptions {
  /** First retry back-off step (default 500 ms). */
  readonly backoffBaseMs?: number
  /** Cap on a server's `Retry-After` (default 30 s). */
  readonly maxRetryAfterMs?: number
}

const seconds = (s: number) => `${Number(s.toFixed(3))} s`
const attemptsText = (n: number) => `${n} attempt${n === 1 ? "" : "s"}`

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** An OpenAI-style `{"error":{"message"}}` (or `{"error":"..."}`, as some servers send). */
const apiErrorMessage = (json: unknown): string | undefined => {
  if (!isObject(json)) return undefined
  const error = json["error"]
  if (typeof error === "string" && error.trim() !== "") return oneLine(error)
  if (isObject(error) && typeof error["message"] === "string" && error["message"].trim() !== "")
    return oneLine(error["message"])
  return undefined
}

const contentOf = (json: unknown): string | undefined => {
  if (!isObject(json) || !Array.isArray(json["choices"])) return undefined
  const first: unknown = json["choices"][0]
  if (!isObject(first) || !isObject(first["message"])) return undefined
  const content = first["message"]["content"]
  return typeof content === "string" ? content : undefined
}

/** What to do about a refusal the model server will repeat if asked again. */
const hintFor = (status: number, config: LlmConfig): string => {
  if (status === 401 || status === 403) {
    return config.apiKeyEnv !== ""
      ? `check the API key in $${config.apiKeyEnv}`
      : "set llm.api_key_env to the variable that holds the API key"
  }
  if (status === 404) return "check llm.model and llm.base_url"
  if (status === 413) return "the prompt is too large for this server"
  if (status === 400 || status === 422)
    return config.jsonMode ? "check llm.model, or set llm.json_mode to false" : "check llm.model"
  return "check the llm settings"
}

/**
 * A completion client for any OpenAI-compatible `/chat/completions` endpoint (Ollama, llama.cpp, vLLM, LM Studio,
 * OpenAI).
 */
export const make = (
  config: LlmConfig,
  options: OpenAiLlmOptions = {}
): Effect.Effect<Llm["Type"], never, HttpClient.HttpClient> =>
  Effect.map(HttpClient.HttpClient, (client) => {
    const post = postJson(client)
    const endpoint = `${config.baseUrl}/chat/completions`
    const unavailable = (reason: string) => new LlmUnavailable({ reason: `llm: ${reason}` })
    const bad = (reason: string) => new LlmBadResponse({ reason: `llm: ${reason}` })

    const fromFailure = (f: PostFailure): LlmError => {
      switch (f._tag) {
        case "ConnectFailed":
          return unavailable(
            `cannot reach ${endpoint}: ${f.detail} (${attemptsText(f.attempts)}); ` +
              "check llm.base_url and that the server is running"
          )
        case "TimedOut":
          return new LlmTimeout({
            reason:
              `llm: no answer from ${endpoint} within ${seconds(config.timeoutSeconds)}; ` +
              "raise llm.timeout_seconds or check the server"
          })
        case "BodyFailed":
          return bad(
            `the answer from ${endpoint} broke off: ${f.detail} (${attemptsText(f.attempts)}); try again later`
          )
        case "TooLarge":
          return bad(
            `the answer from ${endpoint} exceeds llm.max_response_bytes (${f.limit} bytes); ` +
              "raise llm.max_response_bytes or lower the token limit"
          )
        case "InvalidUrl":
          return unavailable(`${endpoint} is not a usable URL (${f.detail}); fix llm.base_url`)
      }
    }

    const fromAnswer = (a: Answer): Effect.Effect<string, LlmError> => {
      const message = a.json.ok ? apiErrorMessage(a.json.value) : undefined
      if (a.status < 200 || a.status > 299) {
        const said = message !== undefined ? `: ${message}` : a.json.ok ? "" : " (not JSON)"
        return isRetryableStatus(a.status)
          ? Effect.fail(
              unavailable(`${endpoint} answered ${a.status}${said} (${attemptsText(a.attempts)}); try again later`)
            )
          : Effect.fail(bad(`${endpoint} answered ${a.status}${said}; ${hintFor(a.status, config)}`))
      }
      if (!a.json.ok) {
        return Effect.fail(
          bad(
            `${endpoint} answered ${a.status} with a body that is not JSON (${a.json.error}); ` +
              "check that llm.base_url is an OpenAI-compatible API root such as http://localhost:11434/v1"
          )
        )
      }
      if (message !== undefined)
        return Effect.fail(bad(`${endpoint} returned an error: ${message}; check llm.model and the server's log`))
      const content = contentOf(a.json.value)
      if (content === undefined)
        return Effect.fail(
          bad(`${endpoint} returned no choices[0].message.content; check that llm.model is a chat model`)
        )
      return Effect.succeed(content)
    }

    const complete = (request: LlmRequest): Effect.Effect<string, LlmError> =>
      post({
        url: endpoint,
        apiKey: config.apiKey,
        body: {
          model: config.model,
          messages: [
            { role: "system", content: request.system },
            ...request.messages.map((m) => ({ role: m.role, content: m.content }))
          ],
          max_tokens: request.maxTokens,
          temperature: config.temperature,
          stream: false,
          ...(request.json === true && config.jsonMode ? { response_format: { type: "json_object" } } : {})
        },
        timeoutMs: config.timeoutSeconds * 1000,
        maxBytes: config.maxResponseBytes,
        maxRetries: config.maxRetries,
        ...(options.backoffBaseMs !== undefined ? { backoffBaseMs: options.backoffBaseMs } : {}),
        ...(options.maxRetryAfterMs !== undefined ? { maxRetryAfterMs: options.maxRetryAfterMs } : {})
      }).pipe(
        Effect.mapError(fromFailure),
        Effect.flatMap(fromAnswer),
        // a bug in the HTTP stack must still reach callers as an error they degrade on, not a crash
        Effect.catchAllDefect((defect) =>
          Effect.fail(unavailable(`request to ${endpoint} failed unexpectedly: ${describeCause(defect)}`))
        )
      )

    return Llm.of({ info: { provider: "openai", model: config.model, endpoint, available: true }, complete })
  })

/** The adapter over Node's undici HTTP client. */
export const layer = (config: LlmConfig, options?: OpenAiLlmOptions): Layer.Layer<Llm> =>
  Layer.effect(Llm, make(config, options)).pipe(Layer.provide(NodeHttpClient.layerUndici))
