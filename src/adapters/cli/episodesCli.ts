import { Args, Command, Options } from "@effect/cli"
import { FileSystem } from "@effect/platform"
import { Effect, Either, ParseResult, Schema } from "effect"
import * as Path from "node:path"
import { compactEpisodes, discardEpisode, findEpisode, listEpisodes, promoteEpisode } from "../../app/episodes.js"
import { recallDetailed, searchEpisodes } from "../../app/recall.js"
import { endSession, recordMessages, resumeSessionEnd, sessionProgress, trimHistory } from "../../app/sessions.js"
import { type Episode, previewOf } from "../../domain/episodes/store.js"
import { ChatMessage } from "../../domain/sessions/message.js"
import { printable } from "../../domain/text/printable.js"
import { isPendingReview } from "../../domain/sessions/provenance.js"
import { goQuote, plural } from "../../domain/text/utf8.js"
import { resolveMemoryDir } from "./globals.js"
import { report } from "./output.js"
import { tmem } from "./root.js"
import { trustZoneFor } from "../trustZone.js"

/** A recorded session, as `tmem session ingest` reads it (docs/FORMATS.md). */
const TranscriptToolCall = Schema.Struct({
  name: Schema.String,
  // agents log arguments either as the JSON string the model sent or as the parsed object
  arguments: Schema.optionalWith(
    Schema.Union(Schema.String, Schema.Record({ key: Schema.String, value: Schema.Unknown })),
    { default: () => "" }
  )
})
const TranscriptMessage = Schema.Struct({
  role: Schema.Literal("system", "user", "assistant", "tool"),
  content: Schema.optionalWith(Schema.String, { default: () => "" }),
  tool_calls: Schema.optionalWith(Schema.Array(TranscriptToolCall), { exact: true }),
  tool_name: Schema.optionalWith(Schema.String, { exact: true })
})
export const Transcript = Schema.Struct({
  session_id: Schema.String,
  workspace: Schema.optionalWith(Schema.String, { exact: true }),
  messages: Schema.Array(TranscriptMessage),
  /** How many of the oldest messages the agent trimmed from its history before the session ended. */
  trimmed: Schema.optionalWith(Schema.Number.pipe(Schema.int(), Schema.nonNegative()), { exact: true })
})

const describeIssue = (e: ParseResult.ParseError) => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(e)[0]
  const where =
    issue === undefined || issue.path.length === 0
      ? "(top level)"
      : `$.${issue.path
          .map((p) => (typeof p === "number" ? `[${p}]` : String(p)))
          .join(".")
          .replace(/\.\[/g, "[")}`
  // the path may name a key the file holds, newline and all: shown escaped, on one line
  return printable(`${where}: ${(issue?.message ?? e.message).replace(/\s+/g, " ")}`)
}

/** A transcript nested too deeply to show or record (thousands of levels): refused rather than overflowing. */
const TOO_DEEP = "a value is nested too deeply (thousands of levels); a tool call's arguments must be a flat object"

const trustOf = (e: Episode) =>
  isPendingReview(e.provenance)
    ? `pending review (untrusted: ${(e.provenance.sources ?? []).join(", ") || "unknown"})`
    : e.provenance.user_approved === true
      ? "promoted"
      : e.provenance.auto_approved === true
        ? "auto-approved"
        : "trusted"

/** The messages an earlier, interrupted ingest recorded are this transcript's first ones. */
const sameMessage = Schema.equivalence(ChatMessage)
const sameMessages = (a: ReadonlyArray<ChatMessage>, b: ReadonlyArray<ChatMessage>) =>
  a.length === b.length && a.every((m, i) => sameMessage(m, b[i]!))

