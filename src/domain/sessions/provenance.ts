/**
 * Provenance and taint of a session's episode (spec episodes §5). A session yields an untrusted episode when its
 * history holds any call to an external tool, a file read outside the workspace, a shell command that may reach
 * the network or that we cannot judge, or wrapped external content that arrived without a tool call. Workspace
 * reads and local commands stay trusted, so ordinary coding sessions remain recallable.
 *
 * Decisions where the spec leaves room (each fails closed):
 * - A path is inside the trust zone only when it is inside a root both as written (made absolute and cleaned)
 *   and symlink-resolved; a path the app cannot resolve is outside. A workspace symlink to `/etc` therefore taints,
 *   and so does a path reaching the workspace through an outside symlink.
 * - Tool arguments are read the way Go's `encoding/json` fills a struct: keys match case-insensitively, so every
 *   key that folds to `path`, `command`… is a candidate. Arguments that are valid JSON but not an object, or a
 *   candidate of the wrong type, cannot be interpreted and taint like invalid JSON.
 * - A candidate path with surrounding white space is judged both as written and trimmed.
 */
import { Option, Schema } from "effect"
import type { ChatMessage, ToolCall, TrustZone } from "./message.js"
import { absolutePath, cleanPath, insideRoot } from "./paths.js"
import { classifyCommand } from "./shell.js"

// ---------------------------------------------------------------------------------------------------------
// The provenance record (index.json's `provenance` object)

// Go omits false and empty fields and reads `null` as the zero value; the record keeps only what is set
const flag = Schema.optionalToOptional(Schema.NullOr(Schema.Boolean), Schema.Boolean, {
  decode: (o) => Option.filter(o, (b): b is true => b === true),
  encode: (o) => Option.filter(o, (b) => b)
})

const sourceList = Schema.optionalToOptional(Schema.NullOr(Schema.Array(Schema.String)), Schema.Array(Schema.String), {
  decode: (o) => Option.filter(o, (a): a is ReadonlyArray<string> => a !== null && a.length > 0),
  encode: (o) => Option.filter(o, (a) => a.length > 0)
})

/**
 * An episode's trust: `untrusted` with the taint `sources` that made it so, and the two ways a human or the
 * configuration approved it. An absent field is false or empty; `{}` is trusted.
 */
export const EpisodeProvenance = Schema.Struct({
  untrusted: flag,
  sources: sourceList,
  user_approved: flag,
  auto_approved: flag
})
export type EpisodeProvenance = typeof EpisodeProvenance.Type

/** The zero value: trusted. */
export const TRUSTED_PROVENANCE: EpisodeProvenance = {}

/** An episode written without the structured session (§5.8): untrusted, fail closed. */
export const UNKNOWN_PROVENANCE: EpisodeProvenance = { untrusted: true, sources: ["unknown_provenance"] }

/** §5.1.2: recall, search and `view` may show the episode. */
export const isRecallable = (p: EpisodeProvenance): boolean =>
  p.untrusted !== true || p.user_approved === true || p.auto_approved === true

/** §5.1.2: untrusted and approved by nobody; the complement of `isRecallable`. */
export const isPendingReview = (p: EpisodeProvenance): boolean => !isRecallable(p)

/** §4.5.4 dedup trust rank: 0 pending review, 1 everything else. */
export const trustRank = (p: EpisodeProvenance): 0 | 1 => (isPendingReview(p) ? 0 : 1)

// ---------------------------------------------------------------------------------------------------------
// Per-tool rule (§5.3)

const ALWAYS_EXTERNAL = new Set([
  "browser",
  "http_batch",
  "transcribe",
  "session_search",
  "web_search",
  "vision",
  "delegate_tasks",
  "http_request",
  "artifact_read"
])

const PATH_TOOLS = new Set([
  "read_file",
  "search_files",
  "multi_grep",
  "batch_read",
  "json_query",
  "head_tail",
  "count_lines",
  "checksum",
  "word_count",
  "sort",
  "tr",
  "diff",
  "file_info",
  "glob",
  "tree",
  "base64"
])

const SHELL_TOOLS = new Set(["shell", "bg_start"])

type JsonObject = { readonly [key: string]: unknown }

/** The arguments as a JSON object; undefined when they are not one. */
const argumentObject = (json: string): JsonObject | undefined => {
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch {
    return undefined
  }
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined
}

// Go's case folding also maps the long s (U+017F) to `s`, so `fileſ` fills `files`
const foldKey = (key: string): string => key.toLowerCase().replace(/\u017f/g, "s")

/** Values of every key that folds to one of `names`: undefined when one is neither a string nor null. */
const stringFields = (o: JsonObject, names: ReadonlySet<string>): Array<string> | undefined => {
  const out: Array<string> = []
  for (const [key, value] of Object.entries(o)) {
    if (!names.has(foldKey(key)) || value === null) continue
    if (typeof value !== "string") return undefined
    out.push(value)
  }
  return out
}

