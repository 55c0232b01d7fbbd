import { Args, Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { FileSystem } from "@effect/platform"
import { Cause, Console, Effect, Either, Exit, Option, Stream } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as Path from "node:path"
import { formatLifecycle, type LifecycleEvent } from "../../domain/events/lifecycle.js"
import { type BlockedEntry, blockedLine } from "../../domain/facts/blocked.js"
import { renderEntries, usedBytes } from "../../domain/facts/codec.js"
import { fillPercent } from "../../domain/facts/promptBlock.js"
import { TARGETS, type Target } from "../../domain/facts/schema.js"
import { goQuote, plural, preview } from "../../domain/text/utf8.js"
import { followLifecycle, lifecycleFeed } from "../../app/events.js"
import { capOf, loadFacts, outstandingEditRejection, parseTarget, rewriteFacts, screenFacts } from "../../app/facts.js"
import { dispatchMemoryTool, type MemoryToolArgs, parseToolArgs, type ToolResult } from "../../app/memoryTool.js"
import { memoryBlock } from "../../app/prompt.js"
import { TOOL_FORMATS, toolDefinition } from "../../app/toolSchema.js"
import { Settings } from "../../app/Settings.js"
import { MemoryDisabled } from "../../domain/facts/errors.js"
import { revertFacts, revertible } from "../../app/revert.js"
import { runDemo } from "./demo.js"
import { commandTree, frontEnd, plainHelp } from "./help.js"
import { printable, printableLines } from "../../domain/text/printable.js"
import { type Globals, resolveMemoryDir } from "./globals.js"
import { dbCommand, exportCommand, migrateCommand } from "./storeCli.js"
import { type Output, Refused, refuse, report } from "./output.js"
import { warned } from "./logger.js"

import { tmem } from "./root.js"
import { atoms } from "./atomsCli.js"
import { episodes, recall, sessionCmd } from "./episodesCli.js"
import { mcpCommand } from "./mcpCli.js"
import { evalCommand } from "./evalCli.js"
import { simulateCommand } from "./simulateCli.js"
import { runsUntilSignal } from "./signals.js"

const targetArg = Args.text({ name: "target" }).pipe(Args.withDescription("user or env"))

/** A tool call's result as command output; a refusal becomes the command's error. */
const toolOutput = (result: ToolResult): Effect.Effect<Output, { readonly message: string }> =>
  result.success
    ? Effect.succeed({ text: typeof result.message === "string" ? result.message : "", json: result })
    : Effect.fail({ message: result.error })

const callTool = (args: MemoryToolArgs) => Effect.flatMap(dispatchMemoryTool(args), toolOutput)

const readStdin = Effect.tryPromise({
  try: async () => {
    const chunks: Array<Buffer> = []
    for await (const c of process.stdin) chunks.push(c as Buffer)
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks))
  },
  catch: () => ({ message: "invalid arguments: standard input is not valid UTF-8" })
})

const tool = Command.make(
  "tool",
  {
    json: Args.text({ name: "json" }).pipe(
      Args.withDescription("the tool's arguments as JSON, or - to read them from stdin"),
      Args.optional
    ),
    schema: Options.choice("schema", TOOL_FORMATS).pipe(
      Options.withDescription("print the tool's definition for openai, anthropic or mcp instead of running a call"),
      Options.optional
    )
  },
  ({ json, schema }) =>
    Effect.gen(function* () {
      // A usage mistake: reported like @effect/cli's own (one line, exit 2) by runCli.
      const usage = (message: string) => Effect.fail(ValidationError.invalidArgument(HelpDoc.p(message)))
      const g = yield* tmem
      if (Option.isSome(schema)) {
        if (Option.isSome(json)) return yield* usage("tool takes either a JSON argument or --schema, not both")
        const definition = toolDefinition(schema.value)
        return yield* Console.log(
          g.json ? JSON.stringify({ ok: true, result: definition }) : JSON.stringify(definition, null, 2)
        )
      }
      if (Option.isNone(json))
        return yield* usage("tool needs a JSON argument, - for stdin, or --schema openai|anthropic|mcp")
      return yield* report(
        g,
        Effect.gen(function* () {
          const text = json.value === "-" ? yield* readStdin : json.value
          const parsed = parseToolArgs(text)
          if (Either.isLeft(parsed)) return yield* Effect.fail({ message: parsed.left })
          // `--json` wraps the tool's own result object: {"ok":true,"result":{"success":true,…}}.
          return yield* callTool(parsed.right)
        })
      )
    })
).pipe(
  Command.withDescription(
    'run one call of the `memory` tool, e.g. tmem tool \'{"action":"stats","target":"env"}\'; ' +
      "--schema prints its definition"
  )
)

