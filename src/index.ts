/**
 * tiered-memory for Effect users: the ports, the adapters that implement them, and the handlers that use them.
 * Compose `liveLayer({ dir, config })` (disk store, the configured embedder and model, the cap-triggered
 * consolidation) or your own layers, then run the handlers.
 */
export * as DiskEventStore from "./adapters/disk/DiskEventStore.js"
export { type AtomsApi, type Memory, openMemory, type OpenMemoryOptions } from "./adapters/facade/openMemory.js"
export * as Approvals from "./adapters/approval/Approvals.js"
export { Approval, type ApprovalRequest } from "./ports/Approval.js"
export { MEMORY_TOOL_DESCRIPTION, memoryToolJsonSchema, toolDefinition, type ToolFormat } from "./app/toolSchema.js"
export * as HttpEmbedder from "./adapters/http/HttpEmbedder.js"
export * as NoneLlm from "./adapters/llm/NoneLlm.js"
export * as OpenAiLlm from "./adapters/http/OpenAiLlm.js"
export * as HttpGuard from "./adapters/guard/HttpGuard.js"
export * as LlmGuard from "./adapters/guard/LlmGuard.js"
export * as NoGuard from "./adapters/guard/NoGuard.js"
export { loadConfigFile } from "./adapters/disk/configFile.js"
export { guardLayer, liveLayer, type LiveOptions } from "./adapters/live.js"
export * as MemoryEventStore from "./adapters/memory/MemoryEventStore.js"
export * as Notifiers from "./adapters/notify/Notifiers.js"
export * as RpEmbedder from "./adapters/rp/RpEmbedder.js"
export { CapConsolidation } from "./app/CapConsolidation.js"
export {
  capConsolidationLayer,
  consolidateAtSessionEnd,
  consolidateFacts,
  ConsolidationLlmFailed,
  ConsolidationUnavailable,
  describeOutcome,
  makeCapConsolidationLayer,
  type ConsolidationOutcome
} from "./app/consolidation.js"
export { EMBED_BACKOFF, EmbedBackoff, withBackoff } from "./app/embedBackoff.js"
export { lifecycleHistory, type Cursor } from "./app/events.js"
export { revertFacts, revertible } from "./app/revert.js"
export { Background } from "./app/Background.js"
export { EpisodeIndex } from "./app/EpisodeIndex.js"
export {
  discardEpisode,
  findEpisode,
  listEpisodes,
  pendingExtractions,
  promoteEpisode,
  pruneEpisodes,
  storeEpisode
} from "./app/episodes.js"
export { recallContext, searchEpisodes } from "./app/recall.js"
export {
  endSession,
  endUnrecordedSession,
  extractSession,
  loadSession,
  onSessionEnd,
  recordMessage,
  resumePendingSessions,
  resumeSessionEnd,
  sessionBuffer,
  trimHistory,
  type ExtractionOutcome
} from "./app/sessions.js"
export type { ChatMessage, ToolCall, TrustZone } from "./domain/sessions/message.js"
export {
  deriveSessionProvenance,
  episodeTaintSources,
  type EpisodeProvenance,
  isPendingReview,
  isRecallable,
  toolEffect
} from "./domain/sessions/provenance.js"
export * as DiskDerivedFiles from "./adapters/disk/DiskDerivedFiles.js"
export * as MemoryDerivedFiles from "./adapters/memory/MemoryDerivedFiles.js"
export {
  addFact,
  judgeMerge,
  factStats,
  loadFacts,
  parseTarget,
  readFacts,
  removeFact,
  replaceFact,
  rewriteFacts,
  type AddOutcome,
  type FactStats
} from "./app/facts.js"
export {
  decodeToolArgs,
  dispatchMemoryTool,
  FIELD_LIMIT,
  MemoryToolArgs,
  parseToolArgs,
  runMemoryTool,
  type ToolResult
} from "./app/memoryTool.js"
export {
  addAtoms,
  type AtomConsolidation,
  type AtomHit,
  type AtomLanding,
  compactAtoms,
  consolidateAtoms,
  forgetAtom,
  listQuarantine,
  pinAtom,
  promoteAtom,
  searchAtoms
} from "./app/atoms.js"
export { atomFollowUps, atomRecallBlock } from "./app/atomRecall.js"
export { AtomActivity } from "./app/AtomActivity.js"
export { AtomIndex } from "./app/AtomIndex.js"
export { previewNudges, takeNudges } from "./app/nudges.js"
export {
  confirmPendingReview,
  inferUserModel,
  listPendingReviews,
  loadUserModel,
  rejectPendingReview
} from "./app/userModel.js"
export { freezeMemoryBlock, memoryBlock, openPromptSession, readout, type SystemMessage } from "./app/prompt.js"
export { Settings } from "./app/Settings.js"
export {
  ConfigInvalid,
  decodeConfig,
  DEFAULT_CONFIG,
  DEFAULT_GUARD,
  DEFAULT_LLM,
  type EmbeddingConfig,
  type GuardConfig,
  type LlmConfig,
  type MemoryConfig
} from "./domain/config/MemoryConfig.js"
export { contentWords, coverageProblem, covers } from "./domain/facts/coverage.js"
export { formatLifecycle, type LifecycleEvent, type LifecycleType } from "./domain/events/lifecycle.js"
export * from "./domain/facts/errors.js"
export { FactEvent, type FactFileState, Target } from "./domain/facts/schema.js"
export { renderMemoryBlock } from "./domain/facts/promptBlock.js"
export { scanContent, scanForWrite, type Finding } from "./domain/scan/index.js"
export { EmbedFailed, Embedder, type EmbeddingSpace } from "./ports/Embedder.js"
export { EventStore, StoreError, VersionConflict } from "./ports/EventStore.js"
export {
  Llm,
  LlmBadResponse,
  type LlmError,
  type LlmInfo,
  type LlmRequest,
  LlmTimeout,
  LlmUnavailable
} from "./ports/Llm.js"
export { Notifier } from "./ports/Notifier.js"
export { Guard, type GuardInfo, GuardUnavailable } from "./ports/Guard.js"
export {
  CleanVerdict,
  GuardProvider,
  GuardRecord,
  GuardSource,
  GuardVerdict,
  guardOutcome,
  type GuardOutcome,
  InjectedVerdict
} from "./domain/scan/guardVerdict.js"
