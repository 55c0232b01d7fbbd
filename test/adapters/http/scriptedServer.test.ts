import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Agent, request } from "undici"
import { type ScriptedServer, scriptedServer, startScriptedServer } from "../../../src/adapters/dev/ScriptedServer.js"

/**
 * A private connection pool per test, so one test's keep-alive sockets never serve another's. One connection per
 * origin: undici may open a second socket when a request starts while the previous one is still being released.
 */
const client = Effect.acquireRelease(
  Effect.sync(() => new Agent({ connections: 1 })),
  (agent) => Effect.promise(() => agent.destroy())
)

const post = (agent: Agent, server: ScriptedServer, path: string, body: unknown = {}) =>
  Effect.promise(() =>
    request(`${server.url}${path}`, {
      dispatcher: agent,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body)
    })
  )

const postJson = (agent: Agent, server: ScriptedServer, path: string, body: unknown = {}) =>
  Effect.flatMap(post(agent, server, path, body), (r) =>
    Effect.promise(async () => ({ status: r.statusCode, headers: r.headers, json: (await r.body.json()) as any }))
  )

/** The request's failure, or a defect if it succeeded. */
const failure = <A>(p: () => Promise<A>) =>
  Effect.tryPromise(p).pipe(
    Effect.flip,
    Effect.map((e) => e.cause as { code?: string; message: string })
  )

