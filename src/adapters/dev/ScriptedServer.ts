import * as http from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { Effect, type Scope } from "effect"

/** One request as the scripted server saw it. */
export interface RecordedRequest {
  readonly method: string
  /** The request target as received, e.g. "/v1/chat/completions". */
  readonly path: string
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>
  /** Parsed JSON, or undefined if the body was not JSON. */
  readonly body: unknown
  /** The body as received. */
  readonly raw: string
}

/** What the server does for one request. `delayMs` (any variant) waits before acting. */
export type Reply = (
  | { readonly kind: "chat"; readonly content: string }
  | {
      readonly kind: "embeddings"
      readonly vectors: ReadonlyArray<ReadonlyArray<number>>
      readonly order?: ReadonlyArray<number>
    }
  | {
      readonly kind: "json"
      readonly status?: number
      readonly body: unknown
      readonly headers?: Readonly<Record<string, string>>
    }
  | { readonly kind: "status"; readonly status: number; readonly message?: string; readonly retryAfterSeconds?: number }
  | { readonly kind: "malformed"; readonly status?: number }
  | { readonly kind: "truncated" }
  | { readonly kind: "reset" }
  | { readonly kind: "oversize"; readonly bytes: number }
  | { readonly kind: "hang" }
) & { readonly delayMs?: number }

/** The script: a function of the request and its 0-based sequence number on this server. */
export type Handler = (request: RecordedRequest, n: number) => Reply | Promise<Reply>

/** An OpenAI-compatible server that answers from a script: the test double for every LLM and embedding client. */
export interface ScriptedServer {
  /** The base URL clients use: "http://127.0.0.1:<port>/v1". */
  readonly url: string
  readonly port: number
  /** Every request received, in order. */
  readonly requests: ReadonlyArray<RecordedRequest>
  /** TCP connections accepted so far: shows whether clients reuse keep-alive connections. */
  readonly connections: number
  /** Replaces the handler. */
  readonly script: (handler: Handler) => void
  /** One-shot replies, used first-in first-out before the handler. */
  readonly enqueue: (...replies: ReadonlyArray<Reply>) => void
  /** Forgets recorded requests and queued replies. */
  readonly reset: () => void
  /** Closes the server, destroying open and hanging connections. */
  readonly close: () => Promise<void>
}

export interface ScriptedServerOptions {
  readonly host?: string
  readonly port?: number
  readonly handler?: Handler
}

const errorType = (status: number) =>
  status === 429
    ? "rate_limit_error"
    : status === 401 || status === 403
      ? "authentication_error"
      : status >= 500
        ? "server_error"
        : "invalid_request_error"

const defaultMessage = (status: number) => http.STATUS_CODES[status] ?? `status ${status}`

const errorBody = (status: number, message: string, code: string | null = null) => ({
  error: { message, type: errorType(status), code }
})

const chatCompletion = (content: string, n: number, model: string) => ({
  id: `chatcmpl-scripted-${n}`,
  object: "chat.completion",
  created: Math.floor(Date.now() / 1000),
  model,
  choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
  usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }
})

const modelOf = (body: unknown): string => {
  const model = typeof body === "object" && body !== null ? (body as Record<string, unknown>)["model"] : undefined
  return typeof model === "string" ? model : "scripted"
}

const parseJson = (raw: string): unknown => {
  try {
    return JSON.parse(raw) as unknown
  } catch {
    return undefined
  }
}

