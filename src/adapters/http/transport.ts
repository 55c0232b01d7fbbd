import { HttpClient, type HttpClientError, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Clock, Data, Duration, Effect, Random, Redacted, Stream } from "effect"

/** One JSON POST and the policies around it. */
export interface JsonPost {
  readonly url: string
  readonly body: unknown
  /** Sent as `Authorization: Bearer <apiKey>` when non-empty. */
  readonly apiKey: Redacted.Redacted<string>
  /** Per attempt, from sending the request to the last body byte. */
  readonly timeoutMs: number
  /** The body is read as a stream and abandoned as soon as it passes this many bytes. */
  readonly maxBytes: number
  /** Further attempts after a 429, a 5xx, a connection error or a broken body; 0 = a single attempt. */
  readonly maxRetries: number
  /** First back-off step; later steps double. */
  readonly backoffBaseMs?: number
  /** Upper bound on any wait, whether a server's `Retry-After` or our own back-off. */
  readonly maxRetryAfterMs?: number
}

export const DEFAULT_BACKOFF_BASE_MS = 500
export const DEFAULT_MAX_RETRY_AFTER_MS = 30_000

/** The body parsed as JSON, or why it is not JSON. */
export type JsonBody = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string }

/** A response read in full, whatever its status: the adapter decides what a status means. */
export interface Answer {
  readonly status: number
  readonly raw: string
  readonly json: JsonBody
  /** Attempts made, this one included. */
  readonly attempts: number
}

/** The server could not be reached, or dropped the connection before answering. */
export class ConnectFailed extends Data.TaggedError("ConnectFailed")<{
  readonly detail: string
  readonly attempts: number
}> {}
/** No complete answer within the per-attempt time. Never retried: a slow model stays slow. */
export class TimedOut extends Data.TaggedError("TimedOut")<{ readonly attempts: number }> {}
/** The status line arrived but the body broke off (truncated, connection reset). */
export class BodyFailed extends Data.TaggedError("BodyFailed")<{
  readonly status: number
  readonly detail: string
  readonly attempts: number
}> {}
/** The body passed the byte bound; reading stopped there. */
export class TooLarge extends Data.TaggedError("TooLarge")<{
  readonly status: number
  readonly limit: number
  readonly attempts: number
}> {}
/** The endpoint is not a usable URL. */
export class InvalidUrl extends Data.TaggedError("InvalidUrl")<{ readonly detail: string }> {}

export type PostFailure = ConnectFailed | TimedOut | BodyFailed | TooLarge | InvalidUrl

/** Statuses worth asking again: the server is busy or broken, not refusing the request. */
export const isRetryableStatus = (status: number) => status === 429 || status >= 500

const errorCodes: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by the server",
  UND_ERR_SOCKET: "the server closed the connection",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EPIPE: "the server closed the connection",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  UND_ERR_CLOSED: "the connection was closed",
  ERR_TLS_CERT_ALTNAME_INVALID: "TLS certificate does not match the host",
  DEPTH_ZERO_SELF_SIGNED_CERT: "self-signed TLS certificate",
  SELF_SIGNED_CERT_IN_CHAIN: "self-signed TLS certificate in the chain",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "TLS certificate cannot be verified",
  CERT_HAS_EXPIRED: "TLS certificate has expired"
}

/** The most specific readable reason in an undici/Node error chain, on one line. */
export const describeCause = (cause: unknown, depth = 0): string => {
  if (depth > 5 || cause === null || cause === undefined) return "unknown error"
  if (typeof cause !== "object") return oneLine(String(cause))
  const e = cause as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown }
  if (typeof e.code === "string" && errorCodes[e.code] !== undefined) return errorCodes[e.code]!
  // Node's happy-eyeballs connect wraps one error per address; they usually agree
  if (Array.isArray(e.errors) && e.errors.length > 0) return describeCause(e.errors[0], depth + 1)
  if (e.cause !== undefined && e.cause !== null) {
    const inner = describeCause(e.cause, depth + 1)
    if (inner !== "unknown error") return inner
  }
  if (typeof e.message === "string" && e.message !== "") return oneLine(e.message)
  return typeof e.code === "string" ? e.code : "unknown error"
}

/** Whitespace runs (newlines included) become one space and long text is cut, so messages stay on one line. */
export const oneLine = (text: string, max = 200): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

const parseJson = (raw: string): JsonBody => {
  try {
    return { ok: true, value: JSON.parse(raw) as unknown }
  } catch (e) {
    return { ok: false, error: raw === "" ? "empty body" : oneLine(e instanceof Error ? e.message : String(e)) }
  }
}

