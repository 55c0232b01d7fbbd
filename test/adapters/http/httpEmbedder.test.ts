import { HttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { type Reply, type ScriptedServer, scriptedServer } from "../../../src/adapters/dev/ScriptedServer.js"
import * as HttpEmbedder from "../../../src/adapters/http/HttpEmbedder.js"
import { DEFAULT_EMBEDDING, type EmbeddingConfig } from "../../../src/domain/config/MemoryConfig.js"
import { EmbedFailed, Embedder } from "../../../src/ports/Embedder.js"
import { closedPortUrl, failureOf, inputsOf, undiciClient, vectorFor } from "./support.js"

const configFor = (baseUrl: string, overrides: Partial<EmbeddingConfig> = {}): EmbeddingConfig => ({
  ...DEFAULT_EMBEDDING,
  provider: "http",
  baseUrl,
  model: "nomic-embed-text",
  ...overrides
})

const embedderFor = (baseUrl: string, overrides: Partial<EmbeddingConfig> = {}) =>
  Effect.flatMap(undiciClient, (client) =>
    HttpEmbedder.make(configFor(baseUrl, overrides)).pipe(Effect.provideService(HttpClient.HttpClient, client))
  )

/** Answers every embeddings request with the deterministic vectors of its inputs. */
const echo =
  (dims = 3) =>
  (req: Parameters<Parameters<ScriptedServer["script"]>[0]>[0]): Reply => ({
    kind: "embeddings",
    vectors: inputsOf(req).map((t) => vectorFor(t, dims))
  })

const plain = (vs: ReadonlyArray<Float32Array>) => vs.map((v) => Array.from(v))

/** The message of a failed embed, which must be an `EmbedFailed` on one line starting with "embeddings:". */
const embedError = <A, R>(effect: Effect.Effect<A, EmbedFailed, R>) =>
  Effect.map(failureOf(effect), (e) => {
    expect(e).toBeInstanceOf(EmbedFailed)
    expect(e.message).toMatch(/^embeddings: /)
    expect(e.message).not.toMatch(/[\r\n]/)
    return e.message
  })

describe("HttpEmbedder: request", () => {
  it.scopedLive(
    "POSTs {model, input:[raw texts]} to <base_url>/embeddings, with a bearer key only when set; " +
      "vectors in input order",
    () =>
      Effect.gen(function* () {
        const server = yield* scriptedServer({ handler: echo() })
        const embedder = yield* embedderFor(`${server.url}/`)
        const got = yield* embedder.embed([], ["Hello World", "  spaced  "])
        expect(plain(got)).toEqual([vectorFor("Hello World"), vectorFor("  spaced  ")])
        expect(got[0]).toBeInstanceOf(Float32Array)
        const [req] = server.requests
        expect(req).toMatchObject({ method: "POST", path: "/v1/embeddings" })
        expect(req!.body).toStrictEqual({ model: "nomic-embed-text", input: ["Hello World", "  spaced  "] })
        expect(req!.headers["content-type"]).toBe("application/json")
        expect(req!.headers["authorization"]).toBeUndefined()
        // a single text is still an array
        const keyed = yield* embedderFor(server.url, { apiKey: Redacted.make("sk-e") })
        yield* keyed.embed([], ["one"])
        expect(server.requests[1]!.body).toStrictEqual({ model: "nomic-embed-text", input: ["one"] })
        expect(server.requests[1]!.headers["authorization"]).toBe("Bearer sk-e")
      })
  )

  it.scopedLive("an empty miss list sends nothing", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer({ handler: echo() })
      const embedder = yield* embedderFor(server.url)
      expect(yield* embedder.embed([], [])).toEqual([])
      yield* embedder.embed(["a"], ["a"])
      expect(yield* embedder.embed(["a"], [])).toEqual([])
      expect(server.requests).toHaveLength(1)
    })
  )

  it.scopedLive("the Layer provides a plain Embedder", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer({ handler: echo() })
      const [keys, got] = yield* Effect.flatMap(Embedder, (e) =>
        Effect.map(e.embed([], ["x"]), (vs) => [Object.keys(e).sort(), plain(vs)] as const)
      ).pipe(Effect.provide(HttpEmbedder.layer(configFor(server.url))))
      expect(keys).toEqual(["embed", "fit", "space"])
      expect(got).toEqual([vectorFor("x")])
    })
  )
})

