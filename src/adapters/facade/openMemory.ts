import { Cause, Duration, Effect, Exit, Layer, ManagedRuntime } from "effect"
import * as Os from "node:os"
import * as Path from "node:path"
import { atomFollowUps, atomRecallBlock } from "../../app/atomRecall.js"
import {
  addAtoms,
  type AtomConsolidation,
  type AtomHit,
  type AtomLanding,
  compactAtoms,
  consolidateAtoms,
  expireQuarantine,
  forgetAtom,
  listQuarantine,
  pinAtom,
  promoteAtom,
  searchAtoms
} from "../../app/atoms.js"
import { previewNudges, takeNudges } from "../../app/nudges.js"
import {
  confirmPendingReview,
  expirePendingReviews,
  listPendingReviews,
  loadUserModel,
  rejectPendingReview
} from "../../app/userModel.js"
import type { AtomInput } from "../../domain/atoms/atom.js"
import type { Nudge } from "../../domain/atoms/nudges.js"
import type { QuarantinedAtom } from "../../domain/atoms/store.js"
import type { PendingEntry, UserModel } from "../../domain/atoms/userModel.js"
import { Background } from "../../app/Background.js"
import { listEpisodes, promoteEpisode } from "../../app/episodes.js"
import { type MemoryToolArgs, runMemoryTool, type ToolResult } from "../../app/memoryTool.js"
import { openPromptSession, type SystemMessage } from "../../app/prompt.js"
import { recallContext } from "../../app/recall.js"
import {
  endSession,
  type ExtractionOutcome,
  onSessionEnd,
  recordMessage,
  resumePendingSessions
} from "../../app/sessions.js"
import {
  ConfigInvalid,
  decodeConfig,
  DEFAULT_CONFIG,
  type MemoryConfig,
  storeProblem
} from "../../domain/config/MemoryConfig.js"
import type { Episode } from "../../domain/episodes/store.js"
import type { LifecycleEvent } from "../../domain/events/lifecycle.js"
import type { BufferRole } from "../../domain/sessions/buffer.js"
import type { ChatMessage } from "../../domain/sessions/message.js"
import type { Approval } from "../../ports/Approval.js"
import { liveLayer, memoryDir } from "../live.js"
import { DEFAULT_MEMORY, memoryIdProblem } from "../../domain/kernel/MemoryId.js"
import * as Notifiers from "../notify/Notifiers.js"
import { Notifier } from "../../ports/Notifier.js"
import { trustZoneFor } from "../trustZone.js"

export interface OpenMemoryOptions {
  /** The memory directory (default `$TMEM_DIR`, else `~/.tmem`). */
  readonly dir?: string
  /**
   * Which memory of the directory (default `$TMEM_MEMORY`, else `default`: the directory itself). Another memory
   * keeps the same layout under `<dir>/memories/<id>/`; memories share nothing but the directory.
   */
  readonly memory?: string
  /**
   * Where the events live: a `postgres://` URL shared by many processes on many hosts (docs/SCALING.md), else
   * `$TMEM_STORE`, else the config's `store`, else the directory. `dir` then keeps only caches.
   */
  readonly store?: string
  /** A config document as in a config file (`{ memory, embedding, llm }`), or a resolved config. */
  readonly config?: unknown
  /** The chat model, as the config file's `llm` block (`{ base_url, model, api_key_env, … }`); overrides `config`. */
  readonly llm?: Readonly<Record<string, unknown>>
  /**
   * The embedder, as the config file's `embedding` block (`{ provider: "http", base_url, model, … }`); overrides
   * `config`.
   */
  readonly embedder?: Readonly<Record<string, unknown>>
  /**
   * Lifecycle events, read from the store's feed once each write is durable: this memory's writes and, while the
   * memory is open, other processes' writes to the same directory (looked for every `watchMs`). A throwing handler
   * cannot break a write.
   */
  readonly onEvent?: (event: LifecycleEvent) => void
  /**
   * Keeps `onEvent`'s place in the feed under this name (lowercase letters, digits, `-`, `_`), so the next memory
   * opened with it first delivers what this one had not (a crash, a close before delivery): at least once. Without a
   * name, delivery starts at the feed's end when the memory opens.
   */
  readonly consumer?: string
  /** How often an open memory with `onEvent` looks for other processes' writes, in ms (default 250; 0: never). */
  readonly watchMs?: number
  /** Who approves mutating tool calls (default: every call goes ahead). */
  readonly approval?: Layer.Layer<Approval>
  /** The workspace of this agent's sessions, for the trust zone (default: the current directory). */
  readonly workspace?: string
  /** How long `close()` waits for background work before interrupting it, in ms (default 15,000). */
  readonly drainMs?: number
  /**
   * This memory serves a sub-agent: its "user" messages are the parent model's words, so they feed no atom
   * extraction, and its `add_atom` calls are quarantined as class `subagent` until a person promotes them (spec
   * extended §10.2, §17.2). Recall still works.
   */
  readonly subagent?: boolean
}