/** Starts the server on 127.0.0.1 and a free port unless told otherwise. */
export const startScriptedServer = async (options: ScriptedServerOptions = {}): Promise<ScriptedServer> => {
  const host = options.host ?? "127.0.0.1"
  let handler: Handler | undefined = options.handler
  let queue: Array<Reply> = []
  let requests: Array<RecordedRequest> = []
  // the sequence number keeps counting across reset(), so scripts keyed on n never see a repeat
  let sequence = 0
  let connections = 0
  let closed = false
  const timers = new Set<NodeJS.Timeout>()

  const sendJson = (
    res: http.ServerResponse,
    status: number,
    body: unknown,
    headers: Readonly<Record<string, string>> = {}
  ) => {
    const text = JSON.stringify(body)
    res.writeHead(status, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) })
    res.end(text)
  }

  const defaultReply = (req: RecordedRequest): Reply => {
    const path = req.path.split("?")[0] ?? ""
    if (req.method === "GET" && path === "/v1/models") {
      return {
        kind: "json",
        body: { object: "list", data: [{ id: "scripted", object: "model", created: 0, owned_by: "scripted" }] }
      }
    }
    if (req.method === "POST" && (path === "/v1/chat/completions" || path === "/v1/embeddings")) {
      return {
        kind: "json",
        status: 501,
        body: errorBody(501, `no script is loaded for ${req.method} ${path}`, "not_scripted")
      }
    }
    return { kind: "json", status: 404, body: errorBody(404, `unknown path ${req.method} ${path}`, "not_found") }
  }

  const streamOversize = (res: http.ServerResponse, bytes: number, n: number, model: string) => {
    const marker = "@@PAD@@"
    const [head = "", tail = ""] = JSON.stringify(chatCompletion(marker, n, model)).split(marker)
    const padding = Math.max(0, bytes - Buffer.byteLength(head) - Buffer.byteLength(tail))
    // chunked, without a Content-Length: the client cannot refuse it up front and must count while reading
    res.writeHead(200, { "content-type": "application/json" })
    res.write(head)
    const chunk = Buffer.alloc(64 * 1024, "x")
    let left = padding
    // honour back-pressure so a client that stops reading does not make the server buffer the whole body
    const pump = () => {
      while (left > 0 && !res.destroyed) {
        const piece = chunk.subarray(0, Math.min(left, chunk.length))
        left -= piece.length
        if (!res.write(piece)) return void res.once("drain", pump)
      }
      if (!res.destroyed) res.end(tail)
    }
    pump()
  }

  const act = (reply: Reply, req: RecordedRequest, n: number, res: http.ServerResponse, socket: Socket) => {
    if (res.destroyed || socket.destroyed) return
    switch (reply.kind) {
      case "chat":
        return sendJson(res, 200, chatCompletion(reply.content, n, modelOf(req.body)))
      case "embeddings":
        return sendJson(res, 200, {
          object: "list",
          data: reply.vectors.map((embedding, i) => ({ object: "embedding", index: reply.order?.[i] ?? i, embedding })),
          model: modelOf(req.body),
          usage: { prompt_tokens: 0, total_tokens: 0 }
        })
      case "json":
        return sendJson(res, reply.status ?? 200, reply.body, reply.headers)
      case "status":
        return sendJson(
          res,
          reply.status,
          errorBody(reply.status, reply.message ?? defaultMessage(reply.status)),
          reply.retryAfterSeconds === undefined ? {} : { "retry-after": String(reply.retryAfterSeconds) }
        )
      case "malformed": {
        const text = "<html><body>this is not JSON</body></html>"
        res.writeHead(reply.status ?? 200, { "content-type": "text/html", "content-length": Buffer.byteLength(text) })
        return void res.end(text)
      }
      case "truncated": {
        const body = Buffer.from(JSON.stringify(chatCompletion("cut off", n, modelOf(req.body))))
        const sent = body.subarray(0, Math.floor(body.length / 2))
        res.writeHead(200, { "content-type": "application/json", "content-length": body.length })
        return void res.write(sent, () => socket.destroy())
      }
      case "reset":
        return void socket.destroy()
      case "oversize":
        return streamOversize(res, reply.bytes, n, modelOf(req.body))
      case "hang":
        return
    }
  }

  const server = http.createServer((incoming, res) => {
    const chunks: Array<Buffer> = []
    incoming.on("data", (c: Buffer) => chunks.push(c))
    incoming.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8")
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value
      }
      const recorded: RecordedRequest = {
        method: incoming.method ?? "GET",
        path: incoming.url ?? "/",
        headers,
        body: parseJson(raw),
        raw
      }
      const n = sequence++
      requests.push(recorded)
      const socket = incoming.socket
      const queued = queue.shift()
      const decided: Promise<Reply> =
        queued !== undefined
          ? Promise.resolve(queued)
          : handler !== undefined
            ? Promise.resolve().then(() => handler!(recorded, n))
            : Promise.resolve(defaultReply(recorded))
      decided
        .catch((e: unknown): Reply => ({
          kind: "json",
          status: 500,
          body: errorBody(500, `the script failed: ${e instanceof Error ? e.message : String(e)}`, "script_failed")
        }))
        .then((reply) => {
          if (closed) return
          const delay = reply.delayMs ?? 0
          if (delay <= 0) return act(reply, recorded, n, res, socket)
          const timer = setTimeout(() => {
            timers.delete(timer)
            act(reply, recorded, n, res, socket)
          }, delay)
          timers.add(timer)
        })
        .catch(() => {
          // a client that went away mid-reply is not the server's failure
        })
    })
  })
  server.on("connection", (socket: Socket) => {
    connections++
    socket.on("error", () => {})
  })
  server.on("clientError", (_err, socket) => socket.destroy())

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  const urlHost = host.includes(":") ? `[${host}]` : host

  return {
    url: `http://${urlHost}:${port}/v1`,
    port,
    get requests() {
      return requests
    },
    get connections() {
      return connections
    },
    script: (h) => {
      handler = h
    },
    enqueue: (...replies) => {
      queue.push(...replies)
    },
    reset: () => {
      requests = []
      queue = []
    },
    close: () => {
      if (closed) return Promise.resolve()
      closed = true
      for (const t of timers) clearTimeout(t)
      timers.clear()
      return new Promise<void>((resolve) => {
        server.close(() => resolve())
        // close() alone waits for keep-alive and hanging sockets, which may never end
        server.closeAllConnections()
      })
    }
  }
}

/** The server for the life of a scope. */
export const scriptedServer = (options?: ScriptedServerOptions): Effect.Effect<ScriptedServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => startScriptedServer(options)),
    (s) => Effect.promise(() => s.close())
  )
