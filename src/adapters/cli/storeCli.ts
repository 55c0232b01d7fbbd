import { Command, Options } from "@effect/cli"
import { Console, Context, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as Path from "node:path"
import { type CopyProgress, copyMemory } from "../../app/transfer.js"
import { storeProblem } from "../../domain/config/MemoryConfig.js"
import { EventStore } from "../../ports/EventStore.js"
import { storeLayer } from "../live.js"
import { type Globals, resolveConfig, resolveDir, resolveMemory } from "./globals.js"
import { refuse } from "./output.js"
import { tmem } from "./root.js"

const isUrl = (location: string) => /^postgres(ql)?:\/\//.test(location)

/** Where a location is, as a person may be told: a directory by its path, a database never by its URL. */
const shownLocation = (location: string) => {
  if (!isUrl(location)) return location
  try {
    const u = new URL(location)
    return `postgres at ${u.hostname}:${u.port || "5432"}/${u.pathname.replace(/^\//, "")}`
  } catch {
    return "postgres"
  }
}

/** The location a `--from`/`--to` names, checked: a postgres:// URL, or a directory (made absolute). */
const location = (raw: string, option: string): string | { readonly message: string } => {
  const value = raw.trim()
  if (value === "") return { message: `tmem: ${option} needs a directory or a postgres:// URL` }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) && !isUrl(value))
    return { message: `tmem: ${option}: ${storeProblem(value)}` }
  return isUrl(value) ? value : Path.resolve(value)
}

/** Progress of a copy on stderr, when it is a terminal. */
const progressLine = (p: CopyProgress) =>
  process.stderr.isTTY ? Console.error(`\r\u001b[2Kcopying: ${p.copied} batches (of at most ${p.total})`) : Effect.void

/** Copies the memory at `from` into the empty memory at `to` (the same memory id on both sides). */
const copyBetween = (g: Globals, from: string, to: string) =>
  Effect.gen(function* () {
    const config = yield* resolveConfig(g)
    const memory = resolveMemory(g)
    if (from === to) return yield* Effect.fail({ message: "tmem: --from and --to name the same store" })
    if (!isUrl(from) && !fs.existsSync(from))
      return yield* Effect.fail({ message: `tmem: ${from} does not exist; name the memory directory to copy from` })
    const copied = yield* Effect.scoped(
      Effect.gen(function* () {
        const source = Context.get(yield* Layer.build(storeLayer(from, memory, config)), EventStore)
        const target = Context.get(yield* Layer.build(storeLayer(to, memory, config)), EventStore)
        return yield* copyMemory(source, target, progressLine)
      })
    )
    if (process.stderr.isTTY) yield* Console.error("")
    return {
      text:
        `copied ${copied.batches} batches (${copied.events} events) of ${copied.streams} streams ` +
        `from ${shownLocation(from)} to ${shownLocation(to)}${memory === "default" ? "" : ` (memory ${memory})`}`,
      json: { ...copied, memory }
    }
  })

const output = <R>(
  g: Globals,
  program: Effect.Effect<{ text: string; json: unknown }, { readonly message: string }, R>
) =>
  program.pipe(
    Effect.matchEffect({
      onSuccess: (out) => Console.log(g.json ? JSON.stringify({ ok: true, result: out.json }) : out.text),
      onFailure: (e) => refuse(g, /^(tmem|memory|config): /.test(e.message) ? e.message : `tmem: ${e.message}`)
    })
  )

export const migrateCommand = Command.make(
  "migrate",
  {
    from: Options.text("from").pipe(Options.withDescription("the memory to copy: a directory or a postgres:// URL")),
    to: Options.text("to").pipe(Options.withDescription("where to copy it (empty): a directory or a postgres:// URL"))
  },
  ({ from, to }) =>
    Effect.flatMap(tmem, (g) => {
      const a = location(from, "--from")
      const b = location(to, "--to")
      if (typeof a !== "string") return output(g, Effect.fail(a))
      if (typeof b !== "string") return output(g, Effect.fail(b))
      return output(g, copyBetween(g, a, b))
    })
).pipe(
  Command.withDescription(
    "copy a memory between a directory and PostgreSQL (either way), versions and history intact; " +
      "the target must be empty"
  )
)

export const exportCommand = Command.make(
  "export",
  {
    to: Options.text("to").pipe(
      Options.withDescription(
        "an empty or new directory: it gets odek's layout (user.md, env.md, episodes) and the journal"
      )
    )
  },
  ({ to }) =>
    Effect.flatMap(tmem, (g) =>
      Effect.gen(function* () {
        const config = yield* resolveConfig(g)
        const target = location(to, "--to")
        if (typeof target !== "string") return yield* Effect.fail(target)
        if (isUrl(target))
          return yield* Effect.fail({ message: "tmem: export writes a directory; use migrate --to for a database" })
        const from = config.store !== "" ? config.store : resolveDir(g)
        return yield* copyBetween(g, from, target)
      }).pipe((program) => output(g, program))
    )
).pipe(Command.withDescription("write the memory (from any store) as a directory in odek's layout"))

export const dbCommand = Command.make("db").pipe(
  Command.withDescription("the PostgreSQL store's tables (docs/SCALING.md)"),
  Command.withSubcommands([
    Command.make("migrate", {}, () =>
      Effect.flatMap(tmem, (g) =>
        output(
          g,
          Effect.gen(function* () {
            const config = yield* resolveConfig(g)
            if (config.store === "")
              return yield* Effect.fail({
                message: "tmem: db migrate needs a database: name it with --store, $TMEM_STORE or the config's store"
              })
            const { migrateDatabase } = yield* Effect.promise(() => import("../postgres/PgEventStore.js"))
            const done = yield* migrateDatabase({ url: config.store, memory: resolveMemory(g) })
            return {
              text:
                done.from === done.to
                  ? `the tables are up to date (schema version ${done.to}) on ${shownLocation(config.store)}`
                  : `the tables went from schema version ${done.from} to ${done.to} on ${shownLocation(config.store)}`,
              json: done
            }
          })
        )
      )
    ).pipe(Command.withDescription("create or upgrade the tables (otherwise done on first use)"))
  ])
)