describe("HttpEmbedder: response validation (spec §7.3, in order)", () => {
  const once = (
    reply: Reply,
    overrides: Partial<EmbeddingConfig> = {},
    inputs: ReadonlyArray<string> = ["a", "b", "c"]
  ) =>
    Effect.gen(function* () {
      const server = yield* scriptedServer()
      server.enqueue(reply)
      const embedder = yield* embedderFor(server.url, overrides)
      const message = yield* embedError(embedder.embed([], inputs))
      return message.replace(`${server.url}/embeddings`, "<endpoint>")
    })

  it.scopedLive("1. the body is read up to 64 MiB and no further", () =>
    Effect.gen(function* () {
      expect(yield* once({ kind: "oversize", bytes: HttpEmbedder.MAX_RESPONSE_BYTES + 1 })).toBe(
        "embeddings: <endpoint> returned more than 67108864 bytes"
      )
    })
  )

  it.scopedLive("2. not JSON: the status when it is not 200, else a decode error", () =>
    Effect.gen(function* () {
      expect(yield* once({ kind: "malformed", status: 502 })).toBe("embeddings: <endpoint> returned status 502")
      expect(yield* once({ kind: "malformed" })).toMatch(
        /^embeddings: <endpoint> returned a body that cannot be decoded: /
      )
      expect(yield* once({ kind: "json", body: { data: [{ index: 0, embedding: "nope" }] } }, {}, ["a"])).toBe(
        "embeddings: <endpoint> returned a body that cannot be decoded: data[0].embedding is not an array of numbers"
      )
    })
  )

  it.scopedLive("3. error.message comes before the status and the data checks", () =>
    Effect.gen(function* () {
      expect(yield* once({ kind: "status", status: 400, message: "input too long" })).toBe(
        "embeddings: <endpoint> returned status 400: input too long"
      )
      expect(yield* once({ kind: "json", body: { error: { message: "model not loaded" }, data: [] } })).toBe(
        "embeddings: <endpoint> returned status 200: model not loaded"
      )
    })
  )

  it.scopedLive("4. a JSON answer with another status than 200 is an error, whatever its data", () =>
    Effect.gen(function* () {
      const vectors = [[1], [2], [3]]
      expect(
        yield* once({
          kind: "json",
          status: 201,
          body: { data: vectors.map((embedding, index) => ({ index, embedding })) }
        })
      ).toBe("embeddings: <endpoint> returned status 201")
      expect(yield* once({ kind: "json", status: 500, body: { error: { message: "" } } })).toBe(
        "embeddings: <endpoint> returned status 500"
      )
    })
  )

  it.scopedLive("5. the vector count must match the input count (checked before the indices)", () =>
    Effect.gen(function* () {
      expect(yield* once({ kind: "embeddings", vectors: [[1], [2]] })).toBe(
        "embeddings: <endpoint> returned 2 vectors for 3 inputs"
      )
      expect(yield* once({ kind: "embeddings", vectors: [[1], [2]], order: [0, 0] })).toBe(
        "embeddings: <endpoint> returned 2 vectors for 3 inputs"
      )
      expect(yield* once({ kind: "json", body: { object: "list" } })).toBe(
        "embeddings: <endpoint> returned 0 vectors for 3 inputs"
      )
    })
  )

  it.scopedLive("6. data is ordered by index, which must be a permutation of 0…n−1", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer()
      const embedder = yield* embedderFor(server.url)
      server.enqueue({
        kind: "embeddings",
        vectors: [
          [3, 3],
          [1, 1],
          [2, 2]
        ],
        order: [2, 0, 1]
      })
      expect(plain(yield* embedder.embed([], ["a", "b", "c"]))).toEqual([
        [1, 1],
        [2, 2],
        [3, 3]
      ])
      expect(yield* once({ kind: "embeddings", vectors: [[1], [2], [3]], order: [0, 1, 1] })).toMatch(
        /^embeddings: <endpoint> returned indices that are not a permutation of 0…2 \(got \[0,1,1\]\)$/
      )
      expect(yield* once({ kind: "embeddings", vectors: [[1], [2], [3]], order: [1, 2, 3] })).toMatch(
        /indices that are not a permutation/
      )
      expect(yield* once({ kind: "embeddings", vectors: [[1], [2], [3]], order: [0, 1, -1] })).toMatch(
        /indices that are not a permutation/
      )
      // the index check comes before the dims checks
      expect(yield* once({ kind: "embeddings", vectors: [[1], [2, 2], []], order: [0, 0, 1] })).toMatch(
        /indices that are not a permutation/
      )
    })
  )

  it.scopedLive("7. all vectors must have one length (checked before emptiness)", () =>
    Effect.gen(function* () {
      expect(yield* once({ kind: "embeddings", vectors: [[1, 2], [1], [1, 2]] })).toBe(
        "embeddings: <endpoint> returned inconsistent dims (2, 1)"
      )
      expect(yield* once({ kind: "embeddings", vectors: [[1, 2], [], [1, 2]] })).toMatch(/inconsistent dims/)
    })
  )

  it.scopedLive("8. an empty embedding is an error (before the dims lock)", () =>
    Effect.gen(function* () {
      expect(yield* once({ kind: "embeddings", vectors: [[], [], []] })).toBe(
        "embeddings: <endpoint> returned an empty embedding"
      )
      expect(yield* once({ kind: "embeddings", vectors: [[], [], []] }, { dims: 4 })).toBe(
        "embeddings: <endpoint> returned an empty embedding"
      )
    })
  )

  it.scopedLive("9. configured dims must match", () =>
    Effect.gen(function* () {
      expect(
        yield* once(
          {
            kind: "embeddings",
            vectors: [
              [1, 2, 3],
              [1, 2, 3],
              [1, 2, 3]
            ]
          },
          { dims: 4 }
        )
      ).toMatch(/^embeddings: <endpoint> returned dims 3 do not match the configured 4; /)
      const server = yield* scriptedServer({ handler: echo(4) })
      const embedder = yield* embedderFor(server.url, { dims: 4 })
      expect(plain(yield* embedder.embed([], ["ok"]))).toEqual([vectorFor("ok", 4)])
    })
  )

  it.scopedLive("9. inferred dims are fixed by the first good response; a rejected response does not fix them", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer()
      const embedder = yield* embedderFor(server.url)
      expect(embedder.space.dims).toBe(0)
      // rejected for its count: its length-5 vectors must not become the instance's dims
      server.enqueue({ kind: "embeddings", vectors: [[1, 2, 3, 4, 5]] })
      expect(yield* embedError(embedder.embed([], ["a", "b"]))).toMatch(/returned 1 vectors for 2 inputs/)
      server.enqueue({ kind: "embeddings", vectors: [[1, 2, 3]] })
      expect(plain(yield* embedder.embed([], ["c"]))).toEqual([[1, 2, 3]])
      server.enqueue({ kind: "embeddings", vectors: [[1, 2, 3, 4]] })
      expect(yield* embedError(embedder.embed([], ["d"]))).toMatch(
        /returned dims 4 do not match the 3 of its first response/
      )
      server.enqueue({ kind: "embeddings", vectors: [[7, 8, 9]] })
      expect(plain(yield* embedder.embed([], ["d"]))).toEqual([[7, 8, 9]])
      // the fingerprint keeps the configured dims (0), as the spec says
      expect(embedder.space.id).toMatch(/^http\/nomic-embed-text\/0\//)
    })
  )
})