/** Extended Memory for plain async code (`memory.extended.enabled`): what the agent may do, and what a person does. */
export interface AtomsApi {
  /** Stores atoms through the one write path; where each landed (stored, refreshed, quarantined, failed). */
  readonly add: (atoms: ReadonlyArray<AtomInput>) => Promise<ReadonlyArray<AtomLanding>>
  /** Live, trusted atoms similar to `query`, best first. */
  readonly search: (query: string, limit?: number) => Promise<ReadonlyArray<AtomHit>>
  /** The Extended Memory block per-turn recall would inject for this message ("" when nothing). */
  readonly recall: (userMessage: string) => Promise<string>
  /** The follow-up suggestions of the last recall (at most 3). */
  readonly followUps: () => Promise<ReadonlyArray<string>>
  readonly forget: (id: string) => Promise<void>
  readonly pin: (id: string) => Promise<void>
  /** The quarantine, newest first. */
  readonly quarantine: () => Promise<ReadonlyArray<QuarantinedAtom>>
  /** A person's release of a quarantined atom (never wire this to an agent). */
  readonly promote: (id: string) => Promise<void>
  /** The user model as it stands (pending reviews included). */
  readonly userModel: () => Promise<UserModel>
  /** Pending user-model reviews, after expiring the old ones. */
  readonly pending: () => Promise<ReadonlyArray<PendingEntry>>
  /** A person's confirmation of a pending review (never wire this to an agent). */
  readonly confirm: (id: string) => Promise<void>
  readonly reject: (id: string) => Promise<void>
  /** Merges near-duplicate atoms with the model. */
  readonly consolidate: () => Promise<AtomConsolidation>
  /** Up to two nudges, recording nothing. */
  readonly previewNudges: () => Promise<ReadonlyArray<Nudge>>
  /** Delivers nudges when `proactive_nudges_enabled` (within the daily cap and cooldowns); also as `nudge` events. */
  readonly takeNudges: (max?: number) => Promise<ReadonlyArray<Nudge>>
  /** Rebuilds and saves the atom vector index; how many vectors it holds. */
  readonly compact: () => Promise<number>
  /** Quarantine entries and pending reviews past their time, dropped now. */
  readonly prune: () => Promise<{ readonly quarantine: number; readonly pending: number }>
}

