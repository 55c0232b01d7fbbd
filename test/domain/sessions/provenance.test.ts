import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import type { ChatMessage } from "../../../src/domain/sessions/message.js"
import {
  deriveSessionProvenance,
  EpisodeProvenance,
  episodeTaintSources,
  isPendingReview,
  isRecallable,
  labelTaintsEpisode,
  stickyEpisodeUntrusted,
  toolCallTaintsEpisode,
  TRUSTED_PROVENANCE,
  trustRank,
  UNKNOWN_PROVENANCE,
  untrustedIngested,
  wrapperLabels
} from "../../../src/domain/sessions/provenance.js"
import {
  assistant,
  call,
  shell,
  system,
  tmpZone,
  tool,
  TAINTING_CALLS,
  TRUSTED_CALLS,
  user,
  wrap,
  zone
} from "./fixtures.js"

const taints = (name: string, args: unknown, z = zone) => toolCallTaintsEpisode(call(name, args), z)

describe("toolCallTaintsEpisode (§5.3)", () => {
  describe("rule 1: MCP adapter names", () => {
    it.each(["srv__tool", "github__get_issue", "a__b", "__", "read_file__x", "memory__add"])(
      "%j taints whatever its arguments",
      (name) => {
        expect(taints(name, { path: "internal/x.go" })).toBe(true)
        expect(taints(name, "")).toBe(true)
      }
    )
    it("a single underscore is not an MCP name", () => {
      expect(taints("write_file", { path: "a" })).toBe(false)
    })
  })

  describe("rule 2: always-external tools", () => {
    it.each([
      "browser",
      "http_batch",
      "transcribe",
      "session_search",
      "web_search",
      "vision",
      "delegate_tasks",
      "http_request",
      "artifact_read"
    ])("%j taints", (name) => {
      expect(taints(name, {})).toBe(true)
      expect(taints(name, "")).toBe(true)
    })
  })

  describe("rule 3: path-reading tools", () => {
    const PATH_TOOLS = [
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
    ]

    it.each(PATH_TOOLS)(
      "%j: outside taints, inside does not, invalid or empty JSON taints, no path is the workspace",
      (name) => {
        expect(taints(name, { path: "/etc/hosts" })).toBe(true)
        expect(taints(name, { path: "internal/x.go" })).toBe(false)
        expect(taints(name, "")).toBe(true)
        expect(taints(name, "{not json")).toBe(true)
        expect(taints(name, {})).toBe(false)
      }
    )

    it.each([
      ["/etc/hosts", true],
      ["/private/etc/master.passwd", true],
      ["/home/u/.ssh/id_rsa", true],
      ["internal/x.go", false],
      ["./README.md", false],
      ["/workspace/foo.go", false],
      ["/home/u/.odek/memory/user.md", false],
      ["/home/u/proj", false],
      [".", false],
      ["../proj/x.go", false],
      ["../other/x.go", true],
      ["/home/u/project-evil/x", true],
      ["internal/../../.ssh/id_rsa", true],
      // no `~` expansion: `~/x` is a file named `~` inside the workspace, as the file tools see it
      ["~/x", false],
      ["etc-link/passwd", true],
      ["/home/u/proj/etc-link", true],
      ["docs-link/guide.md", false],
      // unresolvable: outside
      ["missing/new.go", true],
      // reached through an outside symlink: the as-written path is outside
      ["/home/u/proj-alias/x.go", true]
    ])("read_file %j → %j", (path, want) => {
      expect(taints("read_file", { path })).toBe(want)
    })

    it("roots count both as given and symlink-resolved (a /tmp workspace on macOS)", () => {
      expect(taints("read_file", { path: "x.go" }, tmpZone)).toBe(false)
      expect(taints("read_file", { path: "/private/tmp/ws/x.go" }, tmpZone)).toBe(false)
      expect(taints("read_file", { path: "/tmp/ws/x.go" }, tmpZone)).toBe(false)
      expect(taints("read_file", { path: "/private/tmp/other" }, tmpZone)).toBe(true)
    })

    it("checks path, path_a, path_b and every files[].path", () => {
      expect(taints("diff", { path_a: "a.go", path_b: "b.go" })).toBe(false)
      expect(taints("diff", { path_a: "a.go", path_b: "/etc/passwd" })).toBe(true)
      expect(taints("diff", { path_a: "/etc/passwd", path_b: "b.go" })).toBe(true)
      expect(taints("batch_read", { files: [{ path: "a.go" }, { path: "docs/b.md" }] })).toBe(false)
      expect(taints("batch_read", { files: [{ path: "a.go" }, { path: "/etc/shadow" }] })).toBe(true)
      expect(taints("batch_read", { files: [{ path: "etc-link/shadow" }] })).toBe(true)
      expect(taints("batch_read", { files: [] })).toBe(false)
      expect(taints("batch_read", { files: [{}, null] })).toBe(false)
      expect(taints("batch_read", { path: "a.go", files: [{ path: "/etc/x" }] })).toBe(true)
    })

    it("skips blank candidates; a path with surrounding spaces is judged as written and trimmed", () => {
      expect(taints("read_file", { path: "" })).toBe(false)
      expect(taints("read_file", { path: "   " })).toBe(false)
      expect(taints("read_file", { path: null })).toBe(false)
      expect(taints("read_file", { path: " /etc/hosts" })).toBe(true)
      expect(taints("read_file", { path: "a.go\n" })).toBe(false)
    })

    it("arguments it cannot interpret taint like invalid JSON", () => {
      for (const args of ["[]", "null", "42", '"internal/x.go"', "{}{}"]) expect(taints("read_file", args)).toBe(true)
      expect(taints("read_file", { path: 42 })).toBe(true)
      expect(taints("read_file", { path: ["a.go"] })).toBe(true)
      expect(taints("batch_read", { files: "a.go" })).toBe(true)
      expect(taints("batch_read", { files: ["a.go"] })).toBe(true)
      expect(taints("batch_read", { files: [{ path: 1 }] })).toBe(true)
    })

    it("keys match case-insensitively, as Go's encoding/json fills the tool's struct", () => {
      expect(taints("read_file", { Path: "/etc/hosts" })).toBe(true)
      expect(taints("read_file", { path: "a.go", PATH: "/etc/hosts" })).toBe(true)
      expect(taints("diff", { PATH_B: "/etc/hosts" })).toBe(true)
      expect(taints("batch_read", { Files: [{ Path: "/etc/hosts" }] })).toBe(true)
      expect(taints("batch_read", { "file\u017f": [{ path: "/etc/hosts" }] })).toBe(true)
      expect(taints("read_file", { Path: "internal/x.go" })).toBe(false)
    })
  })

  describe("rule 4: shell and bg_start", () => {
    it.each(["shell", "bg_start"])("%j", (name) => {
      expect(taints(name, { command: "curl https://example.com" })).toBe(true)
      expect(taints(name, { command: "git push" })).toBe(true)
      expect(taints(name, { command: "./unknown-tool --flag" })).toBe(true)
      expect(taints(name, { command: "go test ./..." })).toBe(false)
      expect(taints(name, { command: "ls -la && cat README.md" })).toBe(false)
      // blank arguments or an empty command ran nothing: trusted (unlike path tools)
      expect(taints(name, "")).toBe(false)
      expect(taints(name, "   ")).toBe(false)
      expect(taints(name, { command: "" })).toBe(false)
      expect(taints(name, { command: "  " })).toBe(false)
      expect(taints(name, {})).toBe(false)
      // non-blank and not JSON
      expect(taints(name, "curl https://example.com")).toBe(true)
      expect(taints(name, "{")).toBe(true)
      // JSON we cannot interpret
      expect(taints(name, { command: 42 })).toBe(true)
      expect(taints(name, "[]")).toBe(true)
      expect(taints(name, { Command: "curl x" })).toBe(true)
    })

    it(
      "a local command reading outside the workspace is not a path-tool read " +
        "(the spec judges shell by network effect only)",
      () => {
        expect(taints("shell", { command: "cat /etc/hosts" })).toBe(false)
      }
    )
  })

  it("rule 5: every other tool is trusted, whatever it touches", () => {
    for (const name of ["patch", "write_file", "plan", "memory", "todo", "ask_user"]) {
      expect(taints(name, { path: "/etc/hosts", command: "curl x" })).toBe(false)
      expect(taints(name, "not json")).toBe(false)
    }
  })

  it("the shared fixtures taint as labelled", () => {
    for (const c of TAINTING_CALLS) expect(toolCallTaintsEpisode(c, zone), c.name + c.arguments).toBe(true)
    for (const c of TRUSTED_CALLS) expect(toolCallTaintsEpisode(c, zone), c.name + c.arguments).toBe(false)
  })
})