describe("HttpEmbedder: transport failures", () => {
  it.scopedLive("a slow server: EmbedFailed after timeout_seconds, one request", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer({ handler: () => ({ kind: "embeddings", vectors: [[1]], delayMs: 2000 }) })
      const embedder = yield* embedderFor(server.url, { timeoutSeconds: 0.2 })
      const started = performance.now()
      expect(yield* embedError(embedder.embed([], ["a"]))).toBe(
        `embeddings: ${server.url}/embeddings timed out after 0.2 s`
      )
      expect(performance.now() - started).toBeLessThan(1500)
      expect(server.requests).toHaveLength(1)
    })
  )

  it.scopedLive("no server: cannot connect, no retries", () =>
    Effect.gen(function* () {
      const url = yield* closedPortUrl
      const embedder = yield* embedderFor(url)
      expect(yield* embedError(embedder.embed([], ["a"]))).toBe(
        `embeddings: ${url}/embeddings cannot connect: connection refused`
      )
      expect(embedder.stats().requests).toBe(1)
    })
  )

  it.scopedLive("a reset or truncated answer fails the call (no retries)", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer()
      server.enqueue({ kind: "reset" }, { kind: "truncated" })
      const embedder = yield* embedderFor(server.url)
      expect(yield* embedError(embedder.embed([], ["a"]))).toMatch(/cannot connect: /)
      expect(yield* embedError(embedder.embed([], ["a"]))).toMatch(/broke off the response \(status 200\)/)
      expect(server.requests).toHaveLength(2)
    })
  )
})