const describeFile = (t: Target, entries: ReadonlyArray<string>, cap: number) => {
  const used = usedBytes(entries)
  return (
    `${t}: ${used}/${cap} bytes (${fillPercent(used, cap)}%), ${plural(entries.length, "entry", "entries")}\n` +
    `${renderEntries(entries) || "(empty)"}`
  )
}

/**
 * A hand edit that was not adopted stays outstanding until a person fixes it: every `facts show` and `prompt` says
 * so on stderr while its kept file exists (the load that refused it has already said why, once).
 */
const remindRejectedEdits = (g: Globals, targets: ReadonlyArray<Target>) =>
  Effect.forEach(
    targets,
    (t) =>
      Effect.gen(function* () {
        const dir = resolveMemoryDir(g)
        const kept = (yield* Effect.sync(() => {
          try {
            return fs.readdirSync(dir)
          } catch {
            return []
          }
        })).filter((n) => n.startsWith(`${t}.md.rejected-v`))
        if (kept.length === 0) return
        const rejection = yield* outstandingEditRejection(t)
        if (
          rejection === undefined ||
          !kept.includes(rejection.keptAs) ||
          warned.some((w) => w.includes(rejection.keptAs))
        )
          return
        yield* Effect.logWarning(
          `memory: ${t}.md has an edit that was not adopted (${rejection.reason}); it is kept as ${rejection.keptAs} ` +
            `and the memory still holds the last valid ${t}.md — fix it and save it as ${t}.md`
        )
      }),
    { discard: true }
  )

/**
 * Entries the current scanner refuses stay in the file but never reach the model: every `facts show` and `prompt`
 * names them on stderr, with how to remove them, until a person does.
 */
const warnBlocked = (files: ReadonlyArray<{ readonly t: Target; readonly blocked: ReadonlyArray<BlockedEntry> }>) =>
  Effect.forEach(
    files.flatMap((f) => f.blocked.map((b) => ({ t: f.t, b }))),
    ({ t, b }) =>
      Effect.logWarning(
        `memory: ${t} entry ${b.index + 1} is blocked from the prompt (${b.label}): ${preview(b.entry, 60)}; ` +
          `the model sees ${blockedLine(b.label)} — remove it with tmem facts edit ${t}`
      ),
    { discard: true }
  )

const show = Command.make("show", { target: targetArg.pipe(Args.optional) }, ({ target: raw }) =>
  Effect.flatMap(tmem, (g) =>
    report(
      g,
      Effect.gen(function* () {
        const targets = Option.isSome(raw) ? [yield* parseTarget(raw.value)] : TARGETS
        const files = yield* Effect.forEach(targets, (t) =>
          Effect.map(Effect.all([screenFacts(t), capOf(t)]), ([s, cap]) => ({
            t,
            entries: s.entries,
            blocked: s.blocked,
            cap
          }))
        )
        yield* remindRejectedEdits(g, targets)
        yield* warnBlocked(files)
        return {
          text: files.map((f) => describeFile(f.t, f.entries, f.cap)).join("\n\n"),
          json: Object.fromEntries(
            files.map((f) => [
              f.t,
              {
                used: usedBytes(f.entries),
                cap: f.cap,
                entries: f.entries,
                blocked: f.blocked.map((b) => ({ index: b.index, label: b.label }))
              }
            ])
          )
        }
      })
    )
  )
).pipe(Command.withDescription("print the fact files with their fill (all targets, or one)"))

