// `tmem mcp` on stdio, in process (the real transport over two pipes, the app over a memory on disk): any line a
// client may write is answered or dropped without harm. The server stays up, every request gets exactly one
// answer, every error is one printable line, and nothing but a successful call changes the memory's files.
import { isJSONRPCRequest, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, FastCheck as fc, ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { PassThrough } from "node:stream"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { serveStdio } from "../../src/adapters/mcp/stdio.js"
import { addFact } from "../../src/app/facts.js"
import { appLayer } from "../support/app.js"
import { diskLayer } from "../support/stores.js"
import {
  anyJson,
  anyText,
  deeplyNested,
  expectOneLine,
  expectSameFiles,
  expectToolError,
  snapshotDir,
  tally,
  truncated,
  withExtraKeys
} from "./support.js"

type Message = Record<string, unknown>

/** Ids of the right type and of every wrong one. */
const id = fc.oneof(
  { weight: 4, arbitrary: fc.integer() },
  { weight: 2, arbitrary: fc.string({ maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, -0, 1.5, true, [], {}, "") },
  { weight: 1, arbitrary: anyJson }
)

/** A request; now and then a notification (no id), without params, or of another JSON-RPC version. */
const request = (method: fc.Arbitrary<unknown>, params: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.record({ jsonrpc: fc.constant("2.0"), id, method, params }) },
    {
      weight: 1,
      arbitrary: fc.record(
        { jsonrpc: fc.oneof(fc.constant("2.0"), anyJson), id, method, params },
        { requiredKeys: ["method"] }
      )
    }
  )

const METHODS = [
  "initialize",
  "ping",
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "resources/subscribe",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "logging/setLevel",
  "notifications/initialized",
  "notifications/cancelled",
  "notifications/roots/list_changed"
] as const

/** The messages a client sends, each right in shape and wrong in detail, and some of no known shape. */
const message: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: request(
      fc.constant("tools/call"),
      fc.oneof(
        {
          weight: 6,
          arbitrary: fc.record({
            name: fc.oneof({ weight: 8, arbitrary: fc.constant("memory") }, anyText()),
            arguments: fc.oneof({ weight: 6, arbitrary: withExtraKeys }, anyJson)
          })
        },
        { weight: 1, arbitrary: fc.record({ name: anyJson, arguments: anyJson, _meta: anyJson }, { requiredKeys: [] }) }
      )
    )
  },
  {
    weight: 2,
    arbitrary: request(
      fc.constant("resources/read"),
      fc.record({
        uri: fc.oneof(
          fc.constantFrom("memory://facts/user", "memory://facts/env", "memory://facts/episodes", "file:///etc/passwd"),
          anyText(),
          anyJson
        )
      })
    )
  },
  { weight: 2, arbitrary: request(fc.oneof(fc.constantFrom(...METHODS), anyText()), anyJson) },
  {
    weight: 1,
    arbitrary: fc.record({ jsonrpc: fc.constant("2.0"), id, result: anyJson, error: anyJson }, { requiredKeys: ["id"] })
  },
  { weight: 1, arbitrary: anyJson }
)

/** What goes down the pipe: a message's JSON, cut short, with a BOM or CR, or any text at all. */
const line = fc.oneof(
  { weight: 8, arbitrary: message.map((m) => JSON.stringify(m) ?? "null") },
  { weight: 1, arbitrary: message.chain((m) => truncated(JSON.stringify(m) ?? "").map((t) => t.toString())) },
  { weight: 1, arbitrary: message.map((m) => `\ufeff${JSON.stringify(m)}`) },
  { weight: 1, arbitrary: message.map((m) => `${JSON.stringify(m)}\r`) },
  { weight: 1, arbitrary: anyText() },
  { weight: 1, arbitrary: deeplyNested }
)

/** The requests the SDK will read from `text` (it splits on LF, decodes UTF-8 and parses each line). */
const requestsIn = (text: string): Array<Message> =>
  Buffer.from(text, "utf8")
    .toString("utf8")
    .split("\n")
    .slice(0, -1)
    .flatMap((l) => {
      try {
        const parsed = JSONRPCMessageSchema.safeParse(JSON.parse(l.replace(/\r$/, "")))
        return parsed.success && isJSONRPCRequest(parsed.data) ? [parsed.data as Message] : []
      } catch {
        return []
      }
    })

const dirs: Array<string> = []
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true })
})