const ingest = Command.make(
  "ingest",
  {
    file: Args.file({ name: "transcript.json", exists: "yes" }).pipe(
      Args.withDescription("a recorded session (docs/FORMATS.md)")
    )
  },
  ({ file }) =>
    Effect.flatMap(tmem, (g) =>
      report(
        g,
        Effect.gen(function* () {
          const fsys = yield* FileSystem.FileSystem
          const text = yield* fsys
            .readFileString(file)
            .pipe(Effect.mapError((e) => ({ message: `tmem: cannot read ${file}: ${e.message}` })))
          let json: unknown
          try {
            json = JSON.parse(text)
          } catch (e) {
            // JSON.parse quotes the text it choked on, which may hold a newline or a control character
            const why = printable((e instanceof Error ? e.message : String(e)).replace(/\s+/g, " "))
            return yield* Effect.fail({ message: `tmem: ${file} is not JSON (${why}); see docs/FORMATS.md` })
          }
          const decoded = (() => {
            try {
              return Either.mapLeft(
                Schema.decodeUnknownEither(Transcript, { errors: "first", onExcessProperty: "error" })(json),
                describeIssue
              )
            } catch {
              // the error formatter quotes a wrong value recursively
              return Either.left(TOO_DEEP)
            }
          })()
          const t = yield* Either.mapLeft(decoded, (why) => ({
            message: `tmem: ${file}: ${why}; see docs/FORMATS.md for the transcript format`
          }))
          const argumentsText = (a: string | Readonly<Record<string, unknown>>) => {
            if (typeof a === "string") return Either.right(a)
            try {
              return Either.right(JSON.stringify(a))
            } catch {
              return Either.left({
                message: `tmem: ${file}: ${TOO_DEEP}; see docs/FORMATS.md for the transcript format`
              })
            }
          }
          const calls = t.messages.flatMap((m) => m.tool_calls ?? [])
          const texts = new Map<(typeof calls)[number], string>()
          for (const c of calls) texts.set(c, yield* argumentsText(c.arguments))
          // a session cut short (Ctrl-C, a crash) is finished from where it stopped; a finished one is refused
          const progress = yield* sessionProgress(t.session_id)
          const alreadyIngested = {
            message: `tmem: session ${goQuote(t.session_id)} was already ingested; give the transcript a new session_id`
          }
          if (progress.ended && !progress.owed) return yield* Effect.fail(alreadyIngested)
          const zone = trustZoneFor(Path.resolve(t.workspace ?? process.cwd()), resolveMemoryDir(g))
          const messages: ReadonlyArray<ChatMessage> = t.messages.map((m) => ({
            role: m.role,
            content: m.content,
            ...(m.tool_calls !== undefined
              ? {
                  toolCalls: m.tool_calls.map((c) => ({
                    name: c.name,
                    arguments: texts.get(c)!
                  }))
                }
              : {}),
            ...(m.tool_name !== undefined ? { toolName: m.tool_name } : {})
          }))
          if (!sameMessages(progress.recorded, messages.slice(0, progress.recorded.length)))
            return yield* Effect.fail(alreadyIngested)
          const items = messages.flatMap((m, i) => {
            if (i < progress.recorded.length) return []
            // Tier 2 lines: each user input, and the agent's last written reply before the next user message
            const next = messages
              .slice(i + 1)
              .find((x) => x.role === "user" || (x.role === "assistant" && x.content.trim() !== ""))
            const buffer =
              m.role === "user"
                ? "user"
                : m.role === "assistant" && m.content.trim() !== "" && next?.role !== "assistant"
                  ? "agent"
                  : undefined
            return [{ message: m, buffer } as const]
          })
          // one durable batch for the whole transcript: an interrupted ingest has recorded all of it or none
          yield* recordMessages(t.session_id, items, zone)
          if (t.trimmed !== undefined && t.trimmed > 0 && !progress.trimmed) yield* trimHistory(t.session_id, t.trimmed)
          const outcome = progress.ended
            ? yield* resumeSessionEnd(t.session_id, zone)
            : yield* endSession(t.session_id, zone)
          const head = `session ${t.session_id}: ${plural(messages.length, "message", "messages")}`
          const what =
            outcome.kind === "skipped"
              ? `no episode (${outcome.reason})`
              : outcome.kind === "declined"
                ? "no episode (the summary was declined as not worth remembering)"
                : outcome.droppedAsDuplicateOf !== undefined
                  ? `episode dropped: an untrusted near-copy of ${outcome.droppedAsDuplicateOf}`
                  : `episode stored (${outcome.source === "extractive" ? "extractive summary, no LLM; " : ""}` +
                    (outcome.provenance.untrusted === true
                      ? `pending review, untrusted: ${(outcome.provenance.sources ?? []).join(", ")}`
                      : "trusted") +
                    ")"
          return { text: `${head}; ${what}`, json: { session_id: t.session_id, messages: messages.length, outcome } }
        })
      )
    )
).pipe(
  Command.withDescription(
    "feed a recorded session through the memory and run its session-end work (episode, facts, consolidation)"
  )
)

export const sessionCmd = Command.make("session").pipe(
  Command.withDescription("sessions: ingest recorded transcripts"),
  Command.withSubcommands([ingest])
)

const listLine = (e: Episode) =>
  `${e.sessionId}  ${e.createdAt.slice(0, 16).replace("T", " ")}  ${plural(e.turns, "turn", "turns")}  ${trustOf(e)}` +
  `${e.source === "extractive" ? "  [extractive]" : ""}\n  ${previewOf(e)}`