const PATH_KEYS = new Set(["path", "path_a", "path_b"])
const FILE_PATH_KEY = new Set(["path"])
const FILES_KEY = new Set(["files"])
const COMMAND_KEY = new Set(["command"])

/** Every candidate path of a path tool's arguments, or undefined when the arguments cannot be interpreted. */
const candidatePaths = (o: JsonObject): Array<string> | undefined => {
  const paths = stringFields(o, PATH_KEYS)
  if (paths === undefined) return undefined
  for (const [key, files] of Object.entries(o)) {
    if (!FILES_KEY.has(foldKey(key)) || files === null) continue
    if (!Array.isArray(files)) return undefined
    for (const file of files as ReadonlyArray<unknown>) {
      if (file === null) continue
      if (typeof file !== "object" || Array.isArray(file)) return undefined
      const inner = stringFields(file as JsonObject, FILE_PATH_KEY)
      if (inner === undefined) return undefined
      paths.push(...inner)
    }
  }
  return paths
}

/** A judge for one trust zone; the roots are resolved once. */
const zoneJudge = (zone: TrustZone) => {
  const roots: Array<string> = []
  for (const root of zone.roots) {
    const given = cleanPath(root)
    roots.push(given)
    const real = zone.realpath(given)
    if (real !== undefined) roots.push(cleanPath(real))
  }
  const inRoots = (p: string) => roots.some((r) => insideRoot(p, r))
  // both as written and resolved: a workspace symlink to /etc is outside, and so is anything unresolvable
  const inside = (candidate: string): boolean => {
    const abs = absolutePath(candidate, zone.cwd)
    if (!inRoots(abs)) return false
    const real = zone.realpath(abs)
    return real !== undefined && inRoots(cleanPath(real))
  }
  const outside = (candidate: string): boolean => {
    const trimmed = candidate.trim()
    if (trimmed === "") return false
    return !inside(candidate) || (trimmed !== candidate && !inside(trimmed))
  }
  const pathToolTaints = (args: string): boolean => {
    const o = argumentObject(args)
    const paths = o === undefined ? undefined : candidatePaths(o)
    // Invalid or empty JSON, or arguments we cannot read: conservative. No path at all: the workspace default.
    return paths === undefined || paths.some(outside)
  }
  const shellTaints = (args: string): boolean => {
    // blank arguments ran nothing (unlike a path tool, which would have read the workspace)
    if (args.trim() === "") return false
    const o = argumentObject(args)
    const commands = o === undefined ? undefined : stringFields(o, COMMAND_KEY)
    if (commands === undefined) return true
    return commands.some((c) => c.trim() !== "" && [...classifyCommand(c)].some((e) => e !== "local"))
  }
  return (call: ToolCall): boolean => {
    if (call.name.includes("__")) return true
    if (ALWAYS_EXTERNAL.has(call.name)) return true
    if (PATH_TOOLS.has(call.name)) return pathToolTaints(call.arguments)
    if (SHELL_TOOLS.has(call.name)) return shellTaints(call.arguments)
    return false
  }
}

/** §5.3: whether this one tool call makes the session's episode untrusted. */
export const toolCallTaintsEpisode = (call: ToolCall, zone: TrustZone): boolean => zoneJudge(zone)(call)

/** What a tool call reached, as a session records it beside the call: the class its taint is judged by. */
export type ToolEffect =
  "external" | "read_workspace" | "read_outside" | "command_local" | "command_network" | "command_unknown" | "other"

export const toolEffect = (call: ToolCall, zone: TrustZone): ToolEffect => {
  if (call.name.includes("__") || ALWAYS_EXTERNAL.has(call.name)) return "external"
  if (PATH_TOOLS.has(call.name)) return zoneJudge(zone)(call) ? "read_outside" : "read_workspace"
  if (SHELL_TOOLS.has(call.name)) {
    if (call.arguments.trim() === "") return "command_local"
    const o = argumentObject(call.arguments)
    const commands = o === undefined ? undefined : stringFields(o, COMMAND_KEY)
    if (commands === undefined) return "command_unknown"
    const effects = commands.flatMap((c) => [...classifyCommand(c)])
    if (effects.some((e) => e === "network_egress" || e === "network_upload")) return "command_network"
    return effects.includes("unknown") ? "command_unknown" : "command_local"
  }
  return "other"
}

// ---------------------------------------------------------------------------------------------------------
// Wrapped external content (§5.4)

const WRAPPER_PREFIX = "<untrusted_content_"
const SOURCE_ATTRIBUTE = ' source="'
const LABEL_END = '">'

const isLowerHex = (c: string | undefined): boolean =>
  c !== undefined && ((c >= "0" && c <= "9") || (c >= "a" && c <= "f"))