describe("HttpEmbedder: cache (spec §7.4)", () => {
  it.scopedLive(
    "a cached text sends no request; repeated texts in one call are sent once; corpus and texts share one request",
    () =>
      Effect.gen(function* () {
        const server = yield* scriptedServer({ handler: echo() })
        const embedder = yield* embedderFor(server.url)
        const first = yield* embedder.embed([], ["a", "bb", "a"])
        expect(plain(first)).toEqual([vectorFor("a"), vectorFor("bb"), vectorFor("a")])
        expect(server.requests.map(inputsOf)).toEqual([["a", "bb"]])
        expect(plain(yield* embedder.embed([], ["bb", "a"]))).toEqual([vectorFor("bb"), vectorFor("a")])
        expect(server.requests).toHaveLength(1)
        // the corpus warms the cache in the same request as the query's misses; hits are not sent
        const got = yield* embedder.embed(["c1", "a", "c2", "c1"], ["q", "c2"])
        expect(plain(got)).toEqual([vectorFor("q"), vectorFor("c2")])
        expect(server.requests.map(inputsOf)).toEqual([
          ["a", "bb"],
          ["c1", "c2", "q"]
        ])
        yield* embedder.embed([], ["c1", "c2", "q"])
        expect(server.requests).toHaveLength(2)
        expect(embedder.stats()).toEqual({ hits: 6, misses: 5, requests: 2, entries: 5 })
      })
  )

  it.scopedLive("callers get copies: writing into a vector does not change the cache", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer({ handler: echo() })
      const embedder = yield* embedderFor(server.url)
      const [v] = yield* embedder.embed([], ["a"])
      v!.fill(9)
      expect(plain(yield* embedder.embed([], ["a"]))).toEqual([vectorFor("a")])
    })
  )

  it.scopedLive("a failed call caches nothing, not even the texts the answer did cover", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer({ handler: echo() })
      const embedder = yield* embedderFor(server.url)
      server.enqueue({ kind: "status", status: 500 })
      expect(yield* embedError(embedder.embed([], ["a", "b"]))).toMatch(/returned status 500/)
      server.enqueue({ kind: "embeddings", vectors: [[1, 1, 1]] })
      yield* embedError(embedder.embed([], ["a", "b"]))
      expect(plain(yield* embedder.embed([], ["a", "b"]))).toEqual([vectorFor("a"), vectorFor("b")])
      expect(server.requests.map(inputsOf)).toEqual([
        ["a", "b"],
        ["a", "b"],
        ["a", "b"]
      ])
    })
  )

  it.scopedLive("bound 4096: a batch that would exceed it empties the cache first, then is added (no LRU)", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer({ handler: echo() })
      const embedder = yield* embedderFor(server.url)
      const texts = Array.from({ length: HttpEmbedder.CACHE_LIMIT - 1 }, (_, i) => `t${i}`)
      yield* embedder.embed(texts, [])
      // exactly at the bound: nothing is dropped
      yield* embedder.embed([], ["fill"])
      expect(embedder.stats().entries).toBe(HttpEmbedder.CACHE_LIMIT)
      yield* embedder.embed([], ["t0", "fill"])
      expect(server.requests).toHaveLength(2)
      // one more: reset, then the batch ("new") goes in; a hit in the same call is still answered
      const got = yield* embedder.embed([], ["new", "t1"])
      expect(plain(got)).toEqual([vectorFor("new"), vectorFor("t1")])
      expect(embedder.stats().entries).toBe(1)
      expect(server.requests.map(inputsOf).slice(2)).toEqual([["new"]])
      yield* embedder.embed([], ["new", "t0", "fill"])
      expect(server.requests.map(inputsOf).slice(3)).toEqual([["t0", "fill"]])
      expect(embedder.stats().entries).toBe(3)
    })
  )
})