const add = Command.make("add", { target: targetArg, content: Args.text({ name: "content" }) }, ({ target, content }) =>
  Effect.flatMap(tmem, (g) => report(g, callTool({ action: "add", target, content })))
).pipe(Command.withDescription("add a fact (scanned, merged with a near-duplicate, capped) — same rules as the tool"))

const replace = Command.make(
  "replace",
  { target: targetArg, oldText: Args.text({ name: "old_text" }), content: Args.text({ name: "content" }) },
  ({ target, oldText, content }) =>
    Effect.flatMap(tmem, (g) => report(g, callTool({ action: "replace", target, old_text: oldText, content })))
).pipe(Command.withDescription("replace the entry old_text selects (whole entry, or a unique substring)"))

const remove = Command.make(
  "remove",
  { target: targetArg, oldText: Args.text({ name: "old_text" }) },
  ({ target, oldText }) =>
    Effect.flatMap(tmem, (g) => report(g, callTool({ action: "remove", target, old_text: oldText })))
).pipe(Command.withDescription("remove the entry old_text selects"))

const stats = Command.make("stats", { target: targetArg }, ({ target: t }) =>
  Effect.flatMap(tmem, (g) =>
    report(
      g,
      Effect.gen(function* () {
        const result = yield* dispatchMemoryTool({ action: "stats", target: t })
        if (!result.success) return yield* Effect.fail({ message: result.error })
        const s = result as unknown as {
          target: string
          used: number
          cap: number
          entries: ReadonlyArray<{ index: number; chars: number; preview: string }>
        }
        const lines = [
          `${s.target}: ${s.used}/${s.cap} bytes (${fillPercent(s.used, s.cap)}%), ` +
            `${plural(s.entries.length, "entry", "entries")}`
        ]
        for (const e of s.entries) lines.push(`[${e.index}] ${e.chars}c ${goQuote(e.preview)}`)
        return { text: lines.join("\n"), json: result }
      })
    )
  )
).pipe(Command.withDescription("fill and per-entry sizes of one fact file"))

/** Opens the file's text in $VISUAL/$EDITOR; returns the saved text, or undefined when the editor failed. */
const runEditor = (file: string) =>
  Effect.sync(() => {
    const editor = process.env.VISUAL || process.env.EDITOR || "vi"
    const r = spawnSync("/bin/sh", ["-c", `${editor} "$1"`, "tmem-edit", file], { stdio: "inherit" })
    return r.status === 0 ? undefined : `the editor (${editor}) exited with ${r.status ?? r.signal}`
  })

const edit = Command.make("edit", { target: targetArg }, ({ target: raw }) =>
  Effect.flatMap(tmem, (g) =>
    report(
      g,
      Effect.gen(function* () {
        const t = yield* parseTarget(raw)
        if (!(yield* Settings).enabled) return yield* Effect.fail(new MemoryDisabled())
        const fs = yield* FileSystem.FileSystem
        const loaded = yield* loadFacts(t)
        const original = renderEntries(loaded.state.entries)
        const dir = yield* fs.makeTempDirectory({ prefix: "tmem-edit-" })
        const file = Path.join(dir, `${t}.md`)
        yield* fs.writeFileString(file, original, { mode: 0o600 })
        const editorFailure = yield* runEditor(file)
        if (editorFailure !== undefined)
          return yield* Effect.fail({ message: `memory: ${editorFailure}; nothing written (your text is in ${file})` })
        const bytes = yield* fs.readFile(file)
        let text: string
        try {
          text = new TextDecoder("utf-8", { fatal: true }).decode(bytes)
        } catch {
          return yield* Effect.fail({
            message: `memory: the edited text is not valid UTF-8; nothing written (your text is in ${file})`
          })
        }
        const result = yield* rewriteFacts(t, text, loaded.version).pipe(
          Effect.mapError((e) =>
            e._tag === "VersionConflict"
              ? {
                  message:
                    `memory: ${t}.md changed while you were editing; nothing written ` +
                    `(your text is in ${file}); run edit again`
                }
              : { message: `${e.message} — nothing written (your text is in ${file})` }
          )
        )
        yield* fs.remove(dir, { recursive: true }).pipe(Effect.ignore)
        return {
          text: result.changed
            ? `${t}: saved ${plural(result.entries.length, "entry", "entries")}`
            : `${t}: no changes`,
          json: { target: t, changed: result.changed, entries: result.entries }
        }
      })
    )
  )
).pipe(
  Command.withDescription(
    "edit a fact file in $EDITOR; the result is validated (separator, scan, cap) before it is written"
  )
)

