import { Effect, Either, SchemaAST } from "effect"
import { describe, expect, it } from "vitest"
import {
  ACTIONS,
  dispatchMemoryTool,
  FIELD_LIMIT,
  MemoryToolArgs,
  MUTATING_ACTIONS,
  parseToolArgs
} from "../../src/app/memoryTool.js"
import {
  type JsonSchemaObject,
  MEMORY_TOOL_DESCRIPTION,
  memoryToolJsonSchema,
  TOOL_FORMATS,
  toolDefinition
} from "../../src/app/toolSchema.js"
import { appLayer } from "../support/app.js"

/**
 * Validates a value against the JSON Schema subset the tool schema uses: type, enum, required, properties, maxLength.
 */
const violations = (schema: JsonSchemaObject, value: unknown): ReadonlyArray<string> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return ["not an object"]
  const obj = value as Record<string, unknown>
  const out: Array<string> = []
  for (const name of schema.required) if (!(name in obj)) out.push(`${name}: required`)
  for (const [name, v] of Object.entries(obj)) {
    const p = schema.properties[name]
    if (p === undefined) continue // no additionalProperties: extra fields are allowed, as the tool ignores them
    if (p.type === "string" && typeof v !== "string") out.push(`${name}: not a string`)
    else if (p.type === "number" && (typeof v !== "number" || !Number.isFinite(v))) out.push(`${name}: not a number`)
    else if (p.enum !== undefined && !p.enum.includes(v as string)) out.push(`${name}: not in enum`)
    else if (p.maxLength !== undefined && typeof v === "string" && [...v].length > p.maxLength)
      out.push(`${name}: too long`)
  }
  return out
}

const schemaFields = Object.keys(memoryToolJsonSchema.properties).sort()
const argsFields = Object.keys(MemoryToolArgs.fields).sort()

/** One valid call per action. */
const accepted: Record<(typeof ACTIONS)[number], Record<string, unknown>> = {
  add: { action: "add", target: "user", content: "Prefers dark mode" },
  replace: { action: "replace", target: "env", old_text: "Go 1.22", content: "Go 1.23" },
  remove: { action: "remove", target: "env", old_text: "Go 1.23" },
  stats: { action: "stats", target: "user" },
  consolidate: { action: "consolidate", target: "env" },
  read: { action: "read" },
  search: { action: "search", query: "deploys" },
  view: { action: "view", target: "episodes", query: "session-1" },
  add_atom: { action: "add_atom", content: "x", atom_type: "fact", confidence: 0.8 },
  search_atoms: { action: "search_atoms", query: "x" },
  forget_atom: { action: "forget_atom", atom_id: "a1" },
  list_quarantine: { action: "list_quarantine" },
  pin_atom: { action: "pin_atom", atom_id: "a1" },
  confirm_pending_review: { action: "confirm_pending_review", pending_id: "p1" },
  reject_pending_review: { action: "reject_pending_review", pending_id: "p1" },
  list_pending_review: { action: "list_pending_review" }
}

