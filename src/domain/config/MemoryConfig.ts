import { Either, ParseResult, Redacted, Schema } from "effect"
import type { FactPolicy } from "../facts/decider.js"
import { printable } from "../text/printable.js"

const Whole = Schema.Number.pipe(Schema.int({ message: () => "must be a whole number" }))
const Finite = Schema.Number.pipe(Schema.finite({ message: () => "must be a finite number" }))
const opt = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })

/** `embedding` block (spec embedding §2.1), in `memory.embedding` or at the top level. */
export const EmbeddingSection = Schema.Struct({
  provider: opt(Schema.String),
  base_url: opt(Schema.String),
  model: opt(Schema.String),
  api_key: opt(Schema.String),
  dims: opt(Whole),
  timeout_seconds: opt(Finite)
})

/** `llm` block: an OpenAI-compatible chat endpoint (Ollama, llama.cpp server, vLLM, LM Studio, OpenAI). */
export const LlmSection = Schema.Struct({
  provider: opt(Schema.Literal("openai", "none")),
  base_url: opt(Schema.String),
  model: opt(Schema.String),
  api_key_env: opt(Schema.String),
  timeout_seconds: opt(Finite),
  max_retries: opt(Whole),
  max_response_bytes: opt(Whole),
  json_mode: opt(Schema.Boolean),
  temperature: opt(Finite)
})

/** `guard` block: an optional second opinion after the local scanner (spec facts §7.1 step 5, docs/GUARD.md). */
export const GuardSection = Schema.Struct({
  // odek calls "only the local scan" `local`
  provider: opt(Schema.Literal("none", "local", "http", "llm")),
  base_url: opt(Schema.String),
  api_key_env: opt(Schema.String),
  timeout_seconds: opt(Finite),
  fallback_to_local: opt(Schema.Boolean),
  scan: opt(Schema.Struct({ memory: opt(Schema.Boolean) }))
})

/** `memory.extended` (spec extended §19): Extended Memory's atoms. Every key optional, unknown keys refused. */
export const ExtendedSection = Schema.Struct({
  enabled: opt(Schema.Boolean),
  max_size_mb: opt(Whole),
  semantic_search_top_k: opt(Whole),
  semantic_search_overfetch: opt(Whole),
  semantic_search_min_score: opt(Finite),
  semantic_search_rerank: opt(Schema.Boolean),
  atom_max_chars: opt(Whole),
  memory_budget_chars: opt(Whole),
  decay_half_life_days: opt(Whole),
  quarantine_ttl_days: opt(Whole),
  eviction_policy: opt(Schema.String),
  predictive_intents: opt(Whole),
  auto_extract_per_turn: opt(Schema.Boolean),
  infer_user_state: opt(Schema.Boolean),
  user_state_turn_interval: opt(Whole),
  user_state_max_pending: opt(Whole),
  user_state_pending_max_age_days: opt(Whole),
  associations_enabled: opt(Schema.Boolean),
  association_semantic_top_k: opt(Whole),
  semantic_dedup_threshold: opt(Finite),
  consolidate_similarity_threshold: opt(Finite),
  proactive_return_after_break: opt(Schema.Boolean),
  style_mirroring_enabled: opt(Schema.Boolean),
  anaphora_resolution_enabled: opt(Schema.Boolean),
  follow_up_anticipation_enabled: opt(Schema.Boolean),
  follow_up_suggestions_enabled: opt(Schema.Boolean),
  follow_up_suggestion_min_confidence: opt(Finite),
  proactive_nudges_enabled: opt(Schema.Boolean),
  nudge_max_per_day: opt(Whole),
  nudge_cooldown_hours: opt(Whole),
  nudge_stale_goal_days: opt(Whole),
  nudge_open_question_min_age_hours: opt(Whole),
  llm: opt(LlmSection),
  embedding: opt(EmbeddingSection)
})

