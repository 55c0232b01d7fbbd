/**
 * The worlds `tmem simulate` and the simulation test run the app in (src/app/simulation.ts): the in-memory store or
 * the disk store in a temporary directory, under a scripted model and the local embedder, each behind a switch
 * that makes the next operation fail the way real ones do. Nothing here opens a socket.
 */
import { Duration, Effect, Layer, Logger } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { AtomActivity } from "../../app/AtomActivity.js"
import { AtomIndex } from "../../app/AtomIndex.js"
import { AtomEmbedder, AtomLlm } from "../../app/AtomLlm.js"
import { Background, BACKGROUND_DRAIN } from "../../app/Background.js"
import { capConsolidationLayer } from "../../app/consolidation.js"
import { EpisodeIndex } from "../../app/EpisodeIndex.js"
import { Settings } from "../../app/Settings.js"
import type { Fault, SimWorld } from "../../app/simulation.js"
import { DEFAULT_CONFIG, type MemoryConfig } from "../../domain/config/MemoryConfig.js"
import { COMBINED_SYSTEM_PROMPT, EPISODE_SYSTEM_PROMPT, FACTS_SYSTEM_PROMPT } from "../../domain/episodes/prompts.js"
import { odekProjections } from "../../domain/odek/projections.js"
import { DerivedFiles } from "../../ports/DerivedFiles.js"
import { Embedder, EmbedFailed } from "../../ports/Embedder.js"
import { EventStore, StoreError } from "../../ports/EventStore.js"
import { Llm, LlmBadResponse, LlmTimeout, LlmUnavailable, type LlmRequest } from "../../ports/Llm.js"
import * as Approvals from "../approval/Approvals.js"
import * as DiskDerivedFiles from "../disk/DiskDerivedFiles.js"
import * as DiskEventStore from "../disk/DiskEventStore.js"
import * as NoGuard from "../guard/NoGuard.js"
import * as MemoryDerivedFiles from "../memory/MemoryDerivedFiles.js"
import * as MemoryEventStore from "../memory/MemoryEventStore.js"
import * as Notifiers from "../notify/Notifiers.js"
import * as WeightedEmbedder from "../rp/WeightedEmbedder.js"
import * as LocalEpisodeSearch from "../search/LocalEpisodeSearch.js"
import { demoConsolidation } from "./demoScript.js"
import { type FsFault, fsFaults } from "./fsFaults.js"
import { NodeFiles } from "../live.js"

/**
 * Small caps and a short episode store, so a few hundred steps reach full files, cap refusals, merges, trimming and
 * eviction; facts are extracted from trusted sessions and one user turn is enough for an episode.
 */
export const SIM_CONFIG: MemoryConfig = {
  ...DEFAULT_CONFIG,
  factsLimitUser: 600,
  factsLimitEnv: 900,
  extractFacts: true,
  minTurnsForExtraction: 1,
  maxEpisodes: 5,
  // atoms through the tool, in a store of about four (each counts its vector too); per-turn extraction and the
  // user model ask the model in prompts this scripted one does not answer, so they are off
  extended: {
    ...DEFAULT_CONFIG.extended,
    enabled: true,
    maxSizeMb: 0.006,
    autoExtractPerTurn: false,
    inferUserState: false
  }
}

/** What is armed, and whether it may strike now. */
interface Faults {
  pending: Fault | undefined
  hung: boolean
  striking: boolean
}

const take = (f: Faults, ...kinds: ReadonlyArray<Fault>): Fault | undefined => {
  if (!f.striking || f.pending === undefined || !kinds.includes(f.pending)) return undefined
  const fault = f.pending
  f.pending = undefined
  return fault
}

const storeFault = (stream: string, what: string) =>
  new StoreError({ stream, text: `memory: cannot ${what} ${stream}: simulated I/O error (ENOSPC/EIO)` })

/** The store behind a switch: a full disk before an append, an acknowledgement lost after one, a failed read. */
const faultyStore = (faults: Faults) =>
  Layer.effect(
    EventStore,
    Effect.map(EventStore, (inner) =>
      EventStore.of({
        ...inner,
        load: (stream, codec) =>
          take(faults, "store-read") !== undefined
            ? Effect.fail(storeFault(stream, "read"))
            : inner.load(stream, codec),
        append: (stream, codec, expected, events, at) => {
          const fault = take(faults, "store-before", "store-after")
          if (fault === "store-before") return Effect.fail(storeFault(stream, "append to"))
          const appended = inner.append(stream, codec, expected, events, at)
          return fault === "store-after" ? Effect.zipRight(appended, Effect.fail(storeFault(stream, "sync"))) : appended
        }
      })
    )
  )

const linesOf = (request: LlmRequest) => request.messages.map((m) => m.content).join("\n")

