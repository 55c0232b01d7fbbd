import { HttpClient } from "@effect/platform"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Layer } from "effect"
import type { GuardConfig } from "../../domain/config/MemoryConfig.js"
import { type GuardSource, type GuardVerdict, guardLabel } from "../../domain/scan/guardVerdict.js"
import { Guard, GuardUnavailable } from "../../ports/Guard.js"
import { type Answer, describeCause, type PostFailure, postJson } from "../http/transport.js"

/** A verdict is a few dozen bytes; anything this large is not one, and reading stops there. */
export const MAX_VERDICT_BYTES = 16 * 1024

/** The path appended to `guard.base_url` (docs/GUARD.md). */
export const SCAN_PATH = "/scan"

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

const EXPECTED = 'expected {"injected": boolean, "score": number from 0 to 1, "label": string}'

/**
 * The sidecar's answer, read strictly (docs/GUARD.md): a verdict, or what is wrong with the body. Only a body with
 * `injected: false` and a valid score is clean; keys the protocol does not name are ignored.
 */
export const parseVerdictBody = (json: unknown): GuardVerdict | string => {
  if (!isObject(json)) return `a body that is not a JSON object; ${EXPECTED}`
  const { injected, score, label } = json
  if (typeof injected !== "boolean") return `no boolean "injected"; ${EXPECTED}`
  if (typeof score !== "number" || !(score >= 0 && score <= 1)) return `no "score" from 0 to 1; ${EXPECTED}`
  if (label !== undefined && typeof label !== "string") return `a "label" that is not a string; ${EXPECTED}`
  return injected ? { verdict: "injected", label: guardLabel(label ?? ""), score } : { verdict: "clean", score }
}

const seconds = (s: number) => `${Number(s.toFixed(3))} s`

/**
 * The prompt-injection sidecar over HTTP: one POST per text, no retries (a write is waiting), bounded in time and
 * size.
 */
export const make = (config: GuardConfig): Effect.Effect<Guard["Type"], never, HttpClient.HttpClient> =>
  Effect.map(HttpClient.HttpClient, (client) => {
    const post = postJson(client)
    const endpoint = `${config.baseUrl.replace(/\/+$/, "")}${SCAN_PATH}`
    const unavailable = (reason: string) => new GuardUnavailable({ reason })

    const fromFailure = (f: PostFailure): GuardUnavailable => {
      switch (f._tag) {
        case "ConnectFailed":
          return unavailable(
            `cannot reach ${endpoint}: ${f.detail}; check guard.base_url and that the sidecar is running`
          )
        case "TimedOut":
          return unavailable(
            `no answer from ${endpoint} within ${seconds(config.timeoutSeconds)}; ` +
              "raise guard.timeout_seconds or check the sidecar"
          )
        case "BodyFailed":
          return unavailable(`the answer from ${endpoint} broke off: ${f.detail}`)
        case "TooLarge":
          return unavailable(`the answer from ${endpoint} exceeds ${f.limit} bytes, which no verdict does`)
        case "InvalidUrl":
          return unavailable(`${endpoint} is not a usable URL (${f.detail}); fix guard.base_url`)
      }
    }

    // The body is never quoted: it comes from another process and the message may reach the agent.
    const fromAnswer = (a: Answer): Effect.Effect<GuardVerdict, GuardUnavailable> => {
      if (a.status < 200 || a.status > 299)
        return Effect.fail(unavailable(`${endpoint} answered ${a.status}; check the sidecar's log`))
      if (!a.json.ok) return Effect.fail(unavailable(`${endpoint} answered ${a.status} with a body that is not JSON`))
      const verdict = parseVerdictBody(a.json.value)
      return typeof verdict === "string"
        ? Effect.fail(unavailable(`${endpoint} answered with ${verdict}`))
        : Effect.succeed(verdict)
    }

    const check = (text: string, source: GuardSource): Effect.Effect<GuardVerdict, GuardUnavailable> =>
      post({
        url: endpoint,
        apiKey: config.apiKey,
        body: { text, scope: "memory", source },
        timeoutMs: config.timeoutSeconds * 1000,
        maxBytes: MAX_VERDICT_BYTES,
        maxRetries: 0
      }).pipe(
        Effect.mapError(fromFailure),
        Effect.flatMap(fromAnswer),
        // a bug in the HTTP stack must reach the write as a failure the fallback policy decides on, not a crash
        Effect.catchAllDefect((defect) =>
          Effect.fail(unavailable(`request to ${endpoint} failed unexpectedly: ${describeCause(defect)}`))
        )
      )

    return Guard.of({ info: { provider: "http", endpoint, active: true }, check })
  })

/** The sidecar as the `Guard` port, over Node's undici HTTP client. */
export const layer = (config: GuardConfig): Layer.Layer<Guard> =>
  Layer.effect(Guard, make(config)).pipe(Layer.provide(NodeHttpClient.layerUndici))