describe("wrapperLabels (§5.4.1)", () => {
  it.each([
    ["no wrapper here", []],
    [wrap("attachment:x"), ["attachment:x"]],
    ['<untrusted_content_a source="x">', ["x"]],
    ['<untrusted_content_0123456789abcdef source="">', [""]],
    // prose: no hex, upper-case hex, no ` source="`, two spaces, a non-hex nonce
    ['<untrusted_content_ source="x">', []],
    ['<untrusted_content_ABC source="x">', []],
    ["<untrusted_content_abc>", []],
    ['<untrusted_content_abc  source="x">', []],
    ['<untrusted_content_xyz source="x">', []],
    ["the tag <untrusted_content_ is how we wrap things", []],
    // an opening tag with no closing `">`
    ['<untrusted_content_abc source="attachment:x', [""]],
    ['<untrusted_content_abc source="x"> then <untrusted_content_def source="y', ["x", ""]],
    // left to right
    [`${wrap("a")} text ${wrap("tool:read_file")} more ${wrap("a")}`, ["a", "tool:read_file", "a"]],
    // prose before a real tag
    ['<untrusted_content_ and <untrusted_content_<untrusted_content_9 source="z">', ["z"]],
    // the label runs to the next `">`
    ['<untrusted_content_1 source="a"b">', ['a"b']],
    ['<untrusted_content_1 source="x <untrusted_content_2 source="y">', ['x <untrusted_content_2 source="y']]
  ])("%j → %j", (content, want) => {
    expect(wrapperLabels(content)).toEqual(want)
  })
})