/** A summary a model might write: the session's own lines, the outside text a tool fetched included. */
const summaryOf = (transcript: string) => {
  const lines = transcript
    .split("\n")
    .map((l) => l.replace(/^(user|assistant|tool): /u, "").trim())
    .filter((l) => l.length > 12)
  return lines.length === 0 ? "NONE" : `In this session: ${lines.slice(0, 4).join(" ").slice(0, 600)}`
}

/** Facts a model might propose: what the user asked and what the agent said, restated. */
const factsOf = (transcript: string) =>
  transcript
    .split("\n")
    .filter((l) => l.startsWith("user: ") || l.startsWith("assistant: "))
    .slice(0, 3)
    .map((l) => ({ scope: "env", fact: l.replace(/^(user: Please check that|assistant: (Done:)?)/u, "").trim() }))
    .filter((f) => f.fact.length > 8)

/**
 * The scripted model: the extraction, consolidation and merge-judgement answers tmem asks for, from the request
 * alone; behind the switch, an answer that never comes in time, a server error, garbage, or a hang that lasts
 * until the memory closes.
 */
const simLlm = (faults: Faults) =>
  Llm.of({
    info: { provider: "openai", model: "simulated", endpoint: "in-process", available: true },
    complete: (request) =>
      Effect.gen(function* () {
        const fault = take(faults, "model-timeout", "model-5xx", "model-garbage", "model-hang")
        if (fault === "model-hang") faults.hung = true
        if (faults.hung) yield* Effect.sleep(Duration.minutes(10))
        if (fault === "model-timeout") {
          yield* Effect.sleep(Duration.seconds(60))
          return yield* Effect.fail(new LlmTimeout({ reason: "llm: no answer within 60 s (simulated)" }))
        }
        if (fault === "model-5xx")
          return yield* Effect.fail(new LlmUnavailable({ reason: "llm: HTTP 503 from the server (simulated)" }))
        if (fault === "model-garbage") return "}{ not json — <<garbage>> \u0000\u001b[31m"
        const text = linesOf(request)
        if (request.system === EPISODE_SYSTEM_PROMPT) return summaryOf(text)
        if (request.system === COMBINED_SYSTEM_PROMPT)
          return JSON.stringify({ summary: summaryOf(text), facts: factsOf(text) })
        if (request.system === FACTS_SYSTEM_PROMPT) return JSON.stringify(factsOf(text))
        const entries = /Entries for (?:user|env):\n([\s\S]*)$/u.exec(text)
        if (text.includes("Consolidate the following memory entries") && entries !== null) {
          const listed = entries[1]!.split("\n").filter((l) => l.trim() !== "")
          // now and then a careless answer that drops an entry: the coverage rule must refuse it
          return JSON.stringify(text.length % 3 === 0 ? listed.slice(1) : demoConsolidation(listed))
        }
        if (/Existing entry: ".*"\nNew entry: ".*"/u.test(text)) return text.length % 2 === 0 ? "merge" : "add"
        return yield* Effect.fail(new LlmBadResponse({ reason: "llm: a request the simulated model does not know" }))
      })
  })

/** The local embedder behind a switch: down for a step. */
const faultyEmbedder = (faults: Faults) =>
  Layer.effect(
    Embedder,
    Effect.map(Embedder, (inner) => {
      // an outage lasts the whole step it strikes in: every call of it fails, not just the first
      let outage = false
      const down = () => {
        if (take(faults, "embed-outage") !== undefined) outage = true
        if (!faults.striking) outage = false
        return outage
      }
      const failed = Effect.fail(new EmbedFailed({ text: "embedding: server unavailable (simulated)" }))
      return Embedder.of({
        space: inner.space,
        embed: (corpus, texts) => (down() ? failed : inner.embed(corpus, texts)),
        ...(inner.similarities === undefined
          ? {}
          : { similarities: (corpus, query) => (down() ? failed : inner.similarities!(corpus, query)) })
      })
    })
  ).pipe(Layer.provide(WeightedEmbedder.layer(256)))

/** The app's services over `store` and `derived`, as the live layer composes them, with the switch in front. */
const services = (faults: Faults, store: Layer.Layer<EventStore>, derived: Layer.Layer<DerivedFiles>) => {
  const base = Layer.mergeAll(
    faultyStore(faults).pipe(Layer.provide(store)),
    faultyEmbedder(faults),
    Layer.sync(Llm, () => simLlm(faults)),
    NoGuard.layer,
    Settings.layer(SIM_CONFIG),
    Notifiers.silent,
    Approvals.auto,
    Logger.remove(Logger.defaultLogger)
  )
  const app = Layer.mergeAll(
    capConsolidationLayer,
    Background.layerWith(BACKGROUND_DRAIN),
    AtomActivity.layer,
    AtomLlm.main,
    AtomEmbedder.main,
    Layer.mergeAll(EpisodeIndex.layer, AtomIndex.layer, LocalEpisodeSearch.layer, LocalEpisodeSearch.atomLayer).pipe(
      Layer.provide(derived)
    )
  )
  // a build is a fresh start: whatever hung in the last one is gone with it
  return Layer.effectDiscard(Effect.sync(() => void (faults.hung = false))).pipe(
    Layer.provideMerge(app.pipe(Layer.provideMerge(base)))
  )
}

