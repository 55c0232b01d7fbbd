import { Effect, Layer, ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { demoConsolidation } from "../src/adapters/dev/demoScript.js"
import { startScriptedServer } from "../src/adapters/dev/ScriptedServer.js"
import * as DiskEventStore from "../src/adapters/disk/DiskEventStore.js"
import * as OpenAiLlm from "../src/adapters/http/OpenAiLlm.js"
import { NodeFiles } from "../src/adapters/live.js"
import * as Notifiers from "../src/adapters/notify/Notifiers.js"
import * as RpEmbedder from "../src/adapters/rp/RpEmbedder.js"
import { CapConsolidation } from "../src/app/CapConsolidation.js"
import { consolidateFacts } from "../src/app/consolidation.js"
import { loadFacts, rewriteFacts } from "../src/app/facts.js"
import { Settings } from "../src/app/Settings.js"
import { DEFAULT_CONFIG, DEFAULT_LLM } from "../src/domain/config/MemoryConfig.js"
import { renderEntries } from "../src/domain/facts/codec.js"
import { utf8Bytes } from "../src/domain/text/utf8.js"
import { Llm } from "../src/ports/Llm.js"
import { fullEnvFile } from "./rp.js"
import { type BenchResult, median, nowMs, spread, table } from "./stats.js"
import * as NoGuard from "../src/adapters/guard/NoGuard.js"

/**
 * One consolidation pass on a full env file (8,000-byte cap, ~60 entries) on disk, against the scripted model.
 * The model's time is measured around the Llm call itself, so "overhead" is everything else the pass does: the
 * snapshot load, the prompt, parsing, the scan and coverage checks, the durable append and projection.
 */
export const runConsolidationBench = async (): Promise<BenchResult> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-bench-cons-"))
  let delayMs = 0
  // The server shares this process: its answer is computed once, so the model's time is the scripted delay.
  const answers = new Map<string, string>()
  const server = await startScriptedServer({
    handler: (r) => {
      const prompt = (r.body as { messages: Array<{ content: string }> }).messages.at(-1)!.content
      let content = answers.get(prompt)
      if (content === undefined) {
        content = JSON.stringify(demoConsolidation(prompt.split("Entries for env:\n")[1]!.split("\n")))
        answers.set(prompt, content)
      }
      return { kind: "chat", content, delayMs }
    }
  })
  let llmMs = 0
  const timedLlm = Layer.effect(
    Llm,
    Effect.map(Llm, (inner) =>
      Llm.of({
        info: inner.info,
        complete: (req) => {
          const a = nowMs()
          return inner.complete(req).pipe(Effect.ensuring(Effect.sync(() => void (llmMs = nowMs() - a))))
        }
      })
    )
  ).pipe(
    Layer.provide(
      OpenAiLlm.layer({ ...DEFAULT_LLM, provider: "openai", baseUrl: server.url, model: "scripted", maxRetries: 0 })
    )
  )
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(
      NoGuard.layer,
      DiskEventStore.layer({ dir }).pipe(Layer.provide(NodeFiles)),
      RpEmbedder.layer(256),
      timedLlm,
      CapConsolidation.disabled,
      Settings.layer(DEFAULT_CONFIG),
      Notifiers.silent
    )
  )
  // Pairs of near-duplicates, so every pass really merges (half the entries go).
  const base = fullEnvFile().slice(0, 30)
  const entries = base.flatMap((e) => [e, `${e} again`])
  const measure = async (delay: number, runs: number) => {
    delayMs = delay
    const total: Array<number> = []
    const model: Array<number> = []
    for (let i = 0; i < runs + 3; i++) {
      const current = await runtime.runPromise(loadFacts("env"))
      await runtime.runPromise(rewriteFacts("env", renderEntries(entries), current.version))
      const a = nowMs()
      const outcome = await runtime.runPromise(consolidateFacts("env", "cli"))
      const b = nowMs()
      if (outcome.kind !== "consolidated") throw new Error(`benchmark pass was ${outcome.kind}`)
      if (i >= 3) {
        total.push(b - a)
        model.push(llmMs)
      }
    }
    return { total, model, overhead: total.map((t, i) => t - model[i]!) }
  }
  try {
    const slow = await measure(200, 15)
    const fast = await measure(0, 60)
    const ratio = median(slow.overhead) / median(slow.model)
    const markdown = table(
      `Consolidation overhead excluding the model's time (env file of ${entries.length} entries, ` +
        `${utf8Bytes(renderEntries(entries))} bytes → ${base.length} entries; disk store; ` +
        "15 passes with a 200 ms reply, 60 immediate, each after 3 warm-up; medians (min – max))",
      ["model reply", "whole pass", "model call", "everything else", "ratio to model time (medians)"],
      [
        [
          "scripted, 200 ms",
          spread(slow.total),
          spread(slow.model),
          spread(slow.overhead),
          `${(ratio * 100).toFixed(1)} %`
        ],
        ["scripted, immediate", spread(fast.total), spread(fast.model), spread(fast.overhead), ""]
      ]
    )
    return { markdown, targets: [] }
  } finally {
    await runtime.dispose()
    await server.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log((await runConsolidationBench()).markdown)