describe("labelTaintsEpisode (§5.4.2)", () => {
  it.each([
    "compaction",
    "plan",
    "plan_remaining",
    "memory",
    "persisted_system",
    "progress_summary",
    "completed_effects",
    "skill",
    "extended_memory",
    "return_after_break",
    "pure_tool:now",
    "pure_tool:",
    "episode",
    "bg",
    "tool:read_file",
    "tool:shell",
    "project:AGENTS.md",
    "project:docs/CONTRIBUTING.md"
  ])("%j does not taint", (label) => {
    expect(labelTaintsEpisode(label)).toBe(false)
  })

  it.each([
    "attachment:x",
    "src/main.go",
    "@src/main.go",
    "notes.md",
    "https://example.com",
    "telegram:forward",
    "telegram:voice",
    "telegram:caption",
    "telegram:media",
    "external:feed",
    "",
    "Compaction",
    "tool",
    "projects:x",
    "episodes",
    " bg"
  ])("%j taints", (label) => {
    expect(labelTaintsEpisode(label)).toBe(true)
  })
})

describe("episodeTaintSources (§5.5)", () => {
  it("the spec's worked example", () => {
    const messages: ReadonlyArray<ChatMessage> = [
      assistant(call("srv__tool", {}), shell("curl https://example.com"), shell("go test ./...")),
      user(wrap("attachment:x")),
      tool("shell", wrap("attachment:y"))
    ]
    expect(episodeTaintSources(messages, zone)).toEqual(["srv__tool", "shell", "attachment:x"])
  })

  it("calls come before labels within a message, messages in order, duplicates keep their first place", () => {
    const messages: ReadonlyArray<ChatMessage> = [
      user(`${wrap("attachment:b")}${wrap("attachment:a")}`),
      {
        role: "assistant",
        content: wrap("https://x"),
        toolCalls: [call("web_search", {}), call("read_file", { path: "/etc/hosts" })]
      },
      assistant(call("read_file", { path: "/etc/passwd" }), call("srv__t", {})),
      system(wrap("attachment:a"))
    ]
    expect(episodeTaintSources(messages, zone)).toEqual([
      "attachment:b",
      "attachment:a",
      "web_search",
      "read_file",
      "https://x",
      "srv__t"
    ])
  })

  it("tool-role content is never scanned; other roles are", () => {
    expect(episodeTaintSources([tool("read_file", wrap("attachment:y"))], zone)).toEqual([])
    expect(episodeTaintSources([system(wrap("--ctx notes.md"))], zone)).toEqual(["--ctx notes.md"])
    expect(episodeTaintSources([{ role: "assistant", content: wrap("") }], zone)).toEqual([""])
  })

  it("trusted history yields nothing", () => {
    const messages: ReadonlyArray<ChatMessage> = [
      system(wrap("project:AGENTS.md")),
      user("fix the lexer"),
      assistant(call("read_file", { path: "internal/lexer.go" }), shell("go test ./...")),
      tool("read_file", wrap("tool:read_file")),
      user(wrap("episode"))
    ]
    expect(episodeTaintSources(messages, zone)).toEqual([])
  })
})