describe("HttpEmbedder: fingerprint (spec §8)", () => {
  const hashOf = (baseUrl: string) => HttpEmbedder.httpSpace(configFor(baseUrl, { model: "m" })).id.split("/")[3]

  it("golden: http://LocalHost:11434/v1/ normalizes to http://localhost:11434/v1", () => {
    expect(HttpEmbedder.normalizeBaseUrl("http://LocalHost:11434/v1/")).toBe("http://localhost:11434/v1")
    const space = HttpEmbedder.httpSpace(
      configFor("http://LocalHost:11434/v1/", { model: "nomic-embed-text", dims: 768 })
    )
    expect(space).toEqual({
      id: "http/nomic-embed-text/768/89caf70a6a58a082c8bd16cc0a4ad72d0a2ab0a8d0f495421057ebb5ce6460ee",
      provider: "http",
      model: "nomic-embed-text",
      dims: 768
    })
  })

  it("credentials, query and fragment are not part of the identity; scheme, host, port and path are", () => {
    const golden = "89caf70a6a58a082c8bd16cc0a4ad72d0a2ab0a8d0f495421057ebb5ce6460ee"
    expect(hashOf("HTTP://user:secret@localhost:11434/v1?api-version=2024#frag")).toBe(golden)
    expect(hashOf(" http://localhost:11434/v1// ")).toBe(golden)
    expect(hashOf("https://localhost:11434/v1")).not.toBe(golden)
    expect(hashOf("http://localhost:11435/v1")).not.toBe(golden)
    expect(hashOf("http://localhost:11434/V1")).not.toBe(golden)
    expect(hashOf("http://localhost:11434")).not.toBe(golden)
  })

  it("paths keep valid escapes as written and escape the rest; strings without scheme and host are lower-cased", () => {
    expect(HttpEmbedder.normalizeBaseUrl("http://h/a%2Fb/")).toBe("http://h/a%2Fb")
    expect(HttpEmbedder.normalizeBaseUrl("http://h/c d/é")).toBe("http://h/c%20d/%C3%A9")
    expect(HttpEmbedder.normalizeBaseUrl("http://h:80/x")).toBe("http://h:80/x")
    expect(HttpEmbedder.normalizeBaseUrl("LocalHost:11434/V1/")).toBe("localhost:11434/v1")
    expect(HttpEmbedder.normalizeBaseUrl("http:///nohost/")).toBe("http:///nohost")
  })

  it.scopedLive("the instance reports the space of its config", () =>
    Effect.gen(function* () {
      const embedder = yield* embedderFor("http://LocalHost:11434/v1/", { model: " nomic-embed-text " })
      expect(embedder.space.id).toBe(
        "http/nomic-embed-text/0/89caf70a6a58a082c8bd16cc0a4ad72d0a2ab0a8d0f495421057ebb5ce6460ee"
      )
      expect(embedder.space.provider).toBe("http")
    })
  )
})