/** The server over two pipes, and a client's side of them: write lines, await the answer to an id. */
const connect = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-fuzz-mcp-"))
  dirs.push(dir)
  const managed = ManagedRuntime.make(
    appLayer({
      store: diskLayer(dir),
      // no cap consolidation: it runs in the background after an add, and would write while a later input is judged
      config: { factsLimitUser: 600, consolidateAtCapPct: 0 }
    })
  )
  await managed.runPromise(
    Effect.all([addFact("user", "Prefers tabs over spaces"), addFact("env", "Deploys go through Argo CD")])
  )
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  const answers: Array<Message> = []
  const waiting = new Map<string, () => void>()
  let pending = ""
  stdout.setEncoding("utf8")
  stdout.on("data", (chunk: string) => {
    pending += chunk
    for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
      const text = pending.slice(0, nl)
      pending = pending.slice(nl + 1)
      const answer = JSON.parse(text) as Message
      answers.push(answer)
      const key = JSON.stringify(answer.id)
      waiting.get(key)?.()
      waiting.delete(key)
    }
  })
  const serving = managed.runPromise(serveStdio(await managed.runtime(), { stdin, stdout }))
  /** Resolves once `count` answers carry `id` (at most 10 s). */
  const answered = (id: unknown, count: number) =>
    new Promise<void>((resolve, reject) => {
      const key = JSON.stringify(id)
      const check = () => {
        if (answers.filter((a) => JSON.stringify(a.id) === key).length >= count) {
          clearTimeout(timer)
          resolve()
        } else waiting.set(key, check)
      }
      const timer = setTimeout(() => reject(new Error(`no answer to request ${key}`)), 10_000)
      check()
    })
  let sync = 0
  /** Writes `text`, then a ping, and waits for the ping's answer and for the answer to every request in `text`. */
  const exchange = async (text: string) => {
    const before = answers.length
    const ping = `sync-${++sync}`
    stdin.write(text)
    stdin.write(`\n${JSON.stringify({ jsonrpc: "2.0", id: ping, method: "ping" })}\n`)
    const requests = requestsIn(`${text}\n`)
    await answered(ping, 1)
    const counts = new Map<string, number>()
    for (const r of requests) counts.set(JSON.stringify(r.id), (counts.get(JSON.stringify(r.id)) ?? 0) + 1)
    const prior = (key: string) => answers.slice(0, before).filter((a) => JSON.stringify(a.id) === key).length
    await Promise.all([...counts].map(([key, n]) => answered(JSON.parse(key), prior(key) + n)))
    return { requests, answers: answers.slice(before).filter((a) => a.id !== ping) }
  }
  const close = async () => {
    stdin.end()
    await serving
    await managed.dispose()
  }
  return { dir, exchange, close }
}

/** The one-line checks on an answer; what kind of answer it was (all but "succeeded" are refusals). */
const checkAnswer = (answer: Message): "succeeded" | "JSON-RPC error" | "tool refusal" | "SDK refusal" => {
  const error = answer.error as { message?: unknown } | undefined
  if (error !== undefined) {
    expectOneLine(error.message)
    return "JSON-RPC error"
  }
  const result = answer.result as { isError?: boolean; content?: Array<{ type: string; text?: string }> } | undefined
  if (result?.content === undefined || result.isError !== true) return "succeeded"
  let kind: "tool refusal" | "SDK refusal" = "tool refusal"
  for (const c of result.content) {
    if (c.type !== "text") continue
    // the tool's own refusals are its JSON result; what the SDK refuses before the tool runs is plain text
    let body: unknown
    try {
      body = JSON.parse(c.text!)
    } catch {
      kind = "SDK refusal"
    }
    if (typeof body === "object" && body !== null) expectToolError((body as { error?: unknown }).error)
    else expectOneLine(c.text)
  }
  return kind
}

describe("the MCP server on stdio, on any line a client writes", () => {
  let server: Awaited<ReturnType<typeof connect>>
  beforeAll(async () => {
    server = await connect()
    const init = await server.exchange(
      `${JSON.stringify({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "0" } }
      })}\n${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}`
    )
    expect(init.answers).toHaveLength(1)
  })
  afterAll(async () => {
    await server?.close()
  })

  it("answers each request once; errors are one printable line; a refusal changes no file (500 runs)", async () => {
    const seen = tally()
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 3 }), async (lines) => {
        const before = snapshotDir(server.dir)
        const { requests, answers } = await server.exchange(lines.join("\n"))
        expect(answers.length, "one answer per request, none to anything else").toBe(requests.length)
        let wrote = false
        for (const answer of answers) {
          const outcome = checkAnswer(answer)
          seen.hit(outcome)
          const call = requests.some(
            (r) => r.method === "tools/call" && JSON.stringify(r.id) === JSON.stringify(answer.id)
          )
          if (outcome === "succeeded" && call) wrote = true
        }
        if (requests.length === 0) seen.hit("no request")
        // a message that is no request, or a request that was refused, may not have written anything
        if (!wrote) expectSameFiles(before, snapshotDir(server.dir), `after ${JSON.stringify(lines)}`)
      }),
      { numRuns: 500 }
    )
    for (const kind of ["JSON-RPC error", "tool refusal", "SDK refusal", "no request"])
      expect(seen.of(kind), seen.toString()).toBeGreaterThan(20)
    expect(seen.of("succeeded"), seen.toString()).toBeGreaterThan(15)
    // and it still serves
    const last = await server.exchange(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "last",
        method: "tools/call",
        params: { name: "memory", arguments: { action: "stats", target: "user" } }
      })
    )
    expect(last.answers[0]?.result).toMatchObject({ content: [{ type: "text" }] })
  })
})