/** `Retry-After` as milliseconds from now: delta-seconds or an HTTP date. */
const retryAfterMs = (value: string | undefined): Effect.Effect<number | undefined> =>
  Effect.gen(function* () {
    if (value === undefined) return undefined
    const v = value.trim()
    if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000
    const at = Date.parse(v)
    if (Number.isNaN(at)) return undefined
    return Math.max(0, at - (yield* Clock.currentTimeMillis))
  })

interface Read {
  readonly status: number
  readonly raw: string
  readonly retryAfterMs: number | undefined
}

const readBounded = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number,
  attempts: number
): Effect.Effect<string, BodyFailed | TooLarge> => {
  const tooLarge = new TooLarge({ status: response.status, limit: maxBytes, attempts })
  const broken = (e: HttpClientError.ResponseError) =>
    new BodyFailed({ status: response.status, detail: describeCause(e.cause), attempts })
  const declared = Number(response.headers["content-length"] ?? Number.NaN)
  // undici enforces a declared length (a longer body is an error), so the bound can be checked before reading
  if (Number.isSafeInteger(declared) && declared >= 0) {
    // failing inside the stream (at its first chunk) is what aborts the request and frees the connection
    if (declared > maxBytes)
      return Stream.runForEach(Stream.mapError(response.stream, broken), () => Effect.fail(tooLarge)).pipe(
        Effect.zipRight(Effect.fail(tooLarge))
      )
    return Effect.mapError(response.text, broken)
  }
  return Effect.suspend(() => {
    const chunks: Array<Uint8Array> = []
    let total = 0
    return response.stream.pipe(
      Stream.mapError(broken),
      Stream.runForEach((chunk) => {
        total += chunk.byteLength
        // failing the stream aborts the request, so the rest is never downloaded
        if (total > maxBytes) return Effect.fail(tooLarge)
        chunks.push(chunk)
        return Effect.void
      }),
      Effect.map(() => Buffer.concat(chunks, total).toString("utf8"))
    )
  })
}

const attemptOnce = (
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  post: JsonPost,
  attempts: number
) =>
  Effect.gen(function* () {
    const response = yield* client
      .execute(request)
      .pipe(
        Effect.mapError((e) =>
          e._tag === "RequestError" && e.reason === "InvalidUrl"
            ? new InvalidUrl({ detail: describeCause(e.cause) })
            : new ConnectFailed({ detail: describeCause(e.cause), attempts })
        )
      )
    const raw = yield* readBounded(response, post.maxBytes, attempts)
    const wait = yield* retryAfterMs(response.headers["retry-after"])
    return { status: response.status, raw, retryAfterMs: wait } satisfies Read
  }).pipe(
    Effect.timeoutFail({ duration: Duration.millis(post.timeoutMs), onTimeout: () => new TimedOut({ attempts }) })
  )

const backoff = (post: JsonPost, retry: number, serverWaitMs: number | undefined) =>
  Effect.gen(function* () {
    const cap = post.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS
    if (serverWaitMs !== undefined) return Math.min(serverWaitMs, cap)
    const step = (post.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS) * 2 ** (retry - 1)
    // jitter keeps clients that failed together from retrying together
    return Math.min(cap, step * (0.5 + (yield* Random.next) / 2))
  })

/**
 * A poster over `client`: POSTs `post.body` as JSON and reads the whole answer within the byte bound, retrying busy
 * or broken servers with jittered exponential back-off. A 429/5xx that outlasts the retries is returned as an
 * `Answer` (its body usually says why); transport problems fail with a `PostFailure`. Both carry the attempt count.
 */
export const postJson = (client: HttpClient.HttpClient): ((post: JsonPost) => Effect.Effect<Answer, PostFailure>) => {
  // trace headers are for our own services, not for a third-party model server
  const plain = HttpClient.withTracerPropagation(client, false)
  return (post) =>
    Effect.gen(function* () {
      const request = HttpClientRequest.post(post.url).pipe(
        HttpClientRequest.setHeaders(
          Redacted.value(post.apiKey) === "" ? {} : { authorization: `Bearer ${Redacted.value(post.apiKey)}` }
        ),
        HttpClientRequest.bodyText(JSON.stringify(post.body), "application/json")
      )
      for (let attempts = 1; ; attempts++) {
        const last = attempts > post.maxRetries
        const outcome = yield* Effect.either(attemptOnce(plain, request, post, attempts))
        if (outcome._tag === "Right") {
          const read = outcome.right
          if (last || !isRetryableStatus(read.status))
            return { status: read.status, raw: read.raw, json: parseJson(read.raw), attempts }
          yield* Effect.sleep(Duration.millis(yield* backoff(post, attempts, read.retryAfterMs)))
          continue
        }
        const failure = outcome.left
        const retryable = failure._tag === "ConnectFailed" || failure._tag === "BodyFailed"
        if (last || !retryable) return yield* Effect.fail(failure)
        yield* Effect.sleep(Duration.millis(yield* backoff(post, attempts, undefined)))
      }
    })
}