describe("ScriptedServer", () => {
  it.scopedLive(
    "records each request (method, path, lower-case headers, parsed and raw body) before the script runs",
    () =>
      Effect.gen(function* () {
        const agent = yield* client
        const seenBy: Array<number> = []
        const server = yield* scriptedServer({
          handler: (_req, n) => {
            seenBy.push(server.requests.length)
            return { kind: "chat", content: `reply ${n}` }
          }
        })
        const res = yield* postJson(agent, server, "/chat/completions", { model: "m1", messages: [] })
        expect(res.status).toBe(200)
        expect(res.json.object).toBe("chat.completion")
        expect(res.json.model).toBe("m1")
        expect(res.json.choices[0].message).toEqual({ role: "assistant", content: "reply 0" })
        yield* Effect.promise(() =>
          request(`${server.url}/embeddings?x=1`, {
            dispatcher: agent,
            method: "POST",
            headers: { "X-Custom": "Yes" },
            body: "not json"
          }).then((r) => r.body.dump())
        )
        expect(seenBy).toEqual([1, 2])
        const [first, second] = server.requests
        expect(first).toMatchObject({
          method: "POST",
          path: "/v1/chat/completions",
          body: { model: "m1", messages: [] },
          raw: '{"model":"m1","messages":[]}'
        })
        expect(first!.headers["content-type"]).toBe("application/json")
        expect(second).toMatchObject({ method: "POST", path: "/v1/embeddings?x=1", body: undefined, raw: "not json" })
        expect(second!.headers["x-custom"]).toBe("Yes")
      })
  )

  it.scopedLive("queued replies go first, in order; then the handler, which sees the running sequence number", () =>
    Effect.gen(function* () {
      const agent = yield* client
      const server = yield* scriptedServer({ handler: (_r, n) => ({ kind: "chat", content: `handler ${n}` }) })
      server.enqueue({ kind: "chat", content: "q1" }, { kind: "chat", content: "q2" })
      const contents: Array<string> = []
      for (let i = 0; i < 3; i++)
        contents.push((yield* postJson(agent, server, "/chat/completions")).json.choices[0].message.content)
      expect(contents).toEqual(["q1", "q2", "handler 2"])
      server.script(() => ({ kind: "chat", content: "replaced" }))
      server.enqueue({ kind: "status", status: 503 })
      server.reset()
      expect(server.requests).toEqual([])
      expect((yield* postJson(agent, server, "/chat/completions")).json.choices[0].message.content).toBe("replaced")
      expect(server.requests).toHaveLength(1)
    })
  )

  it.scopedLive("without a script: 501 on the two API paths, a model list on GET /v1/models, 404 elsewhere", () =>
    Effect.gen(function* () {
      const agent = yield* client
      const server = yield* scriptedServer()
      const chat = yield* postJson(agent, server, "/chat/completions")
      expect(chat.status).toBe(501)
      expect(chat.json.error.message).toMatch(/no script is loaded for POST \/v1\/chat\/completions/)
      expect((yield* postJson(agent, server, "/embeddings")).status).toBe(501)
      const unknown = yield* postJson(agent, server, "/completions")
      expect(unknown.status).toBe(404)
      expect(unknown.json.error).toMatchObject({ type: "invalid_request_error" })
      const models = yield* Effect.promise(() =>
        request(`${server.url}/models`, { dispatcher: agent }).then((r) => r.body.json())
      ) as Effect.Effect<any>
      expect(models).toMatchObject({ object: "list", data: [{ id: "scripted" }] })
      // a queued reply takes any path
      server.enqueue({ kind: "json", status: 201, body: { ok: true }, headers: { "x-extra": "1" } })
      const taken = yield* postJson(agent, server, "/anything")
      expect(taken).toMatchObject({ status: 201, json: { ok: true } })
      expect(taken.headers["x-extra"]).toBe("1")
    })
  )

  it.scopedLive(
    "status replies carry an OpenAI error body and Retry-After; embeddings keep the scripted index order",
    () =>
      Effect.gen(function* () {
        const agent = yield* client
        const server = yield* scriptedServer()
        server.enqueue(
          { kind: "status", status: 429, message: "slow down", retryAfterSeconds: 2 },
          { kind: "embeddings", vectors: [[1], [2], [3]], order: [2, 0, 1] },
          { kind: "malformed", status: 502 }
        )
        const limited = yield* postJson(agent, server, "/chat/completions")
        expect(limited.status).toBe(429)
        expect(limited.headers["retry-after"]).toBe("2")
        expect(limited.json).toEqual({ error: { message: "slow down", type: "rate_limit_error", code: null } })
        const emb = yield* postJson(agent, server, "/embeddings", { model: "e" })
        expect(emb.json).toMatchObject({ object: "list", model: "e" })
        expect(emb.json.data).toEqual([
          { object: "embedding", index: 2, embedding: [1] },
          { object: "embedding", index: 0, embedding: [2] },
          { object: "embedding", index: 1, embedding: [3] }
        ])
        const bad = yield* post(agent, server, "/chat/completions")
        expect(bad.statusCode).toBe(502)
        const text = yield* Effect.promise(() => bad.body.text())
        expect(() => JSON.parse(text)).toThrow()
      })
  )

  it.scopedLive("a script that throws answers 500 instead of breaking the server", () =>
    Effect.gen(function* () {
      const agent = yield* client
      const server = yield* scriptedServer({
        handler: () => {
          throw new Error("oops")
        }
      })
      const res = yield* postJson(agent, server, "/chat/completions")
      expect(res.status).toBe(500)
      expect(res.json.error.message).toMatch(/oops/)
    })
  )

  it.scopedLive("reset: the request fails without a response", () =>
    Effect.gen(function* () {
      const agent = yield* client
      const server = yield* scriptedServer({ handler: () => ({ kind: "reset" }) })
      const e = yield* failure(() =>
        request(`${server.url}/chat/completions`, { dispatcher: agent, method: "POST", body: "{}" })
      )
      expect(e.code).toBe("UND_ERR_SOCKET")
      expect(server.requests).toHaveLength(1)
    })
  )

  it.scopedLive("truncated: headers arrive, then reading the body fails", () =>
    Effect.gen(function* () {
      const agent = yield* client
      const server = yield* scriptedServer({ handler: () => ({ kind: "truncated" }) })
      const res = yield* post(agent, server, "/chat/completions")
      expect(res.statusCode).toBe(200)
      expect(Number(res.headers["content-length"])).toBeGreaterThan(0)
      const e = yield* failure(() => res.body.text())
      expect(e.message).toMatch(/closed|aborted|terminated/i)
    })
  )

  it.scopedLive(
    "oversize: a valid chat completion of the requested size, streamed in chunks without a Content-Length",
    () =>
      Effect.gen(function* () {
        const agent = yield* client
        const server = yield* scriptedServer({ handler: () => ({ kind: "oversize", bytes: 3_000_000 }) })
        const res = yield* post(agent, server, "/chat/completions")
        let chunks = 0
        const parts: Array<Buffer> = []
        yield* Effect.promise(async () => {
          for await (const c of res.body) {
            chunks++
            parts.push(c as Buffer)
          }
        })
        const body = Buffer.concat(parts)
        expect(body.length).toBe(3_000_000)
        expect(res.headers["content-length"]).toBeUndefined()
        expect(res.headers["transfer-encoding"]).toBe("chunked")
        expect(chunks).toBeGreaterThan(1)
        expect(JSON.parse(body.toString("utf8")).choices[0].message.content).toMatch(/^x+$/)
      })
  )

  it.scopedLive("delayMs holds any reply back", () =>
    Effect.gen(function* () {
      const agent = yield* client
      const server = yield* scriptedServer({ handler: () => ({ kind: "chat", content: "late", delayMs: 150 }) })
      const started = performance.now()
      expect((yield* postJson(agent, server, "/chat/completions")).status).toBe(200)
      expect(performance.now() - started).toBeGreaterThanOrEqual(140)
    })
  )

  it.live("hang: close() ends the hanging and the delayed requests at once", () =>
    Effect.gen(function* () {
      const server = yield* Effect.promise(() => startScriptedServer())
      const agent = new Agent()
      server.enqueue({ kind: "hang" }, { kind: "chat", content: "never", delayMs: 60_000 })
      const hanging = Effect.runPromise(
        Effect.either(
          failure(() => request(`${server.url}/chat/completions`, { dispatcher: agent, method: "POST", body: "{}" }))
        )
      )
      const delayed = Effect.runPromise(
        Effect.either(
          failure(() => request(`${server.url}/chat/completions`, { dispatcher: agent, method: "POST", body: "{}" }))
        )
      )
      while (server.requests.length < 2) yield* Effect.sleep("5 millis")
      const started = performance.now()
      yield* Effect.promise(() => server.close())
      expect(performance.now() - started).toBeLessThan(1000)
      const outcomes = yield* Effect.promise(() => Promise.all([hanging, delayed]))
      for (const o of outcomes) expect(o._tag).toBe("Right")
      yield* Effect.promise(() => server.close()) // closing twice is harmless
      yield* Effect.promise(() => agent.destroy())
    })
  )

  it.scopedLive("keep-alive: sequential requests from one client reuse one connection", () =>
    Effect.gen(function* () {
      const agent = yield* client
      const server = yield* scriptedServer({ handler: () => ({ kind: "chat", content: "ok" }) })
      for (let i = 0; i < 5; i++) yield* postJson(agent, server, "/chat/completions")
      expect(server.requests).toHaveLength(5)
      expect(server.connections).toBe(1)
    })
  )
})