/** The `memory` section as written in a config file: every key optional, unknown keys refused. */
export const MemorySection = Schema.Struct({
  enabled: opt(Schema.Boolean),
  facts_limit_user: opt(Whole),
  facts_limit_env: opt(Whole),
  buffer_lines: opt(Whole),
  buffer_enabled: opt(Schema.Boolean),
  merge_on_write: opt(Schema.Boolean),
  merge_threshold: opt(Finite),
  add_threshold: opt(Finite),
  consolidate_on_end: opt(Schema.Boolean),
  consolidate_at_cap_pct: opt(Whole),
  llm_consolidate: opt(Schema.Boolean),
  extract_on_end: opt(Schema.Boolean),
  extract_facts: opt(Schema.Boolean),
  llm_extract: opt(Schema.Boolean),
  llm_search: opt(Schema.Boolean),
  min_turns_for_extraction: opt(Whole),
  episode_dedup_threshold: opt(Finite),
  max_episodes: opt(Whole),
  episode_ttl_days: opt(Whole),
  auto_approve_episodes: opt(Schema.Boolean),
  recall_floor: opt(Finite),
  recall_block_bytes: opt(Whole),
  embedding: opt(EmbeddingSection),
  extended: opt(ExtendedSection)
})

/**
 * A whole config file. `memory`, `embedding`, `llm` and `guard` are ours; other sections (an odek config's) are left
 * alone.
 */
