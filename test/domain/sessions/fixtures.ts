import type { ChatMessage, ToolCall, TrustZone } from "../../../src/domain/sessions/message.js"

// A fake file system: these links resolve, anything under a `missing` directory does not.
const SYMLINKS: ReadonlyArray<readonly [string, string]> = [
  ["/home/u/proj/etc-link", "/etc"],
  ["/home/u/proj/docs-link", "/home/u/proj/docs"],
  ["/home/u/proj-alias", "/home/u/proj"],
  ["/tmp", "/private/tmp"]
]

const realpath = (p: string): string | undefined => {
  if (p.split("/").includes("missing")) return undefined
  for (const [link, target] of SYMLINKS) {
    if (p === link || p.startsWith(`${link}/`)) return target + p.slice(link.length)
  }
  return p
}

/** The workspace `/home/u/proj` with the sandbox mount and the memory directory. */
export const zone: TrustZone = {
  cwd: "/home/u/proj",
  roots: ["/home/u/proj", "/workspace", "/home/u/.odek"],
  realpath
}

/** A macOS-like workspace under `/tmp`, which resolves to `/private/tmp`. */
export const tmpZone: TrustZone = { cwd: "/tmp/ws", roots: ["/tmp/ws"], realpath }

export const call = (name: string, args: unknown): ToolCall => ({
  name,
  arguments: typeof args === "string" ? args : JSON.stringify(args)
})

export const shell = (command: string): ToolCall => call("shell", { command })

export const assistant = (...toolCalls: ReadonlyArray<ToolCall>): ChatMessage => ({
  role: "assistant",
  content: "",
  toolCalls
})

export const wrap = (label: string, body = "external text", nonce = "0123456789abcdef") =>
  `<untrusted_content_${nonce} source="${label}">${body}</untrusted_content_${nonce}>`

export const user = (content: string): ChatMessage => ({ role: "user", content })
export const system = (content: string): ChatMessage => ({ role: "system", content })
export const tool = (toolName: string, content: string): ChatMessage => ({ role: "tool", content, toolName })

/** Calls and labels whose verdict is known by construction, for the property tests' oracle. */
export const TAINTING_CALLS: ReadonlyArray<ToolCall> = [
  call("srv__search", { q: "x" }),
  call("github__get_issue", { n: 1 }),
  call("web_search", { query: "x" }),
  call("http_request", { url: "https://example.com" }),
  call("read_file", { path: "/etc/hosts" }),
  call("read_file", "not json"),
  call("batch_read", { files: [{ path: "etc-link/passwd" }] }),
  shell("curl https://example.com"),
  shell("./deploy.sh")
]

export const TRUSTED_CALLS: ReadonlyArray<ToolCall> = [
  call("read_file", { path: "internal/x.go" }),
  call("read_file", {}),
  call("glob", { path: "/workspace/src" }),
  shell("go test ./..."),
  shell("git status && git diff"),
  call("shell", ""),
  call("write_file", { path: "/etc/hosts", content: "x" }),
  call("patch", { path: "a.go" }),
  call("memory", { action: "add" })
]

export const TAINTING_LABELS: ReadonlyArray<string> = [
  "attachment:x",
  "attachment:y",
  "https://example.com/a",
  "",
  "telegram:forward",
  "src/main.go"
]
export const TRUSTED_LABELS: ReadonlyArray<string> = [
  "tool:read_file",
  "compaction",
  "episode",
  "project:AGENTS.md",
  "bg",
  "pure_tool:now",
  "plan"
]
