// The MCP face of the memory: the `memory` tool and the two fact files as read-only resources, on the official SDK.
// Loaded only by `tmem mcp` (through a dynamic import), so ordinary commands never evaluate the SDK or zod.
import { MEMORY_TOOL_DESCRIPTION } from "../../app/toolSchema.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import type { CallToolResult, JSONRPCMessage, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js"
import { Cause, Effect, Either, Exit, ParseResult, Runtime, Schema } from "effect"
import * as z from "zod/v4"
import { screenFacts } from "../../app/facts.js"
import { ACTIONS, dispatchMemoryTool, FIELD_LIMIT, MemoryToolArgs, type ToolResult } from "../../app/memoryTool.js"
import { renderEntries } from "../../domain/facts/codec.js"
import { TARGETS, type Target } from "../../domain/facts/schema.js"
import { printable } from "../../domain/text/printable.js"

export const SERVER_NAME = "tiered-memory"
/** Kept equal to package.json's version (a test checks it); the CLI's `--version` says the same. */
export const SERVER_VERSION = "0.1.0"

/** The services the tool and the resources run on: what the live layer (or a test layer) provides. */
export type MemoryServices =
  Effect.Effect.Context<ReturnType<typeof dispatchMemoryTool>> | Effect.Effect.Context<ReturnType<typeof screenFacts>>

export const factsUri = (target: Target) => `memory://facts/${target}`

const bounded = `At most ${FIELD_LIMIT} UTF-8 bytes on a write.`

/**
 * The tool's input schema, field for field `MemoryToolArgs` (a test keeps the two in step). Plain strings rather than
 * enums: the tool itself answers an unknown action or target with its own one-line error.
 */
export const memoryToolShape = {
  action: z
    .string()
    .describe(`One of: ${ACTIONS.join(", ")}. The atom actions need extended memory (memory.extended.enabled).`),
  target: z.string().optional().describe("user or env (add, replace, remove, stats, consolidate); episodes for view"),
  content: z.string().optional().describe(`The new entry, for add and replace: one self-contained fact. ${bounded}`),
  old_text: z
    .string()
    .optional()
    .describe(
      `Selects the entry to replace or remove: the whole entry or a substring matching exactly one. ${bounded}`
    ),
  query: z.string().optional().describe("search: what to look for in past episodes; view: the episode's session id"),
  atom_id: z.string().optional().describe(`Extended memory only: an atom's id. ${bounded}`),
  pending_id: z.string().optional().describe(`Extended memory only: a pending review's id. ${bounded}`),
  atom_type: z.string().optional().describe(`Extended memory only: the kind of atom. ${bounded}`),
  confidence: z.number().optional().describe("Extended memory only: confidence in an atom, 0 to 1")
}

/** The tool's description, the same text every tool format carries (it codifies the eviction policy). */
export const MEMORY_TOOL_SUMMARY = MEMORY_TOOL_DESCRIPTION

const decodeArgs = Schema.decodeUnknownEither(MemoryToolArgs, { errors: "first" })

const describeCause = (cause: Cause.Cause<unknown>): string => {
  const e = Cause.squash(cause)
  if (e instanceof Error) return e.message
  if (typeof e === "object" && e !== null && "message" in e) return String((e as { message: unknown }).message)
  return String(e)
}

const toolResult = (result: ToolResult): CallToolResult =>
  result.success
    ? { content: [{ type: "text", text: JSON.stringify(result) }] }
    : { content: [{ type: "text", text: JSON.stringify(result) }], isError: true }

const oneLine = (text: string) => printable(text.replace(/\s+/g, " ").trim())

/**
 * An outgoing message with its errors on one printable line. The SDK refuses a malformed request before any handler
 * of ours runs, with zod's issue list as the message (pretty-printed JSON over many lines) or a text quoting the
 * request (a tool name or URI with a newline in it); the tool's own results are JSON already and pass unchanged.
 */
export const oneLineErrors = (message: JSONRPCMessage): JSONRPCMessage => {
  if ("error" in message) return { ...message, error: { ...message.error, message: oneLine(message.error.message) } }
  if (!("result" in message) || message.result.isError !== true || !Array.isArray(message.result.content))
    return message
  const content = (message.result.content as CallToolResult["content"]).map((c) => {
    if (c.type !== "text") return c
    try {
      JSON.parse(c.text)
      return c
    } catch {
      return { ...c, text: oneLine(c.text) }
    }
  })
  return { ...message, result: { ...message.result, content } }
}

/** The `tiered-memory` MCP server over the given runtime; connect it to a transport to serve. */
export const makeMemoryServer = (runtime: Runtime.Runtime<MemoryServices>): McpServer => {
  const run = Runtime.runPromiseExit(runtime)
  const mcp = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      instructions:
        "Long-term memory: call the memory tool (action read first); the fact files are also readable as resources."
    }
  )

  mcp.registerTool(
    "memory",
    { title: "Memory", description: MEMORY_TOOL_SUMMARY, inputSchema: memoryToolShape },
    async (args): Promise<CallToolResult> => {
      // zod has checked the shape; the tool's own schema gives the exact argument type (and the same messages as `tmem
      // tool`).
      const decoded = decodeArgs(args)
      if (Either.isLeft(decoded)) {
        const issue = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)[0]
        return toolResult({ success: false, error: `invalid arguments: ${issue?.message ?? decoded.left.message}` })
      }
      const exit = await run(dispatchMemoryTool(decoded.right))
      return Exit.isSuccess(exit)
        ? toolResult(exit.value)
        : toolResult({ success: false, error: `memory: internal error: ${describeCause(exit.cause)}` })
    }
  )

  for (const target of TARGETS) {
    const uri = factsUri(target)
    mcp.registerResource(
      `${target}.md`,
      uri,
      {
        title: `${target} facts`,
        description:
          target === "user"
            ? "The user fact file (read-only): entries separated by a line holding §. Change it with the memory tool."
            : "The environment fact file (read-only): entries separated by a line holding §. " +
              "Change it with the memory tool.",
        mimeType: "text/markdown"
      },
      async (): Promise<ReadResourceResult> => {
        // a client puts the resource before its model, so it is screened like the prompt (scan on load)
        const exit = await run(Effect.map(screenFacts(target), (screened) => renderEntries(screened.shown)))
        if (Exit.isFailure(exit)) throw new Error(`memory: cannot read ${target}.md: ${describeCause(exit.cause)}`)
        return { contents: [{ uri, mimeType: "text/markdown", text: exit.value }] }
      }
    )
  }

  return mcp
}
