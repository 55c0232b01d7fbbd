import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { demoConsolidation } from "../../src/adapters/dev/demoScript.js"
import { type Reply, type ScriptedServer, startScriptedServer } from "../../src/adapters/dev/ScriptedServer.js"
import { CapConsolidation } from "../../src/app/CapConsolidation.js"
import { addFact, loadFacts } from "../../src/app/facts.js"
import type { LifecycleEvent } from "../../src/domain/events/lifecycle.js"
import { Effect } from "effect"
import { chats, entriesOf, scriptedRuntime } from "../support/llm.js"

let server: ScriptedServer
let inFlight = 0
let maxInFlight = 0
let delayMs = 0
const failures: Array<Reply> = []

beforeAll(async () => {
  server = await startScriptedServer({
    handler: async (r) => {
      inFlight++
      maxInFlight = Math.max(maxInFlight, inFlight)
      await new Promise((res) => setTimeout(res, delayMs))
      inFlight--
      return failures.shift() ?? { kind: "chat", content: JSON.stringify(demoConsolidation(entriesOf(r))) }
    }
  })
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
  inFlight = 0
  maxInFlight = 0
  delayMs = 0
  failures.length = 0
})

// 300-byte files, pass at 30 % (90 bytes): two of these facts stay under, the third crosses.
const config = { factsLimitUser: 300, factsLimitEnv: 300, consolidateAtCapPct: 30, mergeOnWrite: false }
const ENV = ["Uses pnpm 9 for installs", "The user uses pnpm 9 workspaces", "Deploys with Argo CD from infra"]
const USER = ["Prefers terse answers", "Prefers terse answers in code review", "Writes commit messages in English"]
const targetOf = (i: number) => /Entries for (\w+)/.exec(JSON.stringify(chats(server)[i]?.body))?.[1]

const runtime = (options: { cooldown?: number; events?: Array<LifecycleEvent>; pct?: number } = {}) =>
  scriptedRuntime(server, {
    config: { ...config, ...(options.pct !== undefined ? { consolidateAtCapPct: options.pct } : {}) },
    ...(options.events ? { events: options.events } : {}),
    cap: { cooldown: options.cooldown ?? 600_000 }
  })

const drain = Effect.flatMap(CapConsolidation, (c) => c.drain("10 seconds"))

describe("cap-triggered consolidation (spec facts §6.3)", () => {
  it("a genuine add that reaches the threshold starts a pass; below it nothing happens", async () => {
    const events: Array<LifecycleEvent> = []
    const rt = runtime({ events })
    await rt.runPromise(addFact("env", ENV[0]!))
    await rt.runPromise(addFact("env", ENV[1]!))
    await rt.runPromise(drain)
    expect(chats(server)).toHaveLength(0)
    const r = await rt.runPromise(addFact("env", ENV[2]!))
    expect(r.outcome.kind).toBe("added")
    await rt.runPromise(drain)
    expect(chats(server)).toHaveLength(1)
    expect(events.at(-1)).toMatchObject({ type: "fact_consolidated", target: "env", count: 3, newCount: 2 })
    // a duplicate is not a write and never triggers
    await rt.runPromise(addFact("env", ENV[2]!))
    await rt.runPromise(drain)
    expect(chats(server)).toHaveLength(1)
    await rt.dispose()
  })

  it("one pass at a time for both targets; crossings meanwhile queue per target", async () => {
    delayMs = 400 // long enough that the adds below all land while the first pass waits for its answer
    const events: Array<LifecycleEvent> = []
    const rt = runtime({ events })
    for (const f of ENV) await rt.runPromise(addFact("env", f)) // the third add starts the env pass
    for (const f of USER) await rt.runPromise(addFact("user", f)) // user queued behind it
    // env grows during its own pass: that pass is skipped for conflict (no cooldown) and env is queued after user
    await rt.runPromise(addFact("env", "Deploys with Argo CD from infra nightly"))
    await rt.runPromise(drain)
    expect(maxInFlight).toBe(1)
    expect([0, 1, 2].map(targetOf)).toEqual(["env", "user", "env"])
    expect(events.filter((e) => e.type === "fact_consolidated").map((e) => e.target)).toEqual(["user", "env"])
    await rt.dispose()
  })

  it("the cooldown starts only after a successful pass: a failure is retried at the next crossing", async () => {
    failures.push({ kind: "status", status: 500, message: "busy" })
    const rt = runtime({ cooldown: 400 })
    for (const f of ENV) await rt.runPromise(addFact("env", f))
    await rt.runPromise(drain)
    expect(chats(server)).toHaveLength(1)
    expect((await rt.runPromise(loadFacts("env"))).state.entries).toEqual(ENV) // failed, untouched
    await rt.runPromise(addFact("env", "Staging listens on port 5433"))
    await rt.runPromise(drain)
    expect(chats(server)).toHaveLength(2) // retried, succeeded: cooldown now runs
    await rt.runPromise(addFact("env", "Deploys with Argo CD from infra nightly"))
    await rt.runPromise(drain)
    expect(chats(server)).toHaveLength(2) // inside the cooldown: dropped
    await new Promise((res) => setTimeout(res, 500))
    await rt.runPromise(addFact("env", "Redis caches sessions for thirty minutes"))
    await rt.runPromise(drain)
    expect(chats(server)).toHaveLength(3) // after it: runs again
    await rt.dispose()
  })

  it("closing the memory waits for the running pass, so its result is not lost", async () => {
    delayMs = 300
    const rt = runtime()
    for (const f of ENV) await rt.runPromise(addFact("env", f))
    await rt.dispose()
    const check = runtime()
    // a fresh runtime has a fresh in-memory store, so look at what the server was asked and answered instead
    expect(chats(server)).toHaveLength(1)
    await check.dispose()
  })

  it(
    "closing stops waiting at the drain timeout when the model hangs " + "(the pass is interrupted, nothing applied)",
    async () => {
      failures.push({ kind: "hang" })
      // the model's own timeout (60 s) is far beyond the drain: only an interrupting drain lets dispose return
      const rt = scriptedRuntime(server, {
        config,
        cap: { cooldown: 600_000, drainTimeout: 50 },
        llm: { timeoutSeconds: 60 }
      })
      for (const f of ENV) await rt.runPromise(addFact("env", f))
      while (chats(server).length === 0) await new Promise((r) => setTimeout(r, 10))
      await rt.dispose()
      expect(chats(server)).toHaveLength(1)
    },
    15_000
  )

  it("consolidate_at_cap_pct 0 disables the trigger", async () => {
    const rt = runtime({ pct: 0 })
    for (const f of ENV) await rt.runPromise(addFact("env", f))
    await rt.runPromise(drain)
    expect(chats(server)).toHaveLength(0)
    await rt.dispose()
  })
})
