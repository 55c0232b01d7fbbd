import { Either, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import {
  decodeConfig,
  DEFAULT_CONFIG,
  DEFAULT_EXTENDED,
  DEFAULT_LLM,
  EXTENDED_ENABLED_ENV
} from "../../../src/domain/config/MemoryConfig.js"

const decode = (json: unknown, env: Record<string, string> = {}) => decodeConfig(json, env)
const ext = (extended: unknown, env: Record<string, string> = {}, rest: Record<string, unknown> = {}) =>
  Either.getOrThrow(decode({ ...rest, memory: { extended } }, env)).extended
const error = (json: unknown, env: Record<string, string> = {}) => {
  const r = decode(json, env)
  return Either.isLeft(r) ? r.left.message : "(accepted)"
}
const fix = "; fix it in the config file"

describe("memory.extended config (spec extended §19)", () => {
  it("defaults: off, and every key at the spec's value", () => {
    expect(DEFAULT_CONFIG.extended).toBe(DEFAULT_EXTENDED)
    expect(DEFAULT_EXTENDED).toStrictEqual({
      enabled: false,
      maxSizeMb: 100,
      semanticSearchTopK: 10,
      semanticSearchOverfetch: 4,
      semanticSearchMinScore: 0.55,
      semanticSearchRerank: true,
      atomMaxChars: 300,
      memoryBudgetChars: 2000,
      decayHalfLifeDays: 30,
      quarantineTtlDays: 7,
      evictionPolicy: "retention_decay",
      predictiveIntents: 3,
      autoExtractPerTurn: true,
      inferUserState: true,
      userStateTurnInterval: 5,
      userStateMaxPending: 20,
      userStatePendingMaxAgeDays: 14,
      associationsEnabled: true,
      associationSemanticTopK: 3,
      semanticDedupThreshold: 0.92,
      consolidateSimilarityThreshold: 0.9,
      proactiveReturnAfterBreak: true,
      styleMirroringEnabled: true,
      anaphoraResolutionEnabled: true,
      followUpAnticipationEnabled: true,
      followUpSuggestionsEnabled: true,
      followUpSuggestionMinConfidence: 0.6,
      proactiveNudgesEnabled: false,
      nudgeMaxPerDay: 1,
      nudgeCooldownHours: 24,
      nudgeStaleGoalDays: 7,
      nudgeOpenQuestionMinAgeHours: 24,
      llm: undefined,
      embedding: undefined
    })
    expect(Either.getOrThrow(decode({})).extended).toStrictEqual(DEFAULT_EXTENDED)
    expect(ext({})).toStrictEqual(DEFAULT_EXTENDED)
    expect(ext(null)).toStrictEqual(DEFAULT_EXTENDED)
  })

  it("reads every key", () => {
    const c = ext({
      enabled: true,
      max_size_mb: 5,
      semantic_search_top_k: 6,
      semantic_search_overfetch: 2,
      semantic_search_min_score: 0.4,
      semantic_search_rerank: false,
      atom_max_chars: 500,
      memory_budget_chars: 4000,
      decay_half_life_days: 10,
      quarantine_ttl_days: 30,
      eviction_policy: "retention_decay",
      predictive_intents: 1,
      auto_extract_per_turn: false,
      infer_user_state: false,
      user_state_turn_interval: 3,
      user_state_max_pending: 8,
      user_state_pending_max_age_days: 2,
      associations_enabled: false,
      association_semantic_top_k: 5,
      semantic_dedup_threshold: 0.95,
      consolidate_similarity_threshold: 0.8,
      proactive_return_after_break: false,
      style_mirroring_enabled: false,
      anaphora_resolution_enabled: false,
      follow_up_anticipation_enabled: false,
      follow_up_suggestions_enabled: false,
      follow_up_suggestion_min_confidence: 0.75,
      proactive_nudges_enabled: true,
      nudge_max_per_day: 2,
      nudge_cooldown_hours: 12,
      nudge_stale_goal_days: 3,
      nudge_open_question_min_age_hours: 6
    })
    expect(c).toStrictEqual({
      enabled: true,
      maxSizeMb: 5,
      semanticSearchTopK: 6,
      semanticSearchOverfetch: 2,
      semanticSearchMinScore: 0.4,
      semanticSearchRerank: false,
      atomMaxChars: 500,
      memoryBudgetChars: 4000,
      decayHalfLifeDays: 10,
      quarantineTtlDays: 30,
      evictionPolicy: "retention_decay",
      predictiveIntents: 1,
      autoExtractPerTurn: false,
      inferUserState: false,
      userStateTurnInterval: 3,
      userStateMaxPending: 8,
      userStatePendingMaxAgeDays: 2,
      associationsEnabled: false,
      associationSemanticTopK: 5,
      semanticDedupThreshold: 0.95,
      consolidateSimilarityThreshold: 0.8,
      proactiveReturnAfterBreak: false,
      styleMirroringEnabled: false,
      anaphoraResolutionEnabled: false,
      followUpAnticipationEnabled: false,
      followUpSuggestionsEnabled: false,
      followUpSuggestionMinConfidence: 0.75,
      proactiveNudgesEnabled: true,
      nudgeMaxPerDay: 2,
      nudgeCooldownHours: 12,
      nudgeStaleGoalDays: 3,
      nudgeOpenQuestionMinAgeHours: 6,
      llm: undefined,
      embedding: undefined
    })
  })

  it("numbers at or below zero take the default, max_size_mb included (the cap cannot be switched off)", () => {
    const keys = {
      max_size_mb: "maxSizeMb",
      semantic_search_top_k: "semanticSearchTopK",
      semantic_search_overfetch: "semanticSearchOverfetch",
      semantic_search_min_score: "semanticSearchMinScore",
      atom_max_chars: "atomMaxChars",
      memory_budget_chars: "memoryBudgetChars",
      decay_half_life_days: "decayHalfLifeDays",
      quarantine_ttl_days: "quarantineTtlDays",
      predictive_intents: "predictiveIntents",
      user_state_turn_interval: "userStateTurnInterval",
      user_state_max_pending: "userStateMaxPending",
      association_semantic_top_k: "associationSemanticTopK",
      consolidate_similarity_threshold: "consolidateSimilarityThreshold",
      nudge_max_per_day: "nudgeMaxPerDay",
      nudge_cooldown_hours: "nudgeCooldownHours",
      nudge_stale_goal_days: "nudgeStaleGoalDays",
      nudge_open_question_min_age_hours: "nudgeOpenQuestionMinAgeHours"
    } as const
    for (const [key, field] of Object.entries(keys))
      for (const v of [0, -1]) expect(ext({ [key]: v })[field], `${key}: ${v}`).toBe(DEFAULT_EXTENDED[field])
  })

  it("an explicit 0 switches off the semantic dedup tier and pending-review expiry; absent is the default", () => {
    expect(ext({ semantic_dedup_threshold: 0 }).semanticDedupThreshold).toBe(0)
    expect(ext({ semantic_dedup_threshold: -0.5 }).semanticDedupThreshold).toBe(0)
    expect(ext({ semantic_dedup_threshold: null }).semanticDedupThreshold).toBe(0.92)
    expect(ext({ user_state_pending_max_age_days: 0 }).userStatePendingMaxAgeDays).toBe(0)
    expect(ext({ user_state_pending_max_age_days: -3 }).userStatePendingMaxAgeDays).toBe(0)
    expect(ext({}).userStatePendingMaxAgeDays).toBe(14)
  })

  it("booleans are honoured either way, false included; null is not set", () => {
    expect(ext({ semantic_search_rerank: false, proactive_nudges_enabled: true })).toMatchObject({
      semanticSearchRerank: false,
      proactiveNudgesEnabled: true
    })
    expect(ext({ semantic_search_rerank: null, enabled: null })).toMatchObject({
      semanticSearchRerank: true,
      enabled: false
    })
  })

  it("follow_up_suggestion_min_confidence only in (0, 1]", () => {
    expect(ext({ follow_up_suggestion_min_confidence: 1 }).followUpSuggestionMinConfidence).toBe(1)
    expect(ext({ follow_up_suggestion_min_confidence: 0.01 }).followUpSuggestionMinConfidence).toBe(0.01)
    for (const v of [0, -0.2, 1.01, 60])
      expect(ext({ follow_up_suggestion_min_confidence: v }).followUpSuggestionMinConfidence).toBe(0.6)
  })

  it("an unknown eviction_policy means retention_decay", () => {
    expect(ext({ eviction_policy: "lru" }).evictionPolicy).toBe("retention_decay")
    expect(ext({ eviction_policy: "" }).evictionPolicy).toBe("retention_decay")
  })

  it("llm: a block of its own, resolved like the top-level one; no endpoint means the main model", () => {
    const own = ext(
      { llm: { base_url: "http://localhost:8080/v1/", model: " small ", api_key_env: "MEM_KEY", timeout_seconds: 0 } },
      { MEM_KEY: " k-1 " }
    ).llm
    expect(own === undefined ? undefined : { ...own, apiKey: Redacted.value(own.apiKey) }).toStrictEqual({
      ...DEFAULT_LLM,
      provider: "openai",
      baseUrl: "http://localhost:8080/v1",
      model: "small",
      apiKeyEnv: "MEM_KEY",
      apiKey: "k-1"
    })
    expect(ext({ llm: {} }).llm).toBeUndefined()
    expect(ext({ llm: { base_url: "$UNSET_URL", model: "m" } }).llm).toBeUndefined()
    expect(ext({ llm: { provider: "none", base_url: "http://x/v1" } }).llm).toMatchObject({ provider: "none" })
    expect(ext({ llm: { provider: "none" } }).llm).toMatchObject({ provider: "none" })
    // the main model is not touched by the atoms' one
    const c = Either.getOrThrow(decode({ memory: { extended: { llm: { base_url: "http://x/v1", model: "m" } } } }))
    expect(c.llm).toStrictEqual(DEFAULT_LLM)
  })

  it("embedding: a block of its own, resolved like memory.embedding; absent means memory's embedder", () => {
    expect(ext({}).embedding).toBeUndefined()
    const e = ext(
      { embedding: { provider: "http", base_url: "${H}/v1", model: "nomic", api_key: "$K" } },
      { H: "http://h:1", K: "key" }
    ).embedding
    expect(e).toMatchObject({ provider: "http", baseUrl: "http://h:1/v1", model: "nomic", timeoutSeconds: 10 })
    expect(e === undefined ? "" : Redacted.value(e.apiKey)).toBe("key")
    expect(ext({ embedding: { provider: "http", base_url: "$NOPE", model: "m" } }).embedding?.provider).toBe("local")
    expect(ext({ embedding: { provider: "rp", model: null } }).embedding?.provider).toBe("rp")
  })

  it(`$${EXTENDED_ENABLED_ENV} overrides enabled either way`, () => {
    expect(EXTENDED_ENABLED_ENV).toBe("TMEM_MEMORY_EXTENDED_ENABLED")
    expect(ext({}, { TMEM_MEMORY_EXTENDED_ENABLED: "true" }).enabled).toBe(true)
    expect(ext({ enabled: true }, { TMEM_MEMORY_EXTENDED_ENABLED: "false" }).enabled).toBe(false)
    expect(ext({ enabled: true }, { TMEM_MEMORY_EXTENDED_ENABLED: "0" }).enabled).toBe(false)
    expect(ext({}, { TMEM_MEMORY_EXTENDED_ENABLED: " TRUE " }).enabled).toBe(true)
    expect(ext({ enabled: true }, { TMEM_MEMORY_EXTENDED_ENABLED: "" }).enabled).toBe(true)
    expect(Either.getOrThrow(decode({}, { TMEM_MEMORY_EXTENDED_ENABLED: "1" })).extended.enabled).toBe(true)
    // odek's variable is not ours
    expect(ext({}, { ODEK_MEMORY_EXTENDED_ENABLED: "true" }).enabled).toBe(false)
    expect(error({}, { TMEM_MEMORY_EXTENDED_ENABLED: "yes" })).toBe(
      'config: $TMEM_MEMORY_EXTENDED_ENABLED must be true or false (got "yes"); fix the environment variable'
    )
  })

  it("each unusable setting is one line naming the key", () => {
    const m = (extended: unknown) => error({ memory: { extended } })
    expect(m({ max_size_mb: 2.5 })).toBe(`config: memory.extended.max_size_mb must be a whole number${fix}`)
    expect(m({ atom_max_chars: "300" })).toMatch(
      /^config: memory\.extended\.atom_max_chars Expected number, actual "300"/
    )
    expect(m({ enabled: "yes" })).toMatch(/^config: memory\.extended\.enabled Expected boolean, actual "yes"/)
    expect(m({ semantic_dedup_threshold: "0.9" })).toMatch(/^config: memory\.extended\.semantic_dedup_threshold /)
    expect(m({ eviction_policy: 1 })).toMatch(/^config: memory\.extended\.eviction_policy Expected string/)
    expect(m({ max_size: 5 })).toBe(`config: memory.extended.max_size is not a known key${fix}`)
    expect(m(3)).toBe(`config: memory.extended must be a JSON object${fix}`)
    expect(m({ llm: "x" })).toBe(`config: memory.extended.llm must be a JSON object${fix}`)
    expect(m({ embedding: [] })).toBe(`config: memory.extended.embedding must be a JSON object${fix}`)
    expect(m({ llm: { thinking: "low" } })).toBe(`config: memory.extended.llm.thinking is not a known key${fix}`)
    expect(m({ embedding: { foo: 1 } })).toBe(`config: memory.extended.embedding.foo is not a known key${fix}`)
    expect(m({ llm: { api_key: "sk-1" } })).toBe(
      "config: memory.extended.llm.api_key is not supported: put the key in an environment variable and name it in " +
        `memory.extended.llm.api_key_env${fix}`
    )
    expect(m({ llm: { base_url: "http://localhost:11434/v1" } })).toBe(
      "config: memory.extended.llm.model is required when memory.extended.llm.base_url is set " +
        `(e.g. "llama3.1" for Ollama)${fix}`
    )
    expect(m({ llm: { base_url: "ftp://x/v1", model: "m" } })).toBe(
      `config: memory.extended.llm.base_url must start with http:// or https:// (got ftp:)${fix}`
    )
    expect(m({ llm: { provider: "openai", model: "m" } })).toBe(
      `config: memory.extended.llm.base_url is required for provider "openai" (e.g. http://localhost:11434/v1)${fix}`
    )
    for (const bad of [{ max_size_mb: "x" }, { nope: 1 }, { llm: { base_url: "http://x" } }])
      expect(m(bad)).not.toMatch(/\n/)
  })

  it("the top-level llm keeps its own messages", () => {
    expect(error({ llm: { base_url: "http://localhost:11434/v1" } })).toBe(
      `config: llm.model is required when llm.base_url is set (e.g. "llama3.1" for Ollama)${fix}`
    )
  })

  it("a __proto__ key is a key like any other, refused as unknown", () => {
    expect(error(JSON.parse('{"memory":{"extended":{"__proto__":{"enabled":true}}}}'))).toBe(
      `config: memory.extended.__proto__ is not a known key${fix}`
    )
  })
})