export const ConfigFile = Schema.Struct(
  {
    memory: opt(MemorySection),
    embedding: opt(EmbeddingSection),
    llm: opt(LlmSection),
    guard: opt(GuardSection),
    store: opt(Schema.String)
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)

export interface EmbeddingConfig {
  /** `local`: rare terms weigh most (the default); `rp`: odek's Go-compatible space; `http`: an embeddings API. */
  readonly provider: "local" | "rp" | "http"
  readonly baseUrl: string
  readonly model: string
  /** Sent as a bearer token; Redacted so that no log, error or JSON output can show it. */
  readonly apiKey: Redacted.Redacted<string>
  readonly dims: number
  readonly timeoutSeconds: number
}

export interface LlmConfig {
  /** `none` means no model: every LLM feature degrades as the spec says. */
  readonly provider: "openai" | "none"
  readonly baseUrl: string
  readonly model: string
  /** The environment variable holding the API key (never the key itself), or "" for none. */
  readonly apiKeyEnv: string
  /** The key read from that variable when the config was resolved; "" when unset. Redacted, as the embedder's. */
  readonly apiKey: Redacted.Redacted<string>
  readonly timeoutSeconds: number
  /** Further attempts after a 429, a 5xx or a connection error. */
  readonly maxRetries: number
  readonly maxResponseBytes: number
  readonly jsonMode: boolean
  readonly temperature: number
}

export interface GuardConfig {
  /** `none`: the local scan alone (the default); `http`: a sidecar; `llm`: the configured chat model classifies. */
  readonly provider: "none" | "http" | "llm"
  /** The sidecar's API root for `http`; `/scan` is appended. */
  readonly baseUrl: string
  /** The environment variable holding the sidecar's key, or "" for none. */
  readonly apiKeyEnv: string
  readonly apiKey: Redacted.Redacted<string>
  /** The longest a write waits for the guard, for either provider. */
  readonly timeoutSeconds: number
  /** A failed guard accepts what the local scan passed (true) or refuses the write (false). */
  readonly fallbackToLocal: boolean
  /** Which writes the guard sees; `memory: false` turns it off for memory, never the local scan. */
  readonly scan: { readonly memory: boolean }
}

/** Resolved `memory.extended` (spec extended §19); sizes named "chars" there are UTF-8 bytes. */
export interface ExtendedConfig {
  /** Off by default: every atom surface is inert (§1.1). */
  readonly enabled: boolean
  /** The store's cap in MiB (§7.1); it cannot be switched off. */
  readonly maxSizeMb: number
  readonly semanticSearchTopK: number
  /** Candidates fetched per recall: `semanticSearchTopK × semanticSearchOverfetch`. */
  readonly semanticSearchOverfetch: number
  /** The least cosine a candidate needs (recall, anaphora, semantic associations). */
  readonly semanticSearchMinScore: number
  readonly semanticSearchRerank: boolean
  /** The most bytes of an atom's text the live store keeps. */
  readonly atomMaxChars: number
  /** The recall block's budget in bytes, header included. */
  readonly memoryBudgetChars: number
  readonly decayHalfLifeDays: number
  readonly quarantineTtlDays: number
  /** The only policy there is; any other name in a config file means this one. */
  readonly evictionPolicy: "retention_decay"
  readonly predictiveIntents: number
  readonly autoExtractPerTurn: boolean
  readonly inferUserState: boolean
  readonly userStateTurnInterval: number
  readonly userStateMaxPending: number
  /** 0 = pending user-model reviews never expire. */
  readonly userStatePendingMaxAgeDays: number
  readonly associationsEnabled: boolean
  readonly associationSemanticTopK: number
  /** 0 = no semantic dedup tier (the exact tier always runs). */
  readonly semanticDedupThreshold: number
  readonly consolidateSimilarityThreshold: number
  readonly proactiveReturnAfterBreak: boolean
  readonly styleMirroringEnabled: boolean
  readonly anaphoraResolutionEnabled: boolean
  readonly followUpAnticipationEnabled: boolean
  readonly followUpSuggestionsEnabled: boolean
  /** In (0, 1]. */
  readonly followUpSuggestionMinConfidence: number
  readonly proactiveNudgesEnabled: boolean
  readonly nudgeMaxPerDay: number
  readonly nudgeCooldownHours: number
  readonly nudgeStaleGoalDays: number
  readonly nudgeOpenQuestionMinAgeHours: number
  /** A model of its own for atom work; undefined = the main `llm` (§20.1). */
  readonly llm: LlmConfig | undefined
  /** An embedder of its own for atoms; undefined = the one `memory.embedding` resolves to (§8.1). */
  readonly embedding: EmbeddingConfig | undefined
}

/** Resolved settings: every key has its value, defaults applied as the spec says. */
export interface MemoryConfig {
  readonly enabled: boolean
  readonly factsLimitUser: number
  readonly factsLimitEnv: number
  readonly bufferLines: number
  readonly bufferEnabled: boolean
  readonly mergeOnWrite: boolean
  readonly mergeThreshold: number
  readonly addThreshold: number
  readonly consolidateOnEnd: boolean
  /** 0 disables the cap-triggered pass. */
  readonly consolidateAtCapPct: number
  readonly llmConsolidate: boolean
  readonly extractOnEnd: boolean
  readonly extractFacts: boolean
  readonly llmExtract: boolean
  readonly llmSearch: boolean
  readonly minTurnsForExtraction: number
  readonly episodeDedupThreshold: number
  readonly maxEpisodes: number
  /** 0 = keep forever. */
  readonly episodeTtlDays: number
  readonly autoApproveEpisodes: boolean
  /** The share of a query's weight an episode's words must match to be recalled (0 recalls on any shared word). */
  readonly recallFloor: number
  /** The most the per-turn recall block may take, in UTF-8 bytes. */
  readonly recallBlockBytes: number
  readonly embedding: EmbeddingConfig
  readonly llm: LlmConfig
  readonly guard: GuardConfig
  readonly extended: ExtendedConfig
  /**
   * Where the events live: "" for the memory directory (the disk journal, the default), or a `postgres://` URL of a
   * database many processes on many hosts share (docs/SCALING.md). It may hold a password: never shown.
   */
  readonly store: string
}

export const DEFAULT_EMBEDDING: EmbeddingConfig = {
  provider: "local",
  baseUrl: "",
  model: "",
  apiKey: Redacted.make(""),
  dims: 0,
  timeoutSeconds: 10
}

export const DEFAULT_LLM: LlmConfig = {
  provider: "none",
  baseUrl: "",
  model: "",
  apiKeyEnv: "",
  apiKey: Redacted.make(""),
  timeoutSeconds: 60,
  maxRetries: 2,
  maxResponseBytes: 1024 * 1024,
  jsonMode: false,
  temperature: 0
}

export const DEFAULT_GUARD: GuardConfig = {
  provider: "none",
  baseUrl: "",
  apiKeyEnv: "",
  apiKey: Redacted.make(""),
  timeoutSeconds: 5,
  fallbackToLocal: true,
  scan: { memory: true }
}

export const DEFAULT_EXTENDED: ExtendedConfig = {
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
}

export const DEFAULT_CONFIG: MemoryConfig = {
  enabled: true,
  factsLimitUser: 4000,
  factsLimitEnv: 8000,
  bufferLines: 20,
  bufferEnabled: true,
  mergeOnWrite: true,
  mergeThreshold: 0.7,
  addThreshold: 0.3,
  consolidateOnEnd: true,
  consolidateAtCapPct: 80,
  llmConsolidate: true,
  extractOnEnd: true,
  extractFacts: false,
  llmExtract: true,
  llmSearch: true,
  minTurnsForExtraction: 3,
  episodeDedupThreshold: 0.92,
  maxEpisodes: 500,
  episodeTtlDays: 0,
  autoApproveEpisodes: false,
  recallFloor: 0.2,
  recallBlockBytes: 2048,
  embedding: DEFAULT_EMBEDDING,
  llm: DEFAULT_LLM,
  guard: DEFAULT_GUARD,
  extended: DEFAULT_EXTENDED,
  store: ""
}

/** A config file that cannot be used: `message` is one line naming the key. */
export class ConfigInvalid extends Schema.TaggedError<ConfigInvalid>()("ConfigInvalid", { text: Schema.String }) {
  override get message() {
    // one printable line whatever the text quotes: an unknown key, a value, an environment variable or JSON.parse's
    // excerpt of the file may hold a newline, a control character or U+2028 (issue 15)
    return printable(this.text)
  }
}

// Numbers at or below zero mean "use the default", as in odek's loader.
const positive = (v: number | undefined, d: number) => (v !== undefined && v > 0 ? v : d)

/**
 * A variable of the environment, or undefined. Only its own keys: a config may name any variable, and `toString` or
 * `constructor` would otherwise find Object.prototype's functions (a TypeError further on, issue 15).
 */
const envVar = (env: Readonly<Record<string, string | undefined>>, name: string): string | undefined => {
  const value = Object.hasOwn(env, name) ? env[name] : undefined
  return typeof value === "string" ? value : undefined
}

/** `$VAR` and `${VAR}` expansion (unset → empty), then trim, as odek does for base_url and api_key. */
export const expandEnv = (s: string, env: Readonly<Record<string, string | undefined>>): string =>
  s
    .replace(
      /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
      (_, a: string | undefined, b: string | undefined) => envVar(env, (a ?? b)!) ?? ""
    )
    .trim()

const resolveEmbedding = (
  section: typeof EmbeddingSection.Type | undefined,
  env: Readonly<Record<string, string | undefined>>
): EmbeddingConfig => {
  if (section === undefined) return DEFAULT_EMBEDDING
  const baseUrl = expandEnv(section.base_url ?? "", env)
  const model = (section.model ?? "").trim()
  // An http config without an address or a model falls back to the local embedder, so recall keeps working.
  // `rp` asks for odek's own space by name; anything else local is the weighted default (docs/adr/0006)
  const provider =
    section.provider === "http" && baseUrl !== "" && model !== "" ? "http" : section.provider === "rp" ? "rp" : "local"
  return {
    provider,
    baseUrl,
    model,
    apiKey: Redacted.make(expandEnv(section.api_key ?? "", env)),
    dims: Math.max(0, section.dims ?? 0),
    timeoutSeconds: positive(section.timeout_seconds, 10)
  }
}

/** The model endpoint: a `base_url` selects the OpenAI-compatible adapter unless `provider` says `none`. */
export const resolveLlm = (
  section: typeof LlmSection.Type | undefined,
  env: Readonly<Record<string, string | undefined>>
): LlmConfig => {
  if (section === undefined) return DEFAULT_LLM
  const d = DEFAULT_LLM
  const baseUrl = expandEnv(section.base_url ?? "", env).replace(/\/+$/, "")
  const apiKeyEnv = (section.api_key_env ?? "").trim()
  return {
    provider: section.provider ?? (baseUrl !== "" ? "openai" : "none"),
    baseUrl,
    model: (section.model ?? "").trim(),
    apiKeyEnv,
    apiKey: Redacted.make(apiKeyEnv === "" ? "" : (envVar(env, apiKeyEnv) ?? "").trim()),
    timeoutSeconds: positive(section.timeout_seconds, d.timeoutSeconds),
    maxRetries: section.max_retries === undefined ? d.maxRetries : Math.max(0, section.max_retries),
    maxResponseBytes: positive(section.max_response_bytes, d.maxResponseBytes),
    jsonMode: section.json_mode ?? d.jsonMode,
    temperature: section.temperature === undefined ? d.temperature : Math.max(0, section.temperature)
  }
}

/** Why an LLM config cannot be used (one line naming the key, `llm` or where the block sits), or undefined. */
export const llmProblem = (llm: LlmConfig, key = "llm"): string | undefined => {
  if (llm.provider === "none") return undefined
  if (llm.baseUrl === "") return `${key}.base_url is required for provider "openai" (e.g. http://localhost:11434/v1)`
  let url: URL
  try {
    url = new URL(llm.baseUrl)
  } catch {
    return `${key}.base_url ${JSON.stringify(llm.baseUrl)} is not a URL (e.g. http://localhost:11434/v1)`
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `${key}.base_url must start with http:// or https:// (got ${url.protocol})`
  if (llm.model === "") return `${key}.model is required when ${key}.base_url is set (e.g. "llama3.1" for Ollama)`
  return undefined
}

/** The environment variable that overrides `guard.scan.memory` (odek's is ODEK_GUARD_SCAN_MEMORY). */
export const GUARD_SCAN_MEMORY_ENV = "TMEM_GUARD_SCAN_MEMORY"

/** `true`/`false`/`1`/`0` in any case; "" or unset means not set; anything else is named as the problem. */
const envBoolean = (env: Readonly<Record<string, string | undefined>>, name: string): boolean | undefined | string => {
  const value = envVar(env, name)
  const v = (value ?? "").trim().toLowerCase()
  if (v === "") return undefined
  if (v === "true" || v === "1") return true
  if (v === "false" || v === "0") return false
  return `$${name} must be true or false (got ${JSON.stringify(value)}); fix the environment variable`
}

/** The guard: a `base_url` selects the sidecar unless `provider` says otherwise; the environment wins for the scope. */
export const resolveGuard = (
  section: typeof GuardSection.Type | undefined,
  env: Readonly<Record<string, string | undefined>>
): GuardConfig => {
  const d = DEFAULT_GUARD
  const s = section ?? {}
  const baseUrl = expandEnv(s.base_url ?? "", env).replace(/\/+$/, "")
  const apiKeyEnv = (s.api_key_env ?? "").trim()
  const fromEnv = envBoolean(env, GUARD_SCAN_MEMORY_ENV)
  const provider = s.provider === "local" ? "none" : (s.provider ?? (baseUrl !== "" ? "http" : "none"))
  return {
    provider,
    baseUrl,
    apiKeyEnv,
    apiKey: Redacted.make(apiKeyEnv === "" ? "" : (envVar(env, apiKeyEnv) ?? "").trim()),
    timeoutSeconds: positive(s.timeout_seconds, d.timeoutSeconds),
    fallbackToLocal: s.fallback_to_local ?? d.fallbackToLocal,
    // an unusable value is reported by guardEnvProblem; here it counts as not set
    scan: { memory: typeof fromEnv === "boolean" ? fromEnv : (s.scan?.memory ?? d.scan.memory) }
  }
}

/** Why the environment's guard setting cannot be used, or undefined. */
export const guardEnvProblem = (env: Readonly<Record<string, string | undefined>>): string | undefined => {
  const v = envBoolean(env, GUARD_SCAN_MEMORY_ENV)
  return typeof v === "string" ? v : undefined
}

/** The environment variable that overrides `memory.extended.enabled` (odek's is ODEK_MEMORY_EXTENDED_ENABLED). */
export const EXTENDED_ENABLED_ENV = "TMEM_MEMORY_EXTENDED_ENABLED"

/** Why the environment's Extended Memory switch cannot be used, or undefined. */
export const extendedEnvProblem = (env: Readonly<Record<string, string | undefined>>): string | undefined => {
  const v = envBoolean(env, EXTENDED_ENABLED_ENV)
  return typeof v === "string" ? v : undefined
}

// A threshold whose explicit 0 switches its feature off, so only an absent key takes the default (a negative one
// switches it off too, as it does in v1.15).
const zeroDisables = (v: number | undefined, d: number) => (v === undefined ? d : Math.max(0, v))

/** `memory.extended` with the spec's defaults (§19); the environment wins for the master switch. */
export const resolveExtended = (
  section: typeof ExtendedSection.Type | undefined,
  env: Readonly<Record<string, string | undefined>>
): ExtendedConfig => {
  const x = section ?? {}
  const d = DEFAULT_EXTENDED
  const fromEnv = envBoolean(env, EXTENDED_ENABLED_ENV)
  const minConfidence = x.follow_up_suggestion_min_confidence
  const llm = x.llm === undefined ? undefined : resolveLlm(x.llm, env)
  return {
    // an unusable value is reported by extendedEnvProblem; here it counts as not set
    enabled: typeof fromEnv === "boolean" ? fromEnv : (x.enabled ?? d.enabled),
    maxSizeMb: positive(x.max_size_mb, d.maxSizeMb),
    semanticSearchTopK: positive(x.semantic_search_top_k, d.semanticSearchTopK),
    semanticSearchOverfetch: positive(x.semantic_search_overfetch, d.semanticSearchOverfetch),
    semanticSearchMinScore: positive(x.semantic_search_min_score, d.semanticSearchMinScore),
    semanticSearchRerank: x.semantic_search_rerank ?? d.semanticSearchRerank,
    atomMaxChars: positive(x.atom_max_chars, d.atomMaxChars),
    memoryBudgetChars: positive(x.memory_budget_chars, d.memoryBudgetChars),
    decayHalfLifeDays: positive(x.decay_half_life_days, d.decayHalfLifeDays),
    quarantineTtlDays: positive(x.quarantine_ttl_days, d.quarantineTtlDays),
    // retention_decay is the only policy; odek falls back to it for any other name
    evictionPolicy: d.evictionPolicy,
    predictiveIntents: positive(x.predictive_intents, d.predictiveIntents),
    autoExtractPerTurn: x.auto_extract_per_turn ?? d.autoExtractPerTurn,
    inferUserState: x.infer_user_state ?? d.inferUserState,
    userStateTurnInterval: positive(x.user_state_turn_interval, d.userStateTurnInterval),
    userStateMaxPending: positive(x.user_state_max_pending, d.userStateMaxPending),
    userStatePendingMaxAgeDays: zeroDisables(x.user_state_pending_max_age_days, d.userStatePendingMaxAgeDays),
    associationsEnabled: x.associations_enabled ?? d.associationsEnabled,
    associationSemanticTopK: positive(x.association_semantic_top_k, d.associationSemanticTopK),
    semanticDedupThreshold: zeroDisables(x.semantic_dedup_threshold, d.semanticDedupThreshold),
    consolidateSimilarityThreshold: positive(x.consolidate_similarity_threshold, d.consolidateSimilarityThreshold),
    proactiveReturnAfterBreak: x.proactive_return_after_break ?? d.proactiveReturnAfterBreak,
    styleMirroringEnabled: x.style_mirroring_enabled ?? d.styleMirroringEnabled,
    anaphoraResolutionEnabled: x.anaphora_resolution_enabled ?? d.anaphoraResolutionEnabled,
    followUpAnticipationEnabled: x.follow_up_anticipation_enabled ?? d.followUpAnticipationEnabled,
    followUpSuggestionsEnabled: x.follow_up_suggestions_enabled ?? d.followUpSuggestionsEnabled,
    followUpSuggestionMinConfidence:
      minConfidence !== undefined && minConfidence > 0 && minConfidence <= 1
        ? minConfidence
        : d.followUpSuggestionMinConfidence,
    proactiveNudgesEnabled: x.proactive_nudges_enabled ?? d.proactiveNudgesEnabled,
    nudgeMaxPerDay: positive(x.nudge_max_per_day, d.nudgeMaxPerDay),
    nudgeCooldownHours: positive(x.nudge_cooldown_hours, d.nudgeCooldownHours),
    nudgeStaleGoalDays: positive(x.nudge_stale_goal_days, d.nudgeStaleGoalDays),
    nudgeOpenQuestionMinAgeHours: positive(x.nudge_open_question_min_age_hours, d.nudgeOpenQuestionMinAgeHours),
    // a block naming no endpoint (none set, or its $VAR unset) means the main model, as odek falls back to it;
    // `provider: "none"` gives atoms no model even when the agent has one
    llm: llm === undefined || (x.llm?.provider === undefined && llm.baseUrl === "") ? undefined : llm,
    embedding: x.embedding === undefined ? undefined : resolveEmbedding(x.embedding, env)
  }
}

/** Why a guard config cannot be used (one line naming the key and the fix), or undefined when it can. */
export const guardProblem = (guard: GuardConfig, llm: LlmConfig): string | undefined => {
  if (guard.provider === "llm") {
    return llm.provider === "openai"
      ? undefined
      : 'guard.provider "llm" needs a model: set llm.base_url and llm.model (or use guard.provider "http" or "none")'
  }
  if (guard.provider !== "http") return undefined
  const example = "(e.g. http://127.0.0.1:8765/v1)"
  if (guard.baseUrl === "") return `guard.base_url is required for provider "http" ${example}`
  let url: URL
  try {
    url = new URL(guard.baseUrl)
  } catch {
    return `guard.base_url ${JSON.stringify(guard.baseUrl)} is not a URL ${example}`
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `guard.base_url must start with http:// or https:// (got ${url.protocol})`
  return undefined
}

/** Defaults overlaid with the set keys, with the spec's rules for non-positive numbers and thresholds. */
export const resolveConfig = (
  file: typeof ConfigFile.Type,
  env: Readonly<Record<string, string | undefined>> = {}
): MemoryConfig => {
  const m = file.memory ?? {}
  const d = DEFAULT_CONFIG
  const mergeThreshold = positive(m.merge_threshold, d.mergeThreshold)
  const addRaw = positive(m.add_threshold, d.addThreshold)
  const pct = m.consolidate_at_cap_pct
  return {
    enabled: m.enabled ?? d.enabled,
    factsLimitUser: positive(m.facts_limit_user, d.factsLimitUser),
    factsLimitEnv: positive(m.facts_limit_env, d.factsLimitEnv),
    bufferLines: positive(m.buffer_lines, d.bufferLines),
    bufferEnabled: m.buffer_enabled ?? d.bufferEnabled,
    mergeOnWrite: m.merge_on_write ?? d.mergeOnWrite,
    mergeThreshold,
    addThreshold: addRaw >= mergeThreshold ? d.addThreshold : addRaw,
    consolidateOnEnd: m.consolidate_on_end ?? d.consolidateOnEnd,
    // An explicit 0 disables (absent is not 0); negative disables; above 99 is 99 since a 100 % add is refused.
    consolidateAtCapPct: pct === undefined ? d.consolidateAtCapPct : pct <= 0 ? 0 : Math.min(pct, 99),
    llmConsolidate: m.llm_consolidate ?? d.llmConsolidate,
    extractOnEnd: m.extract_on_end ?? d.extractOnEnd,
    extractFacts: m.extract_facts ?? d.extractFacts,
    llmExtract: m.llm_extract ?? d.llmExtract,
    llmSearch: m.llm_search ?? d.llmSearch,
    minTurnsForExtraction: positive(m.min_turns_for_extraction, d.minTurnsForExtraction),
    episodeDedupThreshold: positive(m.episode_dedup_threshold, d.episodeDedupThreshold),
    maxEpisodes: positive(m.max_episodes, d.maxEpisodes),
    episodeTtlDays: positive(m.episode_ttl_days, d.episodeTtlDays),
    autoApproveEpisodes: m.auto_approve_episodes ?? d.autoApproveEpisodes,
    // a floor of 0 is meaningful (any shared word recalls), so only a negative or absent one takes the default; 1 is
    // the most
    recallFloor: m.recall_floor === undefined || m.recall_floor < 0 ? d.recallFloor : Math.min(m.recall_floor, 1),
    // below 512 bytes not even one episode line with its preview fits
    recallBlockBytes:
      m.recall_block_bytes === undefined || m.recall_block_bytes <= 0
        ? d.recallBlockBytes
        : Math.max(512, m.recall_block_bytes),
    // memory.embedding, else the shared top-level block, else the local embedder.
    embedding: resolveEmbedding(m.embedding ?? file.embedding, env),
    llm: resolveLlm(file.llm, env),
    guard: resolveGuard(file.guard, env),
    extended: resolveExtended(m.extended, env),
    store: file.store?.trim() ?? ""
  }
}

const describe = (issue: ParseResult.ArrayFormatterIssue): string => {
  const key = issue.path.map(String).join(".")
  // Secrets stay out of config files: the key is read from the variable the config names.
  if (key === "llm.api_key" || key === "guard.api_key" || key === "memory.extended.llm.api_key")
    return (
      `config: ${key} is not supported: put the key in an environment variable and name it in ` +
      `${key.replace(/api_key$/, "api_key_env")}`
    )
  const what = issue._tag === "Unexpected" ? "is not a known key" : issue.message
  return `config: ${key === "" ? "(top level)" : key} ${what.replace(/\s+/g, " ")}`
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** The sections read, and the blocks nested in them, which null-cleaning and the object check reach too. */
interface Blocks {
  readonly [key: string]: Blocks
}
const SECTIONS: Blocks = {
  memory: { embedding: {}, extended: { llm: {}, embedding: {} } },
  embedding: {},
  llm: {},
  guard: { scan: {} }
}

const invalidShape = (what: string) =>
  Either.left(new ConfigInvalid({ text: `config: ${what} must be a JSON object; fix it in the config file` }))

const cleanBlock = (block: unknown, nested: Blocks, path: string): Either.Either<unknown, ConfigInvalid> => {
  if (!isObject(block)) return invalidShape(path)
  const entries: Array<[string, unknown]> = []
  for (const [k, v] of Object.entries(block)) {
    if (v === null) continue
    if (!Object.hasOwn(nested, k)) {
      entries.push([k, v])
      continue
    }
    const inner = cleanBlock(v, nested[k]!, `${path}.${k}`)
    if (Either.isLeft(inner)) return inner
    entries.push([k, inner.right])
  }
  // fromEntries defines the keys, so a `__proto__` key stays a key (and is refused as unknown)
  return Either.right(Object.fromEntries(entries))
}

/** `null` means "not set", as in odek's Go loader; a section that is not an object is named as the problem. */
const withoutNulls = (json: unknown): Either.Either<unknown, ConfigInvalid> => {
  if (!isObject(json)) return invalidShape("the file")
  const out: Record<string, unknown> = { ...json }
  for (const [key, nested] of Object.entries(SECTIONS)) {
    const section = out[key]
    if (section === undefined || section === null) {
      delete out[key]
      continue
    }
    const cleaned = cleanBlock(section, nested, key)
    if (Either.isLeft(cleaned)) return cleaned
    out[key] = cleaned.right
  }
  return Either.right(out)
}

/** Decodes a parsed config document; the error names the first offending key on one line. */
export const decodeConfig = (
  json: unknown,
  env: Readonly<Record<string, string | undefined>> = {}
): Either.Either<MemoryConfig, ConfigInvalid> =>
  Either.flatMap(withoutNulls(json), (clean) =>
    Schema.decodeUnknownEither(ConfigFile, { onExcessProperty: "error", errors: "first" })(clean)
  ).pipe(
    Either.mapLeft((error) => {
      if (error instanceof ConfigInvalid) return error
      const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
      const first = issues[0]
      return new ConfigInvalid({
        text: first === undefined ? "config: invalid" : `${describe(first)}; fix it in the config file`
      })
    }),
    Either.flatMap((file) => {
      const problem = guardEnvProblem(env) ?? extendedEnvProblem(env)
      return problem === undefined ? Either.right(file) : Either.left(new ConfigInvalid({ text: `config: ${problem}` }))
    }),
    Either.map((file) => resolveConfig(file, env)),
    Either.flatMap((config) => {
      const extendedLlm = config.extended.llm
      const problem =
        llmProblem(config.llm) ??
        (extendedLlm === undefined ? undefined : llmProblem(extendedLlm, "memory.extended.llm")) ??
        guardProblem(config.guard, config.llm) ??
        storeProblem(config.store)
      return problem === undefined
        ? Either.right(config)
        : Either.left(new ConfigInvalid({ text: `config: ${problem}; fix it in the config file` }))
    })
  )

/**
 * Why `store` cannot name where the events live, or undefined: empty (the directory) or a postgres:// URL. The value
 * itself is never repeated, since a URL may carry a password.
 */
export const storeProblem = (store: string): string | undefined =>
  store === "" || /^postgres(ql)?:\/\/[^\s]+$/.test(store)
    ? undefined
    : "store must be a postgres:// URL (postgres://user@host:5432/database), or absent for the memory directory"

/** The fact decider's view of the settings. */
export const factPolicy = (c: MemoryConfig): FactPolicy => ({
  enabled: c.enabled,
  caps: { user: c.factsLimitUser, env: c.factsLimitEnv },
  mergeOnWrite: c.mergeOnWrite,
  mergeThreshold: c.mergeThreshold,
  addThreshold: c.addThreshold
})