describe("stickyEpisodeUntrusted (§5.6)", () => {
  const tainting = [assistant(call("read_file", { path: "/etc/hosts" }))]
  const trusted = [assistant(shell("go test ./..."))]

  it("ORs the previous flag with the taint of the list being saved, and never clears", () => {
    expect(stickyEpisodeUntrusted(false, trusted, zone)).toBe(false)
    expect(stickyEpisodeUntrusted(false, tainting, zone)).toBe(true)
    expect(stickyEpisodeUntrusted(true, trusted, zone)).toBe(true)
    expect(stickyEpisodeUntrusted(true, [], zone)).toBe(true)
  })

  it("§5.6.2 legacy sessions derive the flag from the messages present", () => {
    expect(
      stickyEpisodeUntrusted(
        false,
        [assistant(call("read_file", { path: "/etc/hosts" })), tool("read_file", wrap("tool:read_file"))],
        zone
      )
    ).toBe(true)
    expect(
      stickyEpisodeUntrusted(
        false,
        [assistant(call("read_file", { path: "main.go" })), tool("read_file", wrap("tool:read_file"))],
        zone
      )
    ).toBe(false)
    expect(stickyEpisodeUntrusted(false, [user("hi"), { role: "assistant", content: "hello" }], zone)).toBe(false)
  })
})

describe("deriveSessionProvenance (§5.7) and the session-less end (§5.8)", () => {
  const tainting = assistant(call("web_search", { q: "x" }))

  it("no session → unknown_provenance", () => {
    expect(deriveSessionProvenance(undefined, zone)).toEqual({ untrusted: true, sources: ["unknown_provenance"] })
    expect(UNKNOWN_PROVENANCE).toEqual({ untrusted: true, sources: ["unknown_provenance"] })
  })

  it("history sources are named, and trimmed_history is not added even when the flag is set too", () => {
    expect(deriveSessionProvenance({ messages: [tainting], episodeUntrusted: false }, zone)).toEqual({
      untrusted: true,
      sources: ["web_search"]
    })
    expect(deriveSessionProvenance({ messages: [tainting], episodeUntrusted: true }, zone)).toEqual({
      untrusted: true,
      sources: ["web_search"]
    })
  })

  it("the sticky flag alone → trimmed_history", () => {
    expect(deriveSessionProvenance({ messages: [user("hi")], episodeUntrusted: true }, zone)).toEqual({
      untrusted: true,
      sources: ["trimmed_history"]
    })
  })

  it("otherwise trusted {}", () => {
    expect(
      deriveSessionProvenance(
        { messages: [user("hi"), assistant(shell("go test ./..."))], episodeUntrusted: false },
        zone
      )
    ).toEqual({})
    expect(TRUSTED_PROVENANCE).toEqual({})
  })
})

