import { ACTIONS, FIELD_LIMIT } from "./memoryTool.js"

/** The subset of JSON Schema (draft 2020-12) that OpenAI, Anthropic and MCP tool definitions all accept. */
export interface JsonSchemaProperty {
  readonly type: "string" | "number"
  readonly description: string
  readonly enum?: ReadonlyArray<string>
  readonly maxLength?: number
}

export interface JsonSchemaObject {
  readonly type: "object"
  readonly properties: Readonly<Record<string, JsonSchemaProperty>>
  readonly required: ReadonlyArray<string>
}

// The byte bound is what the tool enforces; `maxLength` counts characters, so as a hint it is never stricter.
const bounded =
  `At most ${FIELD_LIMIT} UTF-8 bytes on a write ` + `(not characters: an accented letter is 2 bytes, a dash — 3).`

/** The `memory` tool's arguments as JSON Schema (spec facts §4.1); it mirrors `MemoryToolArgs` field for field. */
export const memoryToolJsonSchema: JsonSchemaObject = {
  type: "object",
  properties: {
    action: {
      type: "string",
      enum: ACTIONS,
      description:
        "read: both fact files. add/replace/remove: edit one target. stats: a target's fill and entries. " +
        "consolidate: merge a target's related entries. search: past episode summaries. view: one episode. " +
        "Extended memory (when memory.extended.enabled): add_atom stores content as an atom (atom_type, " +
        "confidence); search_atoms finds atoms by query; forget_atom and pin_atom take atom_id; list_quarantine " +
        "lists atoms held for a person's review. A person confirms inferences on the CLI: confirm_pending_review " +
        "always refuses; reject_pending_review and list_pending_review work on the pending-review queue."
    },
    target: {
      type: "string",
      enum: ["user", "env", "episodes"],
      maxLength: FIELD_LIMIT,
      description:
        "user: facts about the user (preferences, habits). env: facts about this machine and its projects. " +
        "episodes: only for view. Required by add, replace, remove, stats and consolidate."
    },
    content: {
      type: "string",
      maxLength: FIELD_LIMIT,
      description: `The new entry, for add and replace: one self-contained fact. ${bounded}`
    },
    old_text: {
      type: "string",
      maxLength: FIELD_LIMIT,
      description:
        `Selects the entry to replace or remove: the whole entry or a substring ` +
        `that matches exactly one. ${bounded}`
    },
    query: {
      type: "string",
      description: "search: what to look for in past episodes. view: the episode's session id."
    },
    atom_id: { type: "string", maxLength: FIELD_LIMIT, description: `Extended memory only: an atom's id. ${bounded}` },
    pending_id: {
      type: "string",
      maxLength: FIELD_LIMIT,
      description: `Extended memory only: a pending review's id. ${bounded}`
    },
    atom_type: {
      type: "string",
      maxLength: FIELD_LIMIT,
      description: `Extended memory only: the kind of atom. ${bounded}`
    },
    confidence: { type: "number", description: "Extended memory only: confidence in an atom, 0 to 1." }
  },
  // No `additionalProperties: false`: the tool ignores unknown fields, and the schema says no more than the tool
  // checks.
  required: ["action"]
}

/** What the agent is told about memory: it codifies the eviction policy (spec facts §4.1, §6.4). */
export const MEMORY_TOOL_DESCRIPTION = [
  "Persistent memory across sessions, in two bounded fact files: user (who the user is, how they like to work) " +
    "and env (this machine, its tools and projects).",
  "read shows both; add, replace and remove edit one target; stats shows a target's fill (used/cap bytes) " +
    "and its entries; consolidate merges related entries.",
  "add merges with a near-duplicate entry (merge-on-write), so update an entry rather than adding a variant.",
  "Nothing is evicted for you: when a target is at cap, the write fails and the error lists the entries.",
  "Evict the lowest-value entries yourself with remove or replace — records recoverable from git/GitHub first, " +
    "pointers to untracked local work last — then retry.",
  "Run stats before large writes, and when the prompt warns that a file is 90% full or more.",
  `Each field of a write is limited to ${FIELD_LIMIT} bytes (UTF-8); split longer facts.`,
  "Never store secrets or credentials, instructions to yourself or other agents, or ephemeral task details.",
  "search finds past episode summaries; view (target episodes, query = session id) reads one.",
  "Episodes pending review cannot be viewed: promoting one is a human act, never a tool call."
].join(" ")

export type ToolFormat = "openai" | "anthropic" | "mcp"
export const TOOL_FORMATS: ReadonlyArray<ToolFormat> = ["openai", "anthropic", "mcp"]

export interface OpenAiToolDefinition {
  readonly type: "function"
  readonly function: { readonly name: "memory"; readonly description: string; readonly parameters: JsonSchemaObject }
}
export interface AnthropicToolDefinition {
  readonly name: "memory"
  readonly description: string
  readonly input_schema: JsonSchemaObject
}
export interface McpToolDefinition {
  readonly name: "memory"
  readonly description: string
  readonly inputSchema: JsonSchemaObject
}

/** The `memory` tool as each API spells a tool definition. */
export function toolDefinition(format: "openai"): OpenAiToolDefinition
export function toolDefinition(format: "anthropic"): AnthropicToolDefinition
export function toolDefinition(format: "mcp"): McpToolDefinition
export function toolDefinition(format: ToolFormat): OpenAiToolDefinition | AnthropicToolDefinition | McpToolDefinition
export function toolDefinition(format: ToolFormat): OpenAiToolDefinition | AnthropicToolDefinition | McpToolDefinition {
  const description = MEMORY_TOOL_DESCRIPTION
  switch (format) {
    case "openai":
      return { type: "function", function: { name: "memory", description, parameters: memoryToolJsonSchema } }
    case "anthropic":
      return { name: "memory", description, input_schema: memoryToolJsonSchema }
    case "mcp":
      return { name: "memory", description, inputSchema: memoryToolJsonSchema }
  }
}
