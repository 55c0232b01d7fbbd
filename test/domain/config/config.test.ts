import { Either, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { decodeConfig, DEFAULT_CONFIG } from "../../../src/domain/config/MemoryConfig.js"

const decode = (json: unknown, env: Record<string, string> = {}) => decodeConfig(json, env)
const error = (json: unknown) => {
  const r = decode(json)
  return Either.isLeft(r) ? r.left.message : "(accepted)"
}

describe("config", () => {
  it("defaults when there is no memory section; other sections are left alone", () => {
    expect(decode({})).toStrictEqual(Either.right(DEFAULT_CONFIG))
    expect(decode({ tools: { disabled: ["x"] }, guard: {} })).toStrictEqual(Either.right(DEFAULT_CONFIG))
  })

  it("overlays set keys; non-positive numbers mean the default", () => {
    const c = Either.getOrThrow(
      decode({ memory: { facts_limit_user: 0, facts_limit_env: 9000, max_episodes: -3, merge_on_write: false } })
    )
    expect(c.factsLimitUser).toBe(4000)
    expect(c.factsLimitEnv).toBe(9000)
    expect(c.maxEpisodes).toBe(500)
    expect(c.mergeOnWrite).toBe(false)
  })

  it("null means not set, as in odek's loader", () => {
    const c = Either.getOrThrow(
      decode({ memory: { facts_limit_user: null, merge_on_write: null, embedding: { model: null } }, embedding: null })
    )
    expect(c.factsLimitUser).toBe(4000)
    expect(c.mergeOnWrite).toBe(true)
  })

  it("consolidate_at_cap_pct: explicit 0 disables, negative disables, above 99 is 99", () => {
    expect(Either.getOrThrow(decode({ memory: { consolidate_at_cap_pct: 0 } })).consolidateAtCapPct).toBe(0)
    expect(Either.getOrThrow(decode({ memory: { consolidate_at_cap_pct: -5 } })).consolidateAtCapPct).toBe(0)
    expect(Either.getOrThrow(decode({ memory: { consolidate_at_cap_pct: 150 } })).consolidateAtCapPct).toBe(99)
    expect(Either.getOrThrow(decode({ memory: {} })).consolidateAtCapPct).toBe(80)
  })

  it("add_threshold at or above merge_threshold falls back to 0.3", () => {
    expect(Either.getOrThrow(decode({ memory: { merge_threshold: 0.6, add_threshold: 0.6 } })).addThreshold).toBe(0.3)
    expect(Either.getOrThrow(decode({ memory: { merge_threshold: 0.8, add_threshold: 0.4 } })).addThreshold).toBe(0.4)
  })

  it("names the offending key on one line", () => {
    expect(error({ memory: { facts_limit_user: "4000" } })).toMatch(
      /^config: memory\.facts_limit_user .*"4000".*; fix it in the config file$/
    )
    expect(error({ memory: { facts_limt_user: 10 } })).toBe(
      "config: memory.facts_limt_user is not a known key; fix it in the config file"
    )
    expect(error({ memory: { facts_limit_env: 2.5 } })).toBe(
      "config: memory.facts_limit_env must be a whole number; fix it in the config file"
    )
    expect(error({ memory: { embedding: { dims: "x" } } })).toMatch(/^config: memory\.embedding\.dims /)
    expect(error({ memory: 3 })).toBe("config: memory must be a JSON object; fix it in the config file")
    expect(error([1])).toBe("config: the file must be a JSON object; fix it in the config file")
    expect(error({ memory: { embedding: "x" } })).toBe(
      "config: memory.embedding must be a JSON object; fix it in the config file"
    )
    for (const m of [error({ memory: { enabled: "yes" } }), error({ memory: { facts_limt_user: 1 } })])
      expect(m).not.toContain("\n")
  })

  it(
    "embedding: http needs a base_url and a model after $VAR expansion, else falls back to the local default; " +
      "rp by name",
    () => {
      const http = Either.getOrThrow(
        decode(
          { memory: { embedding: { provider: "http", base_url: "${HOST}/v1", model: " nomic ", api_key: "$KEY" } } },
          { HOST: "http://h:1", KEY: "k" }
        )
      )
      // the key is Redacted: compared by its value, and never shown
      expect({ ...http.embedding, apiKey: Redacted.value(http.embedding.apiKey) }).toStrictEqual({
        provider: "http",
        baseUrl: "http://h:1/v1",
        model: "nomic",
        apiKey: "k",
        dims: 0,
        timeoutSeconds: 10
      })
      expect(JSON.stringify(http.embedding)).not.toContain('"k"')
      expect(String(http.embedding.apiKey)).not.toContain("k")
      expect(
        Either.getOrThrow(decode({ memory: { embedding: { provider: "http", base_url: "$UNSET", model: "m" } } }))
          .embedding.provider
      ).toBe("local")
      expect(
        Either.getOrThrow(decode({ embedding: { provider: "http", base_url: "http://x", model: "m" } })).embedding
          .provider
      ).toBe("http")
      expect(Either.getOrThrow(decode({ memory: { embedding: { provider: "weird" } } })).embedding.provider).toBe(
        "local"
      )
      expect(Either.getOrThrow(decode({ memory: { embedding: { provider: "rp" } } })).embedding.provider).toBe("rp")
      expect(Either.getOrThrow(decode({})).embedding.provider).toBe("local")
    }
  )
})

describe("llm config", () => {
  it("no llm block: no model", () => {
    expect(Either.getOrThrow(decode({})).llm).toMatchObject({ provider: "none", baseUrl: "", model: "" })
  })

  it("a base_url selects the OpenAI-compatible adapter; the key comes from the named variable only", () => {
    const c = Either.getOrThrow(
      decode(
        {
          llm: {
            base_url: "http://localhost:11434/v1/",
            model: " llama3.1 ",
            api_key_env: "MY_KEY",
            timeout_seconds: 0,
            max_retries: -1
          }
        },
        { MY_KEY: " sk-x " }
      )
    ).llm
    expect(JSON.stringify(c)).not.toContain("sk-x")
    expect({ ...c, apiKey: Redacted.value(c.apiKey) }).toEqual({
      provider: "openai",
      baseUrl: "http://localhost:11434/v1",
      model: "llama3.1",
      apiKeyEnv: "MY_KEY",
      apiKey: "sk-x",
      timeoutSeconds: 60,
      maxRetries: 0,
      maxResponseBytes: 1048576,
      jsonMode: false,
      temperature: 0
    })
  })

  it("provider none wins over a base_url", () => {
    expect(Either.getOrThrow(decode({ llm: { provider: "none", base_url: "http://x/v1" } })).llm.provider).toBe("none")
  })

  it("an unusable endpoint is named on one line", () => {
    expect(error({ llm: { base_url: "http://localhost:11434/v1" } })).toBe(
      'config: llm.model is required when llm.base_url is set (e.g. "llama3.1" for Ollama); fix it in the config file'
    )
    expect(error({ llm: { base_url: "localhost:11434", model: "m" } })).toBe(
      "config: llm.base_url must start with http:// or https:// (got localhost:); fix it in the config file"
    )
    expect(error({ llm: { base_url: "not a url", model: "m" } })).toMatch(
      /^config: llm.base_url "not a url" is not a URL/
    )
    expect(error({ llm: { provider: "openai", model: "m" } })).toMatch(
      /^config: llm.base_url is required for provider "openai"/
    )
    expect(error({ llm: { provider: "gpt" } })).toMatch(/^config: llm.provider /)
    expect(error({ llm: { api_key: "sk-123" } })).toBe(
      "config: llm.api_key is not supported: put the key in an environment variable and name it in " +
        "llm.api_key_env; fix it in the config file"
    )
  })
})