/** §5.4.1: the source labels of every `<untrusted_content_<hex> source="…">` opening tag, left to right. */
export const wrapperLabels = (content: string): ReadonlyArray<string> => {
  const labels: Array<string> = []
  let from = 0
  for (;;) {
    const at = content.indexOf(WRAPPER_PREFIX, from)
    if (at < 0) return labels
    let j = at + WRAPPER_PREFIX.length
    while (isLowerHex(content[j])) j++
    if (j === at + WRAPPER_PREFIX.length || !content.startsWith(SOURCE_ATTRIBUTE, j)) {
      // prose that happens to mention the prefix
      from = at + WRAPPER_PREFIX.length
      continue
    }
    const start = j + SOURCE_ATTRIBUTE.length
    const end = content.indexOf(LABEL_END, start)
    // an unclosed tag: the label is unknown, hence external; no closing `">` follows for any later tag either
    if (end < 0) return [...labels, ""]
    labels.push(content.slice(start, end))
    from = end + LABEL_END.length
  }
}

const ENGINE_LABELS = new Set([
  "compaction",
  "plan",
  "plan_remaining",
  "memory",
  "persisted_system",
  "progress_summary",
  "completed_effects",
  "skill",
  "extended_memory",
  "return_after_break"
])

/** Context the engine itself produced (§5.4.2 first item), trusted for both episodes and delegation. */
const engineDerived = (label: string): boolean => ENGINE_LABELS.has(label) || label.startsWith("pure_tool:")

/** §5.4.2: whether wrapped content with this label, in a non-tool message, makes the episode untrusted. */
export const labelTaintsEpisode = (label: string): boolean =>
  !(
    engineDerived(label) ||
    // recalled episodes were gated when stored; background notices, re-wrapped tool output and project files
    // are judged by the call or the workspace they came from
    label === "episode" ||
    label === "bg" ||
    label.startsWith("tool:") ||
    label.startsWith("project:")
  )

// ---------------------------------------------------------------------------------------------------------
// Sessions (§5.5–§5.9)

const taintSources = (messages: ReadonlyArray<ChatMessage>, judge: (call: ToolCall) => boolean): Array<string> => {
  const seen = new Set<string>()
  for (const m of messages) {
    for (const call of m.toolCalls ?? []) if (judge(call)) seen.add(call.name)
    // tool output is judged by the call that produced it
    if (m.role !== "tool") for (const label of wrapperLabels(m.content)) if (labelTaintsEpisode(label)) seen.add(label)
  }
  return [...seen]
}

/**
 * §5.5.1: what made these messages untrusted, de-duplicated in first-seen order: tainting tool names, then tainting
 * wrapper labels, message by message. Empty ⇔ the messages alone are trusted.
 */
export const episodeTaintSources = (messages: ReadonlyArray<ChatMessage>, zone: TrustZone): ReadonlyArray<string> =>
  taintSources(messages, zoneJudge(zone))

/**
 * §5.6.1: the `episode_untrusted` flag a save persists: the previous revision's flag OR the taint of the whole
 * message list being saved, taken before size trimming (the caller passes the untrimmed list). Never cleared.
 */
export const stickyEpisodeUntrusted = (
  previous: boolean,
  messagesBeingSaved: ReadonlyArray<ChatMessage>,
  zone: TrustZone
): boolean => previous || episodeTaintSources(messagesBeingSaved, zone).length > 0

/** The part of a session provenance needs: its current messages and its sticky flag. */
export interface SessionTaint {
  readonly messages: ReadonlyArray<ChatMessage>
  readonly episodeUntrusted: boolean
}

/** §5.7.1: the one derivation of an episode's provenance from its session; no session → `UNKNOWN_PROVENANCE`. */
export const deriveSessionProvenance = (session: SessionTaint | undefined, zone: TrustZone): EpisodeProvenance => {
  if (session === undefined) return UNKNOWN_PROVENANCE
  const sources = episodeTaintSources(session.messages, zone)
  // named sources win; `trimmed_history` only stands in when the tainting messages are gone
  if (sources.length > 0) return { untrusted: true, sources }
  return session.episodeUntrusted ? { untrusted: true, sources: ["trimmed_history"] } : TRUSTED_PROVENANCE
}

// The marker the loop leaves when it trims untrusted tool output to fit the context budget. Matched on its
// stable prefix: missing a variant would let a sub-agent trust what it should not.
const TRIMMED_UNTRUSTED_OUTPUT = "[tool output trimmed: untrusted content"

/**
 * §5.9: the delegation taint `untrusted_ingested`, wider than the episode taint: any message (tool output too)
 * carrying a wrapper whose label is not engine-derived, or the marker of trimmed untrusted tool output. Only the
 * content counts, so it contains the episode taint for every call whose output the loop wraps; the sticky episode
 * flag must never fall back to it.
 */
export const untrustedIngested = (messages: ReadonlyArray<ChatMessage>): boolean =>
  messages.some(
    (m) =>
      m.content.includes(TRIMMED_UNTRUSTED_OUTPUT) || wrapperLabels(m.content).some((label) => !engineDerived(label))
  )
