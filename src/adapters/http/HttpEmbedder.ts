import { createHash } from "node:crypto"
import { HttpClient } from "@effect/platform"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Layer } from "effect"
import type { EmbeddingConfig } from "../../domain/config/MemoryConfig.js"
import { EmbedFailed, Embedder, type EmbeddingSpace } from "../../ports/Embedder.js"
import { type Answer, describeCause, oneLine, type PostFailure, postJson } from "./transport.js"

/** Entries kept before the cache is emptied and refilled (spec §7.4: reset, no LRU). */
export const CACHE_LIMIT = 4096
/** Largest response body read (spec §7.3 step 1). */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024

/** Cache counters since the instance was made; a hit or miss is counted once per distinct text per call. */
export interface CacheStats {
  readonly hits: number
  readonly misses: number
  readonly requests: number
  readonly entries: number
}

/** The embedder service plus its cache counters (for benchmarks and tests). */
export interface HttpEmbedderInstance extends Readonly<Embedder["Type"]> {
  readonly fit: NonNullable<Embedder["Type"]["fit"]>
  readonly stats: () => CacheStats
}

// Go's url.EscapedPath keeps a validly escaped path as written and escapes anything else.
const validEscaped = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/[\]]|%[0-9A-Fa-f]{2})*$/
const escapePath = (decoded: string) =>
  Array.from(new TextEncoder().encode(decoded), (b) => {
    const c = String.fromCharCode(b)
    return /[A-Za-z0-9\-._~$&+,/:;=@]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`
  }).join("")

/**
 * Spec §8: `scheme://host[:port]` lower-cased plus the escaped path without trailing "/"; query, fragment and
 * credentials are left out. A string that does not parse as scheme + host is lower-cased, trimmed and stripped
 * of trailing "/" instead. Parsed by hand, not with WHATWG `URL`, to keep default ports and dot segments as Go does.
 */
export const normalizeBaseUrl = (raw: string): string => {
  const fallback = () => raw.trim().toLowerCase().replace(/\/+$/, "")
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)/.exec(raw.trim())
  if (m === null) return fallback()
  const [, scheme = "", authority = "", rawPath = ""] = m
  const host = authority.slice(authority.lastIndexOf("@") + 1)
  if (host === "") return fallback()
  let path: string
  if (validEscaped.test(rawPath)) path = rawPath
  else {
    try {
      path = escapePath(decodeURIComponent(rawPath))
    } catch {
      return fallback()
    }
  }
  return `${scheme.toLowerCase()}://${host.toLowerCase()}${path.replace(/\/+$/, "")}`
}

/** The embedding space of an `http` config (spec §8, "later" column): the endpoint is part of the identity. */
export const httpSpace = (config: EmbeddingConfig): EmbeddingSpace => {
  const model = config.model.trim()
  const h = createHash("sha256").update(normalizeBaseUrl(config.baseUrl)).digest("hex")
  return { id: `http/${model}/${config.dims}/${h}`, provider: "http", model, dims: config.dims }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

interface Item {
  readonly index: unknown
  readonly embedding: ReadonlyArray<number>
}

/** Go decodes into typed structs, so a body of the wrong shape is a decode error (step 2), not a later check. */
const decodeShape = (json: unknown): { readonly data: ReadonlyArray<Item>; readonly errorMessage: string } | string => {
  if (!isObject(json)) return "the body is not a JSON object"
  const error = json["error"]
  const errorMessage = isObject(error) && typeof error["message"] === "string" ? error["message"] : ""
  const raw = json["data"]
  if (raw === undefined || raw === null) return { data: [], errorMessage }
  if (!Array.isArray(raw)) return "data is not an array"
  const data: Array<Item> = []
  for (const [i, item] of raw.entries()) {
    if (!isObject(item)) return `data[${i}] is not an object`
    const e = item["embedding"]
    // JSON null decodes to an empty slice in Go: caught later as "empty embedding"
    if (e === null || e === undefined) data.push({ index: item["index"], embedding: [] })
    else if (Array.isArray(e) && e.every((x) => typeof x === "number"))
      data.push({ index: item["index"], embedding: e as ReadonlyArray<number> })
    else return `data[${i}].embedding is not an array of numbers`
  }
  return { data, errorMessage }
}

/**
 * The OpenAI-compatible `/embeddings` provider (spec §7): validated, cached, one batch request per call, no retries.
 */
export const make = (config: EmbeddingConfig): Effect.Effect<HttpEmbedderInstance, never, HttpClient.HttpClient> =>
  Effect.map(HttpClient.HttpClient, (client) => {
    const post = postJson(client)
    const endpoint = `${config.baseUrl.trim().replace(/\/+$/, "")}/embeddings`
    const space = httpSpace(config)
    const cache = new Map<string, Float32Array>()
    // 0 until a response passes every check, unless configured; never changed afterwards
    let dims = config.dims > 0 ? config.dims : 0
    let hits = 0
    let misses = 0
    let requests = 0
    const fail = (what: string) => new EmbedFailed({ text: `embeddings: ${endpoint} ${what}` })

    const fromFailure = (f: PostFailure): EmbedFailed => {
      switch (f._tag) {
        case "ConnectFailed":
          return fail(`cannot connect: ${f.detail}`)
        case "TimedOut":
          return fail(`timed out after ${Number(config.timeoutSeconds.toFixed(3))} s`)
        case "BodyFailed":
          return fail(`broke off the response (status ${f.status}): ${f.detail}`)
        case "TooLarge":
          return fail(`returned more than ${f.limit} bytes`)
        case "InvalidUrl":
          return fail(`is not a usable URL (${f.detail}); fix embedding.base_url`)
      }
    }

    /** Spec §7.3, steps 2–9 in order; the dims lock moves only when all of them pass. */
    const validate = (a: Answer, n: number): ReadonlyArray<Float32Array> | EmbedFailed => {
      const shape = a.json.ok ? decodeShape(a.json.value) : a.json.error
      if (typeof shape === "string")
        return a.status !== 200
          ? fail(`returned status ${a.status}`)
          : fail(`returned a body that cannot be decoded: ${shape}`)
      if (shape.errorMessage !== "") return fail(`returned status ${a.status}: ${oneLine(shape.errorMessage)}`)
      if (a.status !== 200) return fail(`returned status ${a.status}`)
      if (shape.data.length !== n) return fail(`returned ${shape.data.length} vectors for ${n} inputs`)
      const ordered: Array<ReadonlyArray<number> | undefined> = Array.from(
        { length: n },
        (): ReadonlyArray<number> | undefined => undefined
      )
      for (const item of shape.data) {
        const i = item.index
        if (typeof i !== "number" || !Number.isInteger(i) || i < 0 || i >= n || ordered[i] !== undefined) {
          return fail(
            `returned indices that are not a permutation of 0…${n - 1} ` +
              `(got ${oneLine(JSON.stringify(shape.data.map((d) => d.index ?? null)), 80)})`
          )
        }
        ordered[i] = item.embedding
      }
      const vectors = ordered as ReadonlyArray<ReadonlyArray<number>>
      const length = vectors[0]?.length ?? 0
      if (vectors.some((v) => v.length !== length))
        return fail(`returned inconsistent dims (${[...new Set(vectors.map((v) => v.length))].join(", ")})`)
      if (length === 0) return fail("returned an empty embedding")
      if (dims > 0 && length !== dims) {
        return config.dims > 0
          ? fail(
              `returned dims ${length} do not match the configured ${dims}; ` +
                `set embedding.dims to ${length} (the index is rebuilt)`
            )
          : fail(
              `returned dims ${length} do not match the ${dims} of its first response; ` +
                "the model changed, set embedding.dims to rebuild"
            )
      }
      dims = length
      return vectors.map((v) => Float32Array.from(v))
    }

    const fetch = (inputs: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<Float32Array>, EmbedFailed> =>
      Effect.suspend(() => {
        requests++
        return post({
          url: endpoint,
          apiKey: config.apiKey,
          body: { model: config.model, input: inputs },
          timeoutMs: config.timeoutSeconds * 1000,
          maxBytes: MAX_RESPONSE_BYTES,
          maxRetries: 0
        })
      }).pipe(
        Effect.mapError(fromFailure),
        Effect.flatMap((a) => {
          const r = validate(a, inputs.length)
          return r instanceof EmbedFailed ? Effect.fail(r) : Effect.succeed(r)
        }),
        Effect.catchAllDefect((defect) => Effect.fail(fail(`request failed unexpectedly: ${describeCause(defect)}`)))
      )

    const embed = (
      corpus: ReadonlyArray<string>,
      texts: ReadonlyArray<string>
    ): Effect.Effect<ReadonlyArray<Float32Array>, EmbedFailed> =>
      Effect.suspend(() => {
        // hits are taken now: a reset while adding this call's batch must not lose them
        const found = new Map<string, Float32Array>()
        const missing: Array<string> = []
        const seen = new Set<string>()
        for (const t of [...corpus, ...texts]) {
          if (seen.has(t)) continue
          seen.add(t)
          const hit = cache.get(t)
          if (hit !== undefined) {
            hits++
            found.set(t, hit)
          } else {
            misses++
            missing.push(t)
          }
        }
        const fetched = missing.length === 0 ? Effect.succeed([]) : fetch(missing)
        return Effect.map(fetched, (vectors) => {
          if (cache.size + vectors.length > CACHE_LIMIT) cache.clear()
          vectors.forEach((v, i) => {
            cache.set(missing[i]!, v)
            found.set(missing[i]!, v)
          })
          // callers get copies: a vector written through must not change the cache
          return texts.map((t) => found.get(t)!.slice())
        })
      })

    return {
      space,
      embed,
      // stateless: vectors do not depend on the corpus, so fitting only warms the cache (spec embedding §3.1)
      fit: (corpus: ReadonlyArray<string>) =>
        Effect.as(embed(corpus, []), (texts: ReadonlyArray<string>) => embed([], texts)),
      stats: () => ({ hits, misses, requests, entries: cache.size })
    }
  })

/** The provider as the `Embedder` port, over Node's undici HTTP client. */
export const layer = (config: EmbeddingConfig): Layer.Layer<Embedder> =>
  Layer.effect(
    Embedder,
    Effect.map(make(config), (instance) =>
      Embedder.of({ space: instance.space, embed: instance.embed, fit: instance.fit })
    )
  ).pipe(Layer.provide(NodeHttpClient.layerUndici))