/** The memory for plain async code: every method returns a Promise; failures reject with the typed error. */
export interface Memory {
  /** One call of the `memory` tool: arguments as an object or the JSON string the model sent. Never rejects. */
  readonly tool: (args: MemoryToolArgs | string) => Promise<ToolResult>
  /**
   * Opens a session's prompt: returns the per-turn renderer of the memory system messages. `resumed`: a session the
   * user comes back to; its first turn gets Extended Memory's "where you left off" summary when enabled.
   */
  readonly openPrompt: (
    sessionId?: string,
    options?: { readonly resumed?: boolean }
  ) => Promise<
    (turn: {
      userMessage: string
      planSteps?: ReadonlyArray<{ title: string; status: string }>
    }) => Promise<ReadonlyArray<SystemMessage>>
  >
  /** Records one message of a session (its taint judged now); `buffer` gives it a Tier 2 line. */
  readonly record: (sessionId: string, message: ChatMessage, buffer?: BufferRole) => Promise<void>
  /** Ends a session and waits for its episode and consolidation. */
  readonly endSession: (sessionId: string) => Promise<ExtractionOutcome>
  /** Ends a session and leaves its work to the background (`close` waits for it, at most 15 s). */
  readonly endSessionInBackground: (sessionId: string) => Promise<void>
  /** What per-turn recall would inject for this message. */
  readonly recall: (userMessage: string) => Promise<string>
  /** Episodes pending review, or all of them. */
  readonly episodes: (options?: { all?: boolean }) => Promise<ReadonlyArray<Episode>>
  /** A person's approval of an episode. */
  readonly promote: (sessionId: string) => Promise<void>
  /** Extended Memory's atoms, user model and nudges (inert while `memory.extended.enabled` is false). */
  readonly atoms: AtomsApi
  /** Waits for background work, at most `timeoutMs`; true when all of it finished. */
  readonly waitForBackground: (timeoutMs: number) => Promise<boolean>
  /**
   * Waits for background work (at most 15 s, or `drainMs`), interrupts what is left and releases everything.
   * Session-end
   * work cut off here stays owed: the next `openMemory` on this directory finishes it.
   */
  readonly close: () => Promise<void>
}

const resolveConfig = (config: unknown): MemoryConfig => {
  if (config === undefined) return DEFAULT_CONFIG
  if (typeof config === "object" && config !== null && "factsLimitUser" in config) return config as MemoryConfig
  const decoded = decodeConfig(config, process.env)
  if (decoded._tag === "Left") throw decoded.left
  return decoded.right
}