describe("memoryToolJsonSchema", () => {
  it("has the same fields as MemoryToolArgs, with only action required", () => {
    expect(schemaFields).toEqual(argsFields)
    expect(memoryToolJsonSchema.required).toEqual(["action"])
    expect(memoryToolJsonSchema.type).toBe("object")
    // optional in one means optional in the other
    const ast = MemoryToolArgs.ast
    if (!SchemaAST.isTypeLiteral(ast)) throw new Error("MemoryToolArgs is not a struct")
    for (const ps of ast.propertySignatures)
      expect(memoryToolJsonSchema.required.includes(String(ps.name)), String(ps.name)).toBe(!ps.isOptional)
  })

  it("lists every action, user/env/episodes targets, and describes atom actions as extended memory", () => {
    expect(memoryToolJsonSchema.properties.action?.enum).toEqual([...ACTIONS])
    expect(memoryToolJsonSchema.properties.target?.enum).toEqual(["user", "env", "episodes"])
    expect(memoryToolJsonSchema.properties.target?.description).toMatch(/episodes: only for view/)
    const actionText = memoryToolJsonSchema.properties.action?.description ?? ""
    for (const a of ACTIONS.filter((a) => a.includes("atom") || a.includes("pending") || a.includes("quarantine")))
      expect(actionText).toContain(a)
    expect(actionText).toMatch(/Extended memory \(when memory.extended.enabled\)/)
  })

  it("hints the 2048-byte bound on every bounded field, saying the bound is in UTF-8 bytes", () => {
    for (const f of ["content", "old_text", "target", "atom_id", "pending_id", "atom_type"]) {
      expect(memoryToolJsonSchema.properties[f]?.maxLength, f).toBe(FIELD_LIMIT)
    }
    for (const f of ["content", "old_text", "atom_id", "pending_id", "atom_type"])
      expect(memoryToolJsonSchema.properties[f]?.description, f).toMatch(/2048 UTF-8 bytes/)
    expect(memoryToolJsonSchema.properties.query?.maxLength).toBeUndefined() // read-only: no bound
    expect(memoryToolJsonSchema.properties.confidence?.type).toBe("number")
  })

  it("survives a JSON round-trip unchanged", () => {
    expect(JSON.parse(JSON.stringify(memoryToolJsonSchema))).toEqual(memoryToolJsonSchema)
    for (const f of TOOL_FORMATS) expect(JSON.parse(JSON.stringify(toolDefinition(f)))).toEqual(toolDefinition(f))
  })

  describe("accepts one call per action, and so does parseToolArgs", () => {
    for (const [action, call] of Object.entries(accepted)) {
      it(action, () => {
        expect(violations(memoryToolJsonSchema, call)).toEqual([])
        expect(Either.getOrThrow(parseToolArgs(JSON.stringify(call)))).toEqual(call)
      })
    }
    it("covers every action", () => expect(Object.keys(accepted).sort()).toEqual([...ACTIONS].sort()))
  })

  // Shape errors are refused by parseToolArgs itself; enum errors parse but the dispatcher refuses them.
  const shapeRejected: ReadonlyArray<[string, unknown]> = [
    ["a missing action", { target: "user" }],
    ["a numeric action", { action: 3 }],
    ["numeric content", { action: "add", target: "user", content: 5 }],
    ["a boolean old_text", { action: "remove", target: "user", old_text: true }],
    ["an array query", { action: "search", query: ["x"] }],
    ["a null target", { action: "stats", target: null }],
    ["a string confidence", { action: "add_atom", confidence: "high" }],
    ["an array", [{ action: "read" }]],
    ["a string", "read"]
  ]
  describe("rejects malformed calls, and so does parseToolArgs", () => {
    for (const [what, call] of shapeRejected)
      it(what, () => {
        expect(violations(memoryToolJsonSchema, call)).not.toEqual([])
        expect(parseToolArgs(JSON.stringify(call))).toMatchObject({
          _tag: "Left",
          left: expect.stringMatching(/^invalid arguments: /)
        })
      })
  })

  const enumRejected: ReadonlyArray<[string, Record<string, unknown>, RegExp]> = [
    ["an unknown action", { action: "frobnicate" }, /^unknown action: "frobnicate"$/],
    ["an unknown target", { action: "stats", target: "global" }, /must be 'user' or 'env'/],
    ["an unknown add target", { action: "add", target: "project", content: "x" }, /must be 'user' or 'env'/]
  ]
  describe("rejects unknown enum values; parseToolArgs lets them through and the dispatcher refuses them", () => {
    for (const [what, call, error] of enumRejected)
      it(what, async () => {
        expect(violations(memoryToolJsonSchema, call)).not.toEqual([])
        const parsed = Either.getOrThrow(parseToolArgs(JSON.stringify(call)))
        const result = await Effect.runPromise(dispatchMemoryTool(parsed).pipe(Effect.provide(appLayer())))
        expect(result).toMatchObject({ success: false, error: expect.stringMatching(error) })
      })
  })

  // Per-action rules (which target, which fields) are beyond a flat schema: the schema lets these through, the tool
  // refuses them.
  const crossField: ReadonlyArray<[string, Record<string, unknown>, RegExp]> = [
    ["view of a fact file", { action: "view", target: "user", query: "s1" }, /target must be .episodes./],
    ["add to episodes", { action: "add", target: "episodes", content: "x" }, /must be 'user' or 'env'/],
    ["add without content", { action: "add", target: "user" }, /^content is required for add$/],
    ["stats without a target", { action: "stats" }, /^target is required for stats/]
  ]
  describe("leaves per-action rules to the tool, which refuses these", () => {
    for (const [what, call, error] of crossField)
      it(what, async () => {
        expect(violations(memoryToolJsonSchema, call)).toEqual([])
        const parsed = Either.getOrThrow(parseToolArgs(JSON.stringify(call)))
        const result = await Effect.runPromise(dispatchMemoryTool(parsed).pipe(Effect.provide(appLayer())))
        expect(result).toMatchObject({ success: false, error: expect.stringMatching(error) })
      })
  })

  it("maxLength never refuses a write the byte bound allows (it counts characters, the tool counts bytes)", () => {
    const exact = { action: "add", target: "user", content: "x".repeat(FIELD_LIMIT) }
    const dashes = { action: "add", target: "user", content: "—".repeat(683) } // 2049 bytes, 683 characters
    const over = { action: "add", target: "user", content: "x".repeat(FIELD_LIMIT + 1) }
    expect(violations(memoryToolJsonSchema, exact)).toEqual([])
    expect(violations(memoryToolJsonSchema, dashes)).toEqual([]) // only the tool's byte check refuses this one
    expect(violations(memoryToolJsonSchema, over)).toEqual(["content: too long"])
    expect(MUTATING_ACTIONS.has("add")).toBe(true)
  })
})

describe("MEMORY_TOOL_DESCRIPTION", () => {
  it("codifies the eviction policy within ~1,500 characters", () => {
    expect(MEMORY_TOOL_DESCRIPTION.length).toBeLessThanOrEqual(1500)
    for (const phrase of [
      /at cap/,
      /evict/i,
      /remove or replace/,
      /stats/,
      /2048 bytes \(UTF-8\)/,
      /90%/,
      /user/,
      /env/,
      /merge-on-write/,
      /search/,
      /view/,
      /secrets/,
      /instructions/,
      /ephemeral/,
      /human act/
    ])
      expect(MEMORY_TOOL_DESCRIPTION).toMatch(phrase)
  })
})

describe("toolDefinition", () => {
  it("openai: a function tool with the schema as parameters", () => {
    expect(toolDefinition("openai")).toEqual({
      type: "function",
      function: { name: "memory", description: MEMORY_TOOL_DESCRIPTION, parameters: memoryToolJsonSchema }
    })
  })
  it("anthropic: name, description, input_schema", () => {
    expect(toolDefinition("anthropic")).toEqual({
      name: "memory",
      description: MEMORY_TOOL_DESCRIPTION,
      input_schema: memoryToolJsonSchema
    })
  })
  it("mcp: name, description, inputSchema", () => {
    expect(toolDefinition("mcp")).toEqual({
      name: "memory",
      description: MEMORY_TOOL_DESCRIPTION,
      inputSchema: memoryToolJsonSchema
    })
  })
})