const consolidate = Command.make("consolidate", { target: targetArg }, ({ target }) =>
  Effect.flatMap(tmem, (g) => report(g, callTool({ action: "consolidate", target })))
).pipe(
  Command.withDescription(
    "merge related entries with the configured model; applied only if nothing is lost (docs/CONSOLIDATION.md)"
  )
)

/** `env@7`, or `7` with --target or when only one file has a revertible change at that version. */
const parseRevertRef = (ref: string): { readonly target?: Target; readonly version: number } | undefined => {
  const m = /^(?:(user|env)@)?([1-9][0-9]{0,15})$/.exec(ref.trim())
  if (m === null) return undefined
  return m[1] === undefined ? { version: Number(m[2]) } : { target: m[1] as Target, version: Number(m[2]) }
}

const revert = Command.make(
  "revert",
  {
    ref: Args.text({ name: "version" }).pipe(
      Args.withDescription("the change to undo, as <target>@<version> (e.g. env@7; see tmem events)")
    ),
    target: Options.text("target").pipe(
      Options.withDescription("user or env, when the version is a bare number"),
      Options.optional
    )
  },
  ({ ref, target: targetOption }) =>
    Effect.flatMap(tmem, (g) =>
      report(
        g,
        Effect.gen(function* () {
          const parsed = parseRevertRef(ref)
          if (parsed === undefined)
            return yield* Effect.fail({
              message:
                `memory: ${goQuote(ref)} is not a version; ` + "use <target>@<version> such as env@7 (see tmem events)"
            })
          const named = Option.isSome(targetOption) ? yield* parseTarget(targetOption.value) : parsed.target
          let target: Target
          if (named !== undefined) target = named
          else {
            const found = yield* Effect.forEach(TARGETS, (t) => Effect.either(revertible(t, parsed.version)))
            const ok = TARGETS.filter((_, i) => Either.isRight(found[i]!))
            if (ok.length === 1) target = ok[0]!
            else if (ok.length === 2)
              return yield* Effect.fail({
                message:
                  `memory: both user@${parsed.version} and env@${parsed.version} can be reverted; ` +
                  `name one, e.g. tmem facts revert env@${parsed.version}`
              })
            else
              return yield* Effect.fail({
                message:
                  `memory: neither user nor env has a revertible change at version ${parsed.version}; ` +
                  "name it as <target>@<version> (see tmem events)"
              })
          }
          const r = yield* revertFacts(target, parsed.version)
          return {
            text: r.changed
              ? `reverted ${target}@${r.reverted}: ${target} now has ${plural(r.entries.length, "entry", "entries")}`
              : `${target}@${r.reverted}: nothing to revert (the file already holds those entries)`,
            json: r
          }
        })
      )
    )
).pipe(
  Command.withDescription("undo a consolidation, rewrite or hand edit by appending its inverse; later changes are kept")
)

const facts = Command.make("facts").pipe(
  Command.withDescription("show and edit the fact files (user.md, env.md)"),
  Command.withSubcommands([show, add, replace, remove, stats, edit, consolidate, revert])
)

