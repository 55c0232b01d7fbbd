// Serves the memory server on this process's stdin/stdout until stdin closes (or the fiber is interrupted).
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { Effect, type Runtime } from "effect"
import type { Readable, Writable } from "node:stream"
import { makeMemoryServer, type MemoryServices, oneLineErrors } from "./server.js"

export interface StdioOptions {
  readonly stdin?: Readable
  readonly stdout?: Writable
}

/**
 * Counts the requests the client sent that are not answered yet, so that the end of stdin (`printf … | tmem mcp`)
 * still lets them finish: the server closes once the last answer is written.
 */
const trackRequests = (transport: StdioServerTransport) => {
  let open = 0
  let idle: Array<() => void> = []
  const settle = () => {
    if (open > 0) return
    const waiting = idle
    idle = []
    for (const f of waiting) f()
  }
  const onmessage = transport.onmessage
  transport.onmessage = (message: JSONRPCMessage) => {
    if ("method" in message && "id" in message) open++
    // a cancelled request is never answered
    else if ("method" in message && message.method === "notifications/cancelled") {
      open = Math.max(0, open - 1)
      settle()
    }
    onmessage?.(message)
  }
  const send = transport.send.bind(transport)
  transport.send = async (message: JSONRPCMessage) => {
    try {
      await send(oneLineErrors(message))
    } finally {
      if (("result" in message || "error" in message) && "id" in message) {
        open = Math.max(0, open - 1)
        settle()
      }
    }
  }
  return () => new Promise<void>((resolve) => (open === 0 ? resolve() : idle.push(resolve)))
}

/** Connects the server to stdio and waits for the end of stdin; stdout carries nothing but protocol messages. */
export const serveStdio = (runtime: Runtime.Runtime<MemoryServices>, options: StdioOptions = {}) => {
  const stdin = options.stdin ?? process.stdin
  const stdout = options.stdout ?? process.stdout
  return Effect.acquireUseRelease(
    Effect.promise(async () => {
      const server = makeMemoryServer(runtime)
      const transport = new StdioServerTransport(stdin, stdout)
      await server.connect(transport)
      return { server, answered: trackRequests(transport) }
    }),
    ({ server, answered }) =>
      Effect.async<void>((resume) => {
        let ended = false
        const onEnd = () => {
          if (ended) return
          ended = true
          void answered().then(() => resume(Effect.void))
        }
        stdin.once("end", onEnd)
        stdin.once("close", onEnd)
        server.server.onclose = onEnd
        return Effect.sync(() => {
          stdin.off("end", onEnd)
          stdin.off("close", onEnd)
        })
      }),
    ({ server }) => Effect.promise(() => server.close().catch(() => undefined))
  )
}
