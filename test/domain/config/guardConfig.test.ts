import { Either, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { decodeConfig, DEFAULT_CONFIG, DEFAULT_GUARD } from "../../../src/domain/config/MemoryConfig.js"

const decode = (json: unknown, env: Record<string, string> = {}) => decodeConfig(json, env)
const guardOf = (json: unknown, env: Record<string, string> = {}) => Either.getOrThrow(decode(json, env)).guard
const error = (json: unknown, env: Record<string, string> = {}) => {
  const r = decode(json, env)
  return Either.isLeft(r) ? r.left.message : "(accepted)"
}
const llm = { base_url: "http://localhost:11434/v1", model: "llama3.1" }

describe("guard config", () => {
  it("defaults: no guard, fallback to the local scan, memory in scope", () => {
    expect(DEFAULT_CONFIG.guard).toBe(DEFAULT_GUARD)
    expect(guardOf({})).toStrictEqual({
      provider: "none",
      baseUrl: "",
      apiKeyEnv: "",
      apiKey: Redacted.make(""),
      timeoutSeconds: 5,
      fallbackToLocal: true,
      scan: { memory: true }
    })
    expect(guardOf({ guard: {} })).toStrictEqual(DEFAULT_GUARD)
    expect(guardOf({ guard: null })).toStrictEqual(DEFAULT_GUARD)
  })

  it("reads every key; a base_url selects the sidecar, `local` is odek's name for none", () => {
    const g = guardOf(
      {
        guard: {
          base_url: "${GUARD_HOST}/v1/",
          api_key_env: "GUARD_KEY",
          timeout_seconds: 2.5,
          fallback_to_local: false,
          scan: { memory: false }
        }
      },
      { GUARD_HOST: "http://127.0.0.1:8765", GUARD_KEY: " k-123 " }
    )
    expect(g).toMatchObject({
      provider: "http",
      baseUrl: "http://127.0.0.1:8765/v1",
      apiKeyEnv: "GUARD_KEY",
      timeoutSeconds: 2.5,
      fallbackToLocal: false,
      scan: { memory: false }
    })
    expect(Redacted.value(g.apiKey)).toBe("k-123")
    expect(guardOf({ guard: { provider: "local", base_url: "http://x/v1" } }).provider).toBe("none")
    expect(guardOf({ guard: { provider: "none", base_url: "http://x/v1" } }).provider).toBe("none")
    expect(guardOf({ guard: { provider: "llm" }, llm }).provider).toBe("llm")
  })

  it("non-positive timeouts and nulls mean the default", () => {
    expect(guardOf({ guard: { timeout_seconds: 0 } }).timeoutSeconds).toBe(5)
    expect(guardOf({ guard: { timeout_seconds: -1 } }).timeoutSeconds).toBe(5)
    expect(guardOf({ guard: { fallback_to_local: null, scan: { memory: null } } })).toStrictEqual(DEFAULT_GUARD)
  })

  it("$TMEM_GUARD_SCAN_MEMORY overrides guard.scan.memory either way", () => {
    expect(guardOf({ guard: { scan: { memory: true } } }, { TMEM_GUARD_SCAN_MEMORY: "false" }).scan.memory).toBe(false)
    expect(guardOf({ guard: { scan: { memory: false } } }, { TMEM_GUARD_SCAN_MEMORY: "1" }).scan.memory).toBe(true)
    expect(guardOf({}, { TMEM_GUARD_SCAN_MEMORY: "FALSE" }).scan.memory).toBe(false)
    expect(guardOf({ guard: { scan: { memory: false } } }, { TMEM_GUARD_SCAN_MEMORY: "" }).scan.memory).toBe(false)
    // odek's variable is not ours: the project reads no ODEK_* names
    expect(guardOf({}, { ODEK_GUARD_SCAN_MEMORY: "false" }).scan.memory).toBe(true)
    expect(error({}, { TMEM_GUARD_SCAN_MEMORY: "maybe" })).toBe(
      'config: $TMEM_GUARD_SCAN_MEMORY must be true or false (got "maybe"); fix the environment variable'
    )
  })

  it("each unusable setting is one line saying what to fix", () => {
    const fix = "; fix it in the config file"
    expect(error({ guard: { provider: "http" } })).toBe(
      `config: guard.base_url is required for provider "http" (e.g. http://127.0.0.1:8765/v1)${fix}`
    )
    expect(error({ guard: { base_url: "not a url" } })).toBe(
      `config: guard.base_url "not a url" is not a URL (e.g. http://127.0.0.1:8765/v1)${fix}`
    )
    expect(error({ guard: { base_url: "ftp://x/v1" } })).toBe(
      `config: guard.base_url must start with http:// or https:// (got ftp:)${fix}`
    )
    expect(error({ guard: { provider: "llm" } })).toBe(
      'config: guard.provider "llm" needs a model: set llm.base_url and llm.model ' +
        `(or use guard.provider "http" or "none")${fix}`
    )
    expect(error({ guard: { provider: "llm" }, llm: { ...llm, provider: "none" } })).toMatch(
      /^config: guard.provider "llm" needs a model/
    )
    expect(error({ guard: { provider: "sidecar" } })).toMatch(/^config: guard\.provider .*; fix it in the config file$/)
    expect(error({ guard: { url: "http://x" } })).toBe(`config: guard.url is not a known key${fix}`)
    expect(error({ guard: { scan: { episodes: true } } })).toBe(`config: guard.scan.episodes is not a known key${fix}`)
    expect(error({ guard: { scan: true } })).toBe("config: guard.scan must be a JSON object; fix it in the config file")
    expect(error({ guard: "on" })).toBe("config: guard must be a JSON object; fix it in the config file")
    expect(error({ guard: { fallback_to_local: "yes" } })).toMatch(/^config: guard\.fallback_to_local Expected boolean/)
    expect(error({ guard: { api_key: "secret" } })).toBe(
      "config: guard.api_key is not supported: put the key in an environment variable and name it in " +
        `guard.api_key_env${fix}`
    )
    for (const json of [{ guard: { provider: "http" } }, { guard: { scan: { x: 1 } } }])
      expect(error(json)).not.toMatch(/[\r\n]/)
  })

  it("llm.api_key keeps its message", () => {
    expect(error({ llm: { api_key: "sk-123" } })).toBe(
      "config: llm.api_key is not supported: put the key in an environment variable and name it in " +
        "llm.api_key_env; fix it in the config file"
    )
  })
})