const llmServer = Command.make(
  "llm-server",
  {
    port: Options.integer("port").pipe(
      Options.withDefault(0),
      Options.withDescription("port to listen on (0 picks a free one)")
    ),
    host: Options.text("host").pipe(Options.withDefault("127.0.0.1"), Options.withDescription("address to listen on")),
    delayMs: Options.integer("delay-ms").pipe(
      Options.withDefault(0),
      Options.withDescription("wait this long before every answer")
    )
  },
  ({ port, host, delayMs }) =>
    Effect.flatMap(tmem, (g) =>
      Effect.scoped(
        Effect.gen(function* () {
          if (port < 0 || port > 65535)
            return yield* Effect.fail({ message: `tmem: --port must be 0–65535 (got ${port})` })
          if (delayMs < 0) return yield* Effect.fail({ message: `tmem: --delay-ms must be 0 or more (got ${delayMs})` })
          // loaded on demand: node:http has no place in the start-up of ordinary commands
          const { startScriptedServer } = yield* Effect.promise(() => import("../dev/ScriptedServer.js"))
          const { demoHandler } = yield* Effect.promise(() => import("../dev/demoScript.js"))
          const server = yield* Effect.acquireRelease(
            Effect.tryPromise({
              try: () =>
                startScriptedServer({
                  host,
                  port,
                  handler: (request, n) =>
                    Promise.resolve(demoHandler(request, n)).then((r) => (delayMs > 0 ? { ...r, delayMs } : r))
                }),
              catch: (e) => ({
                message:
                  `tmem: cannot listen on ${host}:${port}: ${e instanceof Error ? e.message : String(e)}; ` +
                  "pick another --port"
              })
            }),
            (s) => Effect.promise(() => s.close())
          )
          if (g.json) yield* Console.log(JSON.stringify({ ok: true, result: { url: server.url, model: "scripted" } }))
          else {
            yield* Console.log(`scripted OpenAI-compatible server listening on ${server.url}`)
            yield* Console.log(
              `try: tmem --llm-url ${server.url} --llm-model scripted facts consolidate env   (Ctrl-C stops it)`
            )
          }
          yield* runsUntilSignal
          return yield* Effect.never
        })
      ).pipe(Effect.catchAll((e) => refuse(g, e.message)))
    )
).pipe(
  Command.withDescription("serve a deterministic OpenAI-compatible model and embedder on loopback, for demos and tests")
)

const dev = Command.make("dev").pipe(Command.withDescription("developer tools"), Command.withSubcommands([llmServer]))

const prompt = Command.make("prompt", {}, () =>
  Effect.flatMap(tmem, (g) =>
    report(
      g,
      Effect.map(
        Effect.zipLeft(
          memoryBlock(),
          Effect.zipRight(
            remindRejectedEdits(g, TARGETS),
            Effect.flatMap(
              Effect.forEach(TARGETS, (t) => Effect.map(screenFacts(t), (s) => ({ t, blocked: s.blocked }))),
              warnBlocked
            )
          )
        ),
        (block) => ({
          text: block.replace(/\n$/, ""),
          json: { block }
        })
      )
    )
  )
).pipe(Command.withDescription("print the memory block as it is injected into the system prompt at session start"))

/** One history line: when, which version (what `facts revert` takes), what. */
const historyLine = (e: LifecycleEvent) => `${e.timestamp}  ${e.target ?? e.stream}@${e.version}  ${formatLifecycle(e)}`

const events = Command.make(
  "events",
  {
    follow: Options.boolean("follow").pipe(Options.withAlias("f"), Options.withDescription("keep printing new events")),
    after: Options.integer("after").pipe(
      Options.withDefault(0),
      Options.withDescription("only what was written after this feed position (an event's `position`)")
    )
  },
  ({ follow, after }) =>
    Effect.flatMap(tmem, (g) => {
      if (after < 0)
        return report(g, Effect.fail({ message: `tmem: --after must be a feed position, 0 or more (got ${after})` }))
      if (!follow)
        return report(
          g,
          Effect.map(lifecycleFeed(after), ({ events: list }) => ({
            text: list.map((e) => historyLine(e)).join("\n"),
            json: list
          }))
        )
      // Following prints one event per line (JSON lines with --json) as any process writes it, until interrupted.
      return report(
        g,
        Effect.gen(function* () {
          yield* runsUntilSignal
          yield* Stream.runForEach(followLifecycle(after), (e) =>
            Console.log(g.json ? JSON.stringify({ ok: true, result: e }) : historyLine(e))
          )
          return { text: "", json: null }
        })
      )
    })
).pipe(Command.withDescription("print the journal as lifecycle events (--follow to keep watching)"))

