import { HttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { type ScriptedServer, scriptedServer } from "../../../src/adapters/dev/ScriptedServer.js"
import * as OpenAiLlm from "../../../src/adapters/http/OpenAiLlm.js"
import { DEFAULT_LLM, type LlmConfig } from "../../../src/domain/config/MemoryConfig.js"
import { Llm, type LlmRequest } from "../../../src/ports/Llm.js"
import { closedPortUrl, failureOf, timed, undiciClient } from "./support.js"

const ask: LlmRequest = {
  system: "You are terse.",
  messages: [
    { role: "user", content: "Say hi" },
    { role: "assistant", content: "hi" },
    { role: "user", content: "again" }
  ],
  maxTokens: 64
}

const configFor = (baseUrl: string, overrides: Partial<LlmConfig> = {}): LlmConfig => ({
  ...DEFAULT_LLM,
  provider: "openai",
  baseUrl,
  model: "llama3.1",
  timeoutSeconds: 5,
  maxRetries: 2,
  ...overrides
})

/** A client for `server` with fast back-off, over the real undici client. */
const llm = (baseUrl: string, overrides: Partial<LlmConfig> = {}, options: OpenAiLlm.OpenAiLlmOptions = {}) =>
  Effect.flatMap(undiciClient, (client) =>
    OpenAiLlm.make(configFor(baseUrl, overrides), { backoffBaseMs: 5, ...options }).pipe(
      Effect.provideService(HttpClient.HttpClient, client)
    )
  )

const complete = (
  server: ScriptedServer,
  overrides: Partial<LlmConfig> = {},
  options: OpenAiLlm.OpenAiLlmOptions = {},
  request: LlmRequest = ask
) => Effect.flatMap(llm(server.url, overrides, options), (l) => l.complete(request))

/** Every message the adapter produces must fit one terminal line. */
const oneLine = <E extends { readonly message: string }>(e: E): E => {
  expect(e.message).not.toMatch(/[\r\n]/)
  return e
}

describe("OpenAiLlm", () => {
  it.scopedLive("answers with choices[0].message.content and reports what it talks to", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer({ handler: () => ({ kind: "chat", content: '{"facts":[]}' }) })
      expect(yield* complete(server)).toBe('{"facts":[]}')
      const service = yield* llm(server.url)
      expect(service.info).toEqual({
        provider: "openai",
        model: "llama3.1",
        endpoint: `${server.url}/chat/completions`,
        available: true
      })
      // the Layer works on its own, with its own HTTP client
      const viaLayer = yield* Effect.flatMap(Llm, (l) => l.complete(ask)).pipe(
        Effect.provide(OpenAiLlm.layer(configFor(server.url)))
      )
      expect(viaLayer).toBe('{"facts":[]}')
    })
  )

  it.scopedLive(
    "sends the OpenAI chat body; Authorization only with a key; response_format only when asked and enabled",
    () =>
      Effect.gen(function* () {
        const server = yield* scriptedServer({ handler: () => ({ kind: "chat", content: "ok" }) })
        yield* complete(server, { temperature: 0.3 }, {}, { ...ask, json: true })
        yield* complete(
          server,
          { apiKey: Redacted.make("sk-test"), apiKeyEnv: "OPENAI_API_KEY", jsonMode: true },
          {},
          { ...ask, json: true }
        )
        yield* complete(server, { jsonMode: true })
        const [plain, keyed, notAsked] = server.requests
        expect(plain).toMatchObject({ method: "POST", path: "/v1/chat/completions" })
        expect(plain!.headers["content-type"]).toBe("application/json")
        expect(plain!.headers["authorization"]).toBeUndefined()
        expect(plain!.body).toStrictEqual({
          model: "llama3.1",
          messages: [
            { role: "system", content: "You are terse." },
            { role: "user", content: "Say hi" },
            { role: "assistant", content: "hi" },
            { role: "user", content: "again" }
          ],
          max_tokens: 64,
          temperature: 0.3,
          stream: false
        })
        expect(keyed!.headers["authorization"]).toBe("Bearer sk-test")
        expect(keyed!.body).toMatchObject({ response_format: { type: "json_object" }, temperature: 0 })
        expect(notAsked!.body).not.toHaveProperty("response_format")
      })
  )

  it.scopedLive("retries a 500 and succeeds on the next attempt, over the same keep-alive connection", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer({ handler: () => ({ kind: "chat", content: "second time" }) })
      server.enqueue({ kind: "status", status: 500 })
      expect(yield* complete(server)).toBe("second time")
      expect(server.requests).toHaveLength(2)
      expect(server.connections).toBe(1)
    })
  )

  it.scopedLive("honours Retry-After on a 429, capped by maxRetryAfterMs", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer({ handler: () => ({ kind: "chat", content: "ok" }) })
      server.enqueue({ kind: "status", status: 429, retryAfterSeconds: 0.3 })
      const [answer, ms] = yield* timed(complete(server))
      expect(answer).toBe("ok")
      expect(ms).toBeGreaterThanOrEqual(290)
      server.reset()
      server.enqueue({ kind: "status", status: 429, retryAfterSeconds: 3600 })
      const [capped, cappedMs] = yield* timed(complete(server, {}, { maxRetryAfterMs: 50 }))
      expect(capped).toBe("ok")
      expect(cappedMs).toBeLessThan(2000)
      expect(server.requests).toHaveLength(2)
    })
  )

  it.scopedLive(
    "5xx until the retries run out: LlmUnavailable naming the status, the API message and the attempts",
    () =>
      Effect.gen(function* () {
        const server = yield* scriptedServer({
          handler: () => ({ kind: "status", status: 503, message: "model is loading\nplease wait" })
        })
        const e = oneLine(yield* failureOf(complete(server, { maxRetries: 2 })))
        expect(e._tag).toBe("LlmUnavailable")
        expect(e.message).toBe(
          `llm: ${server.url}/chat/completions answered 503: model is loading please wait (3 attempts); try again later`
        )
        expect(server.requests).toHaveLength(3)
        server.reset()
        const once = oneLine(yield* failureOf(complete(server, { maxRetries: 0 })))
        expect(once.message).toMatch(/\(1 attempt\)/)
        expect(server.requests).toHaveLength(1)
      })
  )

  it.scopedLive("connection refused: LlmUnavailable after every attempt, telling what to check", () =>
    Effect.gen(function* () {
      const url = yield* closedPortUrl
      const e = oneLine(yield* failureOf(Effect.flatMap(llm(url, { maxRetries: 2 }), (l) => l.complete(ask))))
      expect(e._tag).toBe("LlmUnavailable")
      expect(e.message).toBe(
        `llm: cannot reach ${url}/chat/completions: connection refused (3 attempts); ` +
          `check llm.base_url and that the server is running`
      )
    })
  )

  it.scopedLive("a reset connection and a truncated body are retried", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer({ handler: () => ({ kind: "chat", content: "recovered" }) })
      server.enqueue({ kind: "reset" }, { kind: "truncated" })
      expect(yield* complete(server)).toBe("recovered")
      expect(server.requests).toHaveLength(3)
      server.reset()
      server.script(() => ({ kind: "truncated" }))
      const e = oneLine(yield* failureOf(complete(server, { maxRetries: 1 })))
      expect(e._tag).toBe("LlmBadResponse")
      expect(e.message).toMatch(/broke off: .* \(2 attempts\); try again later$/)
      expect(server.requests).toHaveLength(2)
      server.reset()
      server.script(() => ({ kind: "reset" }))
      const r = oneLine(yield* failureOf(complete(server, { maxRetries: 1 })))
      expect(r._tag).toBe("LlmUnavailable")
      expect(r.message).toMatch(/cannot reach .*\(2 attempts\)/)
    })
  )

  it.scopedLive("an answer slower than timeout_seconds: LlmTimeout, not retried", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer({ handler: () => ({ kind: "chat", content: "too late", delayMs: 2000 }) })
      const [e, ms] = yield* timed(failureOf(complete(server, { timeoutSeconds: 0.2, maxRetries: 2 })))
      oneLine(e)
      expect(e._tag).toBe("LlmTimeout")
      expect(e.message).toBe(
        `llm: no answer from ${server.url}/chat/completions within 0.2 s; raise llm.timeout_seconds or check the server`
      )
      expect(ms).toBeLessThan(1500)
      expect(server.requests).toHaveLength(1)
      // a server that never answers at all
      server.reset()
      server.script(() => ({ kind: "hang" }))
      expect((yield* failureOf(complete(server, { timeoutSeconds: 0.2 })))._tag).toBe("LlmTimeout")
      expect(server.requests).toHaveLength(1)
    })
  )

  it.scopedLive("a body that is not JSON: LlmBadResponse after one request", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer({ handler: () => ({ kind: "malformed" }) })
      const e = oneLine(yield* failureOf(complete(server)))
      expect(e._tag).toBe("LlmBadResponse")
      expect(e.message).toMatch(
        /^llm: .*\/chat\/completions answered 200 with a body that is not JSON .*; check that llm.base_url/
      )
      expect(server.requests).toHaveLength(1)
    })
  )

  it.scopedLive("401 and 404 are not retried and say what to fix", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer()
      server.enqueue(
        { kind: "status", status: 401, message: "Incorrect API key provided" },
        { kind: "status", status: 401 },
        { kind: "status", status: 404, message: "model 'nope' not found" }
      )
      const withEnv = oneLine(
        yield* failureOf(complete(server, { apiKey: Redacted.make("bad"), apiKeyEnv: "MY_LLM_KEY" }))
      )
      expect(withEnv._tag).toBe("LlmBadResponse")
      expect(withEnv.message).toBe(
        `llm: ${server.url}/chat/completions answered 401: Incorrect API key provided; check the API key in $MY_LLM_KEY`
      )
      const withoutEnv = oneLine(yield* failureOf(complete(server)))
      expect(withoutEnv.message).toMatch(/answered 401: Unauthorized; set llm.api_key_env/)
      const missing = oneLine(yield* failureOf(complete(server)))
      expect(missing._tag).toBe("LlmBadResponse")
      expect(missing.message).toBe(
        `llm: ${server.url}/chat/completions answered 404: model 'nope' not found; check llm.model and llm.base_url`
      )
      expect(server.requests).toHaveLength(3)
    })
  )

  it.scopedLive("a 200 carrying error.message, or no content: LlmBadResponse", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer()
      server.enqueue(
        { kind: "json", body: { error: { message: "context length exceeded", type: "invalid_request_error" } } },
        { kind: "json", body: { choices: [{ message: { role: "assistant", content: null, tool_calls: [] } }] } },
        { kind: "json", body: { choices: [] } },
        { kind: "json", body: [1, 2] }
      )
      const apiError = oneLine(yield* failureOf(complete(server)))
      expect(apiError._tag).toBe("LlmBadResponse")
      expect(apiError.message).toMatch(/returned an error: context length exceeded;/)
      for (let i = 0; i < 3; i++) {
        const e = oneLine(yield* failureOf(complete(server)))
        expect(e._tag).toBe("LlmBadResponse")
        expect(e.message).toMatch(/returned no choices\[0\]\.message\.content; check that llm.model is a chat model$/)
      }
      expect(server.requests).toHaveLength(4)
    })
  )

  it.scopedLive("an answer larger than max_response_bytes: LlmBadResponse, stopped at the bound", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer({ handler: () => ({ kind: "oversize", bytes: 50_000_000 }) })
      const [e, ms] = yield* timed(failureOf(complete(server, { maxResponseBytes: 10_000 })))
      oneLine(e)
      expect(e._tag).toBe("LlmBadResponse")
      expect(e.message).toBe(
        `llm: the answer from ${server.url}/chat/completions exceeds llm.max_response_bytes (10000 bytes); ` +
          `raise llm.max_response_bytes or lower the token limit`
      )
      // 50 MB would take far longer to read than to refuse
      expect(ms).toBeLessThan(1000)
      expect(server.requests).toHaveLength(1)
      // a declared Content-Length over the bound is refused before reading
      server.enqueue({
        kind: "json",
        body: { choices: [{ message: { role: "assistant", content: "y".repeat(20_000) } }] }
      })
      expect((yield* failureOf(complete(server, { maxResponseBytes: 10_000 }))).message).toMatch(
        /exceeds llm.max_response_bytes \(10000 bytes\)/
      )
      expect(server.requests).toHaveLength(2)
      // exactly at the bound is fine, with or without a declared length
      server.script(() => ({ kind: "oversize", bytes: 10_000 }))
      expect((yield* complete(server, { maxResponseBytes: 10_000 })).length).toBeGreaterThan(9_000)
      const exact = JSON.stringify({ choices: [{ message: { content: "" } }] })
      const content = "z".repeat(10_000 - Buffer.byteLength(exact))
      server.enqueue({ kind: "json", body: { choices: [{ message: { content } }] } })
      expect(yield* complete(server, { maxResponseBytes: 10_000 })).toBe(content)
    })
  )

  it.scopedLive("a base URL that is not a URL: a typed error, never a defect", () =>
    Effect.gen(function* () {
      const e = oneLine(yield* failureOf(Effect.flatMap(llm("not a url"), (l) => l.complete(ask))))
      expect(e._tag).toBe("LlmUnavailable")
      expect(e.message).toMatch(/^llm: not a url\/chat\/completions is not a usable URL .*; fix llm.base_url$/)
    })
  )
})