/** Opens a memory directory for plain async code (Effect users compose `liveLayer` instead). */
export const openMemory = async (options: OpenMemoryOptions = {}): Promise<Memory> => {
  const dir = Path.resolve(options.dir ?? (process.env.TMEM_DIR || Path.join(Os.homedir(), ".tmem")))
  const config = resolveConfig(
    options.llm === undefined && options.embedder === undefined
      ? options.config
      : {
          ...(options.config as Record<string, unknown> | undefined),
          ...(options.llm !== undefined ? { llm: options.llm } : {}),
          ...(options.embedder !== undefined ? { embedding: options.embedder } : {})
        }
  )
  const memory = options.memory ?? (process.env.TMEM_MEMORY || DEFAULT_MEMORY)
  const memoryProblem = memoryIdProblem(memory)
  if (memoryProblem !== undefined) throw new ConfigInvalid({ text: `memory: ${memoryProblem}` })
  const store = (options.store ?? (process.env.TMEM_STORE || config.store)).trim()
  const storeIssue = storeProblem(store)
  if (storeIssue !== undefined) throw new ConfigInvalid({ text: `memory: ${storeIssue}` })
  const runtime = ManagedRuntime.make(
    liveLayer({
      dir,
      memory,
      config,
      store,
      notifier: options.onEvent !== undefined ? Notifiers.callback(options.onEvent) : Notifiers.silent,
      ...(options.consumer !== undefined ? { consumer: options.consumer } : {}),
      ...(options.approval !== undefined ? { approval: options.approval } : {}),
      ...(options.drainMs !== undefined ? { backgroundDrain: Duration.millis(options.drainMs) } : {})
    })
  )
  const zone = trustZoneFor(Path.resolve(options.workspace ?? process.cwd()), memoryDir(dir, memory))
  // failures reject with the domain's own error object (a tagged Error with a one-line message)
  const run = async <A, E>(
    effect: Effect.Effect<A, E, ManagedRuntime.ManagedRuntime.Context<typeof runtime>>
  ): Promise<A> => {
    const exit = await runtime.runPromiseExit(effect)
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    throw failure._tag === "Some" ? failure.value : Cause.squash(exit.cause)
  }
  // session-end work an earlier process was cut off from (Ctrl-C, close, crash) is finished in the background; a
  // damaged episodes journal must not keep the rest of the memory from opening (its own calls will say what is wrong)
  await run(
    resumePendingSessions(zone).pipe(
      Effect.catchAll((e) => Effect.logWarning(`memory: owed session-end work not resumed: ${e.message}`))
    )
  )
  // Other processes' writes reach onEvent through the same consumer: a wake-up that finds nothing delivers nothing.
  // The timer is unref'd, so an open memory never keeps the process alive by itself.
  const wake = Effect.flatMap(Notifier, (n) => n.notify([]))
  const watchMs = options.watchMs ?? 250
  let watching: ReturnType<typeof setInterval> | undefined
  let looking = false
  if (options.onEvent !== undefined && watchMs > 0) {
    watching = setInterval(() => {
      if (looking) return
      looking = true
      runtime.runPromise(wake).finally(() => (looking = false))
    }, watchMs)
    watching.unref()
  }
  // what a named consumer missed (a crash, a close before delivery) is delivered now, not at the next write
  if (options.onEvent !== undefined && options.consumer !== undefined) await runtime.runPromise(wake)
  let closed: Promise<void> | undefined
  return {
    // a plain-JS caller can pass anything; it is checked as strictly as the model's JSON string
    tool: (args) => run(runMemoryTool(args, { subagent: options.subagent === true })),
    openPrompt: async (sessionId, o) => {
      const turn = await run(openPromptSession(sessionId, { resumed: o?.resumed === true }))
      return (t) => run(turn(t))
    },
    record: (sessionId, message, buffer) =>
      run(Effect.asVoid(recordMessage(sessionId, message, zone, buffer, { subagent: options.subagent === true }))),
    endSession: (sessionId) => run(endSession(sessionId, zone)),
    endSessionInBackground: (sessionId) => run(onSessionEnd(sessionId, zone)),
    recall: (userMessage) => run(recallContext(userMessage)),
    episodes: (o) => run(listEpisodes({ all: o?.all === true })),
    promote: (sessionId) => run(promoteEpisode(sessionId)),
    atoms: {
      // an add from a sub-agent's host is the parent model's text: quarantined like its tool calls
      add: (atoms) =>
        run(addAtoms(options.subagent === true ? atoms.map((a) => ({ ...a, source_class: "subagent" })) : atoms)),
      search: (query, limit) => run(searchAtoms(query, limit)),
      recall: (userMessage) => run(atomRecallBlock(userMessage)),
      followUps: () => run(atomFollowUps),
      forget: (id) => run(forgetAtom(id)),
      pin: (id) => run(pinAtom(id)),
      quarantine: () => run(listQuarantine()),
      promote: (id) => run(promoteAtom(id)),
      userModel: () => run(loadUserModel()),
      pending: () => run(listPendingReviews()),
      confirm: (id) => run(confirmPendingReview(id)),
      reject: (id) => run(rejectPendingReview(id)),
      consolidate: () => run(consolidateAtoms()),
      previewNudges: () => run(previewNudges()),
      takeNudges: (max) => run(takeNudges(max)),
      compact: () => run(compactAtoms()),
      prune: () =>
        run(
          Effect.map(Effect.all([expireQuarantine(), expirePendingReviews()]), ([quarantine, pending]) => ({
            quarantine,
            pending
          }))
        )
    },
    waitForBackground: (timeoutMs) => run(Effect.flatMap(Background, (b) => b.drain(Duration.millis(timeoutMs)))),
    // the Background layer's finalizer drains (bounded), then interrupts
    close: () =>
      (closed ??= (async () => {
        clearInterval(watching)
        // what this memory's last writes announced is delivered before it closes
        if (options.onEvent !== undefined) await runtime.runPromise(wake).catch(() => undefined)
        await runtime.dispose()
      })())
  }
}