const demo = Command.make("demo", {}, () => Effect.flatMap(tmem, (g) => runDemo(g))).pipe(
  Command.withDescription("a scripted walk through the memory on a temporary directory (or --dir); no network")
)

export const command = tmem.pipe(
  Command.withDescription("tiered-memory: persistent, bounded, auditable memory for AI agents"),
  Command.withSubcommands([
    tool,
    facts,
    prompt,
    events,
    sessionCmd,
    episodes,
    recall,
    atoms,
    evalCommand,
    mcpCommand,
    migrateCommand,
    exportCommand,
    dbCommand,
    demo,
    simulateCommand,
    dev
  ])
)

const VERSION = "0.1.0"
const app = Command.run(command, { name: "tmem", version: VERSION })
const tree = commandTree(command)

/** A usage mistake: one line (stderr, or the `{"ok":false}` object with --json), exit 2. */
const usageError = (json: boolean, message: string) =>
  Effect.as(
    json
      ? Console.log(JSON.stringify({ ok: false, error: `tmem: ${message}` }))
      : Console.error(`tmem: ${printable(message)}; see tmem --help`),
    2
  )

/**
 * Runs the parsed command. Its error lines are held until it ends: when @effect/cli refuses the command line it
 * has already printed its own (coloured, multi-line) account, which is replaced by one line; any other error line
 * is printed as it was written, made printable.
 */
const runParsed = (argv: ReadonlyArray<string>, json: boolean) =>
  Effect.flatMap(Effect.console, (console) => {
    const errors: Array<string> = []
    const held = {
      ...console,
      error: (...args: ReadonlyArray<unknown>) => Effect.sync(() => void errors.push(args.map(String).join(" ")))
    }
    const flush = Effect.forEach(errors, (line) => Console.error(printableLines(line)), { discard: true })
    return app(argv).pipe(
      Console.withConsole(held),
      Effect.exit,
      Effect.flatMap((exit) => {
        if (Exit.isSuccess(exit)) return Effect.as(flush, 0)
        // an interruption (Ctrl-C, SIGTERM) stays one: the entry point decides the exit code
        if (Cause.isInterruptedOnly(exit.cause)) return Effect.zipRight(flush, Effect.interrupt)
        const e = Cause.failureOption(exit.cause)
        if (Option.isSome(e) && ValidationError.isValidationError(e.value))
          return usageError(json, plainHelp(e.value.error).replace(/\s+/g, " ").trim())
        if (Option.isSome(e) && e.value instanceof Refused) return Effect.as(flush, 1)
        const message = Option.match(e, {
          onSome: (v) => String((v as { message?: unknown }).message ?? v),
          onNone: () => {
            const d = Cause.squash(exit.cause)
            return `internal error: ${d instanceof Error ? d.message : String(d)}`
          }
        })
        const report = json
          ? Console.log(JSON.stringify({ ok: false, error: `tmem: ${message}` }))
          : Console.error(`tmem: ${printable(message)}`)
        return Effect.as(Effect.zipRight(flush, report), 1)
      })
    )
  })

/**
 * Runs the CLI and returns the exit code: 0 success, 1 refused or failed (already reported), 2 usage.
 * Never fails, so tests can run it in-process with a captured Console.
 */
export const runCli = (argv: ReadonlyArray<string>) =>
  Effect.suspend(() => {
    const [runtime = "node", script = "tmem", ...args] = argv
    const front = frontEnd(tree, VERSION, args)
    switch (front._tag) {
      case "Help":
        return Effect.as(Console.log(front.text), 0)
      case "Version":
        return Effect.as(Console.log(`tmem ${VERSION}`), 0)
      case "Usage":
        return usageError(front.json, front.message)
      case "Run":
        return runParsed([runtime, script, ...front.args], front.json)
    }
  })

export { refuse }
export type { Globals }