const switchOf = (faults: Faults) => ({
  arm: (fault: Fault) => void (faults.pending = fault),
  clear: () => void (faults.pending = undefined),
  strike: (on: boolean) => void (faults.striking = on)
})

/**
 * The in-memory store: one store for the whole run, so a restart keeps what was written. `store` replaces it (a test
 * gives a broken one to show the run catches it).
 */
export const memoryWorld = (options: { readonly store?: EventStore["Type"] } = {}): SimWorld => {
  const faults: Faults = { pending: undefined, hung: false, striking: false }
  const store = options.store ?? Effect.runSync(MemoryEventStore.make)
  const derived = MemoryDerivedFiles.make()
  return {
    name: "memory",
    services: services(faults, Layer.succeed(EventStore, store), Layer.succeed(DerivedFiles, derived)),
    ...switchOf(faults)
  }
}

const JOURNALS = ["facts/user.jsonl", "facts/env.jsonl", "episodes.jsonl"]

/**
 * The disk store in a fresh temporary directory (`dispose` removes it): each restart a new store instance, as a new
 * process; a person's saves of the fact files, in place or by rename; a crashed writer's torn journal line.
 */
export const diskWorld = (options: { readonly dir?: string } = {}): SimWorld & { readonly dir: string } => {
  const faults: Faults = { pending: undefined, hung: false, striking: false }
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "tmem-simulate-"))
  const files = fsFaults(dir)
  const store = DiskEventStore.layer({
    dir,
    projections: odekProjections({ user: SIM_CONFIG.factsLimitUser, env: SIM_CONFIG.factsLimitEnv }),
    // a save here is complete when the call returns: nothing to wait for
    settleMs: 0,
    // the writer dies here: its journal line is durable, its projection still the old file
    beforeProjectionRename: () => {
      if (take(faults, "crash-before-rename") !== undefined) throw new Error("simulated crash before the rename")
    }
  }).pipe(Layer.provide(NodeFiles))
  const base = switchOf(faults)
  const file = (target: "user" | "env") => path.join(dir, `${target}.md`)
  let torn = 0
  return {
    name: "disk",
    dir,
    services: services(faults, store, DiskDerivedFiles.layer({ dir })),
    arm: (fault: Fault) => (fault.startsWith("fs-") ? files.arm(fault as FsFault) : base.arm(fault)),
    clear: () => {
      files.clear()
      base.clear()
    },
    strike: (on: boolean) => {
      files.strike(on)
      base.strike(on)
    },
    disk: {
      handEdit: (target: "user" | "env", text: string, inPlace: boolean) => {
        // a person's editor is not the store: the store's faults do not strike its save
        const striking = faults.striking
        files.strike(false)
        try {
          if (inPlace) fs.writeFileSync(file(target), text)
          else {
            const temp = `${file(target)}.editor-swap`
            fs.writeFileSync(temp, text)
            fs.renameSync(temp, file(target))
          }
        } finally {
          files.strike(striking)
        }
      },
      tear: () => {
        // a writer killed in the middle of its line: part of a batch, no newline, no feed line
        const journal = path.join(dir, "journal", JOURNALS[torn++ % JOURNALS.length]!)
        if (fs.existsSync(journal)) fs.appendFileSync(journal, '{"version":999999,"at":"2026-01-01T00:0')
      },
      projection: (target: "user" | "env") => (fs.existsSync(file(target)) ? fs.readFileSync(file(target), "utf8") : "")
    },
    dispose: Effect.sync(() => {
      files.dispose()
      fs.rmSync(dir, { recursive: true, force: true })
    })
  }
}

let pgRuns = 0

/**
 * A PostgreSQL database: each world its own schema (`dispose` drops it), each restart a new store instance over it,
 * as a new process on another host would open it. The driver loads only here.
 */
export const pgWorld = (url: string): SimWorld & { readonly schema: string } => {
  const faults: Faults = { pending: undefined, hung: false, striking: false }
  const schema = `tmem_sim_${process.pid}_${Date.now().toString(36)}_${pgRuns++}`
  const derived = MemoryDerivedFiles.make()
  const store = Layer.unwrapEffect(
    Effect.map(
      Effect.promise(() => import("../postgres/PgStore.js")),
      (m) => m.PgEventStore.layer({ url, schema, memory: "sim", applicationName: "tmem-simulate" })
    )
  )
  return {
    name: "postgres",
    schema,
    services: services(faults, store, Layer.succeed(DerivedFiles, derived)),
    ...switchOf(faults),
    dispose: Effect.promise(() => import("../postgres/PgStore.js").then((m) => m.dropSchema(url, schema)))
  }
}