const episodeJson = (e: Episode) => ({
  session_id: e.sessionId,
  turns: e.turns,
  created_at: e.createdAt,
  summary: previewOf(e),
  trust: isPendingReview(e.provenance) ? "pending_review" : "recallable",
  provenance: e.provenance,
  extractive: e.source === "extractive"
})

const list = Command.make(
  "list",
  {
    all: Options.boolean("all").pipe(
      Options.withDescription("every episode with its trust state, not only those pending review")
    )
  },
  ({ all }) =>
    Effect.flatMap(tmem, (g) =>
      report(
        g,
        Effect.map(listEpisodes({ all }), (eps) => ({
          text: eps.length === 0 ? (all ? "no episodes" : "no episodes pending review") : eps.map(listLine).join("\n"),
          json: eps.map(episodeJson)
        }))
      )
    )
).pipe(Command.withDescription("episodes pending review (newest first), or --all"))

const idArg = Args.text({ name: "session_id" })

const show = Command.make("show", { id: idArg }, ({ id }) =>
  Effect.flatMap(tmem, (g) =>
    report(
      g,
      Effect.gen(function* () {
        const e = yield* findEpisode(id)
        if (e === undefined) return yield* Effect.fail({ message: `memory: episode ${goQuote(id)} not found` })
        return { text: `${listLine(e).split("\n")[0]}\n\n${e.summary}`, json: { ...episodeJson(e), text: e.summary } }
      })
    )
  )
).pipe(Command.withDescription("one episode's full summary, whatever its trust (a person reviewing it)"))

const promote = Command.make("promote", { id: idArg }, ({ id }) =>
  Effect.flatMap(tmem, (g) =>
    report(
      g,
      Effect.as(promoteEpisode(id), {
        text: `promoted ${id}: it is recalled from now on`,
        json: { session_id: id, promoted: true }
      })
    )
  )
).pipe(Command.withDescription("approve an episode after review (a person's act; agents cannot do this)"))

const discard = Command.make("discard", { id: idArg }, ({ id }) =>
  Effect.flatMap(tmem, (g) =>
    report(g, Effect.as(discardEpisode(id), { text: `discarded ${id}`, json: { session_id: id, discarded: true } }))
  )
).pipe(Command.withDescription("remove an episode pending review (the journal keeps the record)"))

const search = Command.make(
  "search",
  { query: Args.text({ name: "query" }), limit: Options.integer("limit").pipe(Options.withDefault(5)) },
  ({ query, limit }) =>
    Effect.flatMap(tmem, (g) =>
      report(
        g,
        Effect.map(searchEpisodes(query, limit), (hits) => ({
          text:
            hits.length === 0
              ? "no matching episodes found"
              : hits.map((h) => `${h.sessionId} (${plural(h.turns, "turn", "turns")})\n  ${h.preview}`).join("\n"),
          json: hits
        }))
      )
    )
).pipe(Command.withDescription("search recallable episodes as the memory tool's search action does"))

const compact = Command.make(
  "compact",
  {
    keepDays: Options.integer("keep-days").pipe(
      Options.withDescription("keep the journal's history of the last N days; fold what is older into its base")
    )
  },
  ({ keepDays }) =>
    Effect.flatMap(tmem, (g) =>
      report(
        g,
        Effect.gen(function* () {
          if (keepDays < 0)
            return yield* Effect.fail({ message: "memory: --keep-days must be 0 or more (days of history to keep)" })
          const r = yield* compactEpisodes(keepDays)
          return {
            text:
              r.through === undefined
                ? "nothing to compact: the episodes journal holds no history older than that besides its last batch"
                : `compacted the episodes journal: ${plural(r.forgotten, "batch", "batches")} up to version ` +
                  `${r.through} folded into its base`,
            json: { forgotten: r.forgotten, through: r.through ?? null }
          }
        })
      )
    )
).pipe(
  Command.withDescription(
    "fold the episodes journal's history older than --keep-days into one base line (episodes are kept)"
  )
)

export const episodes = Command.make("episodes").pipe(
  Command.withDescription("episodes (Tier 3): review, promote, search, compact"),
  Command.withSubcommands([list, show, promote, discard, search, compact])
)

export const recall = Command.make("recall", { query: Args.text({ name: "query" }) }, ({ query }) =>
  Effect.flatMap(tmem, (g) =>
    report(
      g,
      Effect.map(recallDetailed(query), ({ block, episodes }) => ({
        text: block === "" ? "(nothing recalled)" : block.replace(/^\n|\n$/g, ""),
        json: {
          block,
          episodes: episodes.map((e) => ({
            session_id: e.sessionId,
            turns: e.turns,
            preview: e.preview,
            passages: e.passages ?? []
          }))
        }
      }))
    )
  )
).pipe(Command.withDescription("what per-turn recall would inject for this user message"))
