import { Effect, FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { loadSession, recordMessage, recordMessages } from "../../src/app/sessions.js"
import type { ChatMessage, TrustZone } from "../../src/domain/sessions/message.js"
import { EventStore } from "../../src/ports/EventStore.js"
import { sessionCodec } from "../../src/domain/sessions/stream.js"
import { appLayer } from "../support/app.js"

const zone: TrustZone = { cwd: "/work/proj", roots: ["/work/proj", "/workspace"], realpath: (p) => p }

const message: fc.Arbitrary<ChatMessage> = fc.oneof(
  fc.string({ maxLength: 40 }).map((content) => ({ role: "user" as const, content })),
  fc.string({ maxLength: 40 }).map((content) => ({ role: "assistant" as const, content })),
  fc
    .record({
      name: fc.constantFrom("read_file", "browser", "shell", "web_search"),
      path: fc.constantFrom("/work/proj/a.ts", "/etc/hosts", "https://example.com")
    })
    .map(({ name, path }) => ({
      role: "assistant" as const,
      content: "",
      toolCalls: [{ name, arguments: JSON.stringify({ path, url: path, command: `cat ${path}` }) }]
    })),
  fc.string({ maxLength: 40 }).map((content) => ({ role: "tool" as const, content, toolName: "shell" }))
)
const item = fc.record({ message, buffer: fc.constantFrom(undefined, "user" as const, "agent" as const) })

describe("recordMessages (an ingest's one batch)", () => {
  it("leaves the session exactly as recording the messages one by one would, in one write", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(item, { minLength: 1, maxLength: 30 }), async (items) => {
        const [batched, single] = await Promise.all([
          Effect.runPromise(
            Effect.gen(function* () {
              yield* recordMessages("s1", items, zone)
              const batches = yield* (yield* EventStore).read("session/s1", sessionCodec)
              return { state: (yield* loadSession("s1")).state, writes: batches.length }
            }).pipe(Effect.provide(appLayer()))
          ),
          Effect.runPromise(
            Effect.gen(function* () {
              for (const i of items) yield* recordMessage("s1", i.message, zone, i.buffer)
              return (yield* loadSession("s1")).state
            }).pipe(Effect.provide(appLayer()))
          )
        ])
        expect(batched.writes).toBe(1)
        expect(batched.state.messages).toEqual(single.messages)
        expect(batched.state.taintSources).toEqual(single.taintSources)
        // buffer lines carry the minute they were recorded at: compare what they say
        expect(batched.state.buffer.map((l) => l.slice(l.indexOf(" ")))).toEqual(
          single.buffer.map((l) => l.slice(l.indexOf(" ")))
        )
      }),
      { numRuns: 150 }
    )
  })
})