describe("untrustedIngested vs the episode taint (§5.9)", () => {
  const readWorkspace = [
    assistant(call("read_file", { path: "internal/x.go" })),
    tool("read_file", wrap("tool:read_file", "package x"))
  ]
  const localShell = [assistant(shell("go test ./...")), tool("shell", wrap("tool:shell", "ok"))]
  const readOutside = [
    assistant(call("read_file", { path: "/etc/hosts" })),
    tool("read_file", wrap("tool:read_file", "127.0.0.1 localhost"))
  ]
  const recalled = [system(wrap("episode", "Earlier the user fixed the lexer.")), user("continue")]
  const project = [system(wrap("project:AGENTS.md", "Use tabs."))]
  const ENGINE = [
    "compaction",
    "plan",
    "plan_remaining",
    "memory",
    "persisted_system",
    "progress_summary",
    "completed_effects",
    "skill",
    "extended_memory",
    "return_after_break",
    "pure_tool:now"
  ]
  const engine = ENGINE.map((label) => system(wrap(label)))

  it.each([
    ["read_file of a workspace file (output wrapped tool:read_file)", readWorkspace, false, true],
    ["local shell `go test ./...`", localShell, false, true],
    ["read_file /etc/hosts", readOutside, true, true],
    ['recalled episode injected (source="episode")', recalled, false, true],
    ["project instructions project:AGENTS.md", project, false, true],
    ["attachment in a user message", [user(wrap("attachment:report.pdf"))], true, true],
    ["@-ref in a user message", [user(wrap("src/main.go"))], true, true],
    ["forward in a user message", [user(wrap("telegram:forward"))], true, true],
    ["engine context (compaction, plan, memory, skill, …)", engine, false, false],
    ["background-job notice", [system(wrap("bg", "job 3 finished"))], false, true],
    [
      "trimmed untrusted tool output marker",
      [tool("read_file", "[tool output trimmed: untrusted content, 48213 bytes dropped to fit context budget]")],
      false,
      true
    ]
  ] as const)("%s: episode %j, ingested %j", (_, messages, episode, ingested) => {
    expect(stickyEpisodeUntrusted(false, messages, zone)).toBe(episode)
    expect(untrustedIngested(messages)).toBe(ingested)
  })

  it("the sticky episode flag never falls back to the delegation taint", () => {
    // a workspace-only session whose tool calls were trimmed away: ingested, yet trusted for episodes
    const trimmed = [user("fix it"), { role: "assistant" as const, content: "done" }]
    const flag = stickyEpisodeUntrusted(stickyEpisodeUntrusted(false, readWorkspace, zone), trimmed, zone)
    expect(untrustedIngested(readWorkspace)).toBe(true)
    expect(flag).toBe(false)
    expect(deriveSessionProvenance({ messages: trimmed, episodeUntrusted: flag }, zone)).toEqual({})
  })

  it("plain text and engine-only history is not ingested", () => {
    expect(untrustedIngested([user("hi"), { role: "assistant", content: "hello" }])).toBe(false)
  })
})

describe("EpisodeProvenance", () => {
  const Json = Schema.parseJson(EpisodeProvenance)
  const decode = Schema.decodeUnknownSync(EpisodeProvenance)
  const encode = Schema.encodeSync(EpisodeProvenance)

  it("decodes the index.json shape and encodes it back with false and empty fields omitted", () => {
    const spec = { untrusted: true, sources: ["read_file", "trimmed_history"] }
    expect(decode(spec)).toEqual(spec)
    expect(encode(decode(spec))).toEqual(spec)
    expect(decode({})).toEqual({})
    expect(encode({})).toEqual({})
    expect(encode({ untrusted: false, sources: [], user_approved: true, auto_approved: false })).toEqual({
      user_approved: true
    })
    expect(decode({ untrusted: false, sources: [], user_approved: null, auto_approved: true })).toEqual({
      auto_approved: true
    })
    expect(decode({ untrusted: true, sources: null, extra: 1 })).toEqual({ untrusted: true })
    expect(Schema.encodeSync(Json)({ untrusted: true, sources: ["web_search"], user_approved: true })).toBe(
      '{"untrusted":true,"sources":["web_search"],"user_approved":true}'
    )
  })

  it("rejects the wrong types", () => {
    expect(() => decode({ untrusted: "yes" })).toThrow()
    expect(() => decode({ sources: "read_file" })).toThrow()
    expect(() => decode({ sources: [1] })).toThrow()
    expect(() => decode([])).toThrow()
  })

  it("recallable, pending review and trust rank over every combination (§5.1.2, §4.5.4)", () => {
    for (const untrusted of [false, true])
      for (const user_approved of [false, true])
        for (const auto_approved of [false, true]) {
          const p = decode({ untrusted, user_approved, auto_approved })
          const pending = untrusted && !user_approved && !auto_approved
          expect(isPendingReview(p)).toBe(pending)
          expect(isRecallable(p)).toBe(!pending)
          expect(trustRank(p)).toBe(pending ? 0 : 1)
        }
    expect(isPendingReview(UNKNOWN_PROVENANCE)).toBe(true)
    expect(isRecallable({})).toBe(true)
  })
})
