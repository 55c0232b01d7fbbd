import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { Effect } from "effect"
import * as DiskEventStore from "../../src/adapters/disk/DiskEventStore.js"
import { SCHEMA_VERSION } from "../../src/adapters/postgres/migrations.js"
import type { EpisodeEvent } from "../../src/domain/episodes/store.js"
import { EPISODES_STREAM, episodeCodec } from "../../src/domain/episodes/stream.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { BIN, tempDirs, tmem } from "../support/cli.js"
import { dropMemory, freshMemoryId, PG_URL, runPg } from "../support/postgres.js"

const dirs = tempDirs(afterAll)
const memories: Array<string> = []
afterAll(() => Effect.runPromise(Effect.forEach(memories, dropMemory, { discard: true })))

/** A memory id of this test file, removed from the database afterwards. */
const memoryId = () => {
  const id = freshMemoryId()
  memories.push(id)
  return id
}

describe("tmem --store: bad input", () => {
  it("a store that is not a postgres:// URL is refused in one line that does not repeat it", async () => {
    const dir = dirs.fresh()
    const run = await tmem(["--dir", dir, "--store", "mysql://agent:s3cret@db/test", "facts", "show"])
    expect(run.code).toBe(1)
    expect(run.stderr.trim()).toBe(
      "tmem: store must be a postgres:// URL (postgres://user@host:5432/database), " +
        "or absent for the memory directory (--store)"
    )
    expect(run.stderr).not.toContain("s3cret")
    const env = await tmem(["--dir", dir, "facts", "show"], { env: { TMEM_STORE: "redis://x" } })
    expect(env.stderr.trim()).toMatch(/\(\$TMEM_STORE\)$/)
    // nothing was created in the directory
    expect(fs.readdirSync(dir)).toEqual([])
  })

  it("a server that refuses the connection is named by host and port, never by the URL's password", async () => {
    const run = await tmem([
      "--dir",
      dirs.fresh(),
      "--store",
      "postgres://agent:s3cret@127.0.0.1:1/test",
      "facts",
      "show"
    ])
    expect(run.code).toBe(1)
    expect(run.stderr.trim().split("\n")).toHaveLength(1)
    expect(run.stderr).toContain("PostgreSQL at 127.0.0.1:1 is unavailable (connection refused)")
    expect(run.stderr).not.toContain("s3cret")
  })
})

describe.runIf(runPg)("tmem on PostgreSQL", () => {
  it("facts written by one process are in the next process's facts show and prompt", async () => {
    const memory = memoryId()
    const dir = dirs.fresh()
    const store = ["--dir", dir, "--store", PG_URL, "--memory", memory]
    expect((await tmem([...store, "facts", "add", "user", "Prefers dark mode"])).code).toBe(0)
    expect((await tmem([...store, "facts", "add", "env", "Staging listens on port 8443"])).code).toBe(0)
    const show = await tmem([...store, "facts", "show", "env"])
    expect(show.stdout).toBe("env: 28/8000 bytes (0%), 1 entry\nStaging listens on port 8443\n")
    const prompt = await tmem([...store, "prompt"])
    expect(prompt.stdout).toContain("Prefers dark mode")
    expect(prompt.stdout).toContain("Staging listens on port 8443")
    // the directory holds no fact file: the database is the memory
    expect(fs.existsSync(path.join(dir, "user.md"))).toBe(false)
  })

  it("the config file's store is used when no option names one", async () => {
    const memory = memoryId()
    const dir = dirs.fresh()
    fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify({ store: PG_URL }))
    expect((await tmem(["--dir", dir, "--memory", memory, "facts", "add", "user", "Uses vim"])).code).toBe(0)
    const show = await tmem(["--dir", dirs.fresh(), "--store", PG_URL, "--memory", memory, "facts", "show", "user"])
    expect(show.stdout).toContain("Uses vim")
  })

  it("migrate copies a directory into the database and export writes it back: same history, same files", async () => {
    const memory = memoryId()
    const source = dirs.fresh()
    const local = ["--dir", source, "--memory", memory]
    for (const [target, fact] of [
      ["user", "Prefers dark mode"],
      ["env", "CI runs on Node 20"],
      ["env", "Staging listens on port 8443"]
    ] as const)
      expect((await tmem([...local, "facts", "add", target, fact])).code).toBe(0)
    expect((await tmem([...local, "facts", "remove", "env", "CI runs"])).code).toBe(0)

    const copied = await tmem(["--memory", memory, "migrate", "--from", source, "--to", PG_URL])
    expect(copied.stderr).toBe("")
    expect(copied.stdout.trim()).toBe(
      `copied 4 batches (4 events) of 2 streams from ${source} to postgres at 127.0.0.1:5432/test (memory ${memory})`
    )
    // a second copy into the now full memory is refused and changes nothing
    const again = await tmem(["--memory", memory, "migrate", "--from", source, "--to", PG_URL])
    expect(again.code).toBe(1)
    expect(again.stderr.trim()).toBe(
      "memory: the target already holds 4 batches; copy into an empty memory (or another --memory)"
    )

    const out = path.join(dirs.fresh(), "exported")
    const exported = await tmem(["--store", PG_URL, "--memory", memory, "export", "--to", out])
    expect(exported.code).toBe(0)
    const history = async (dir: string) => (await tmem(["--dir", dir, "--memory", memory, "events", "--json"])).stdout
    expect(await history(out)).toBe(await history(source))
    for (const file of ["user.md", "env.md"])
      expect(fs.readFileSync(path.join(out, "memories", memory, file), "utf8")).toBe(
        fs.readFileSync(path.join(source, "memories", memory, file), "utf8")
      )
  })

  it("a compacted memory is copied from its base on, both ways: same episodes, recall, history and files", async () => {
    const memory = memoryId()
    const source = dirs.fresh()
    const local = ["--dir", source, "--memory", memory]
    // thirteen sessions' episodes, ten of them old enough to be compacted into the journal's base
    const store = Effect.runSync(DiskEventStore.make({ dir: path.join(source, "memories", memory) }))
    let version = 0
    for (let i = 0; i < 13; i++) {
      const at = new Date(Date.now() - (i < 10 ? 100 - i : 2 - (i - 10)) * 86_400_000).toISOString()
      const sessionId = `20260101-${i.toString(16).padStart(8, "0")}`
      const events: ReadonlyArray<EpisodeEvent> = [
        { _tag: "ExtractionPending", sessionId, at },
        {
          _tag: "EpisodeStored",
          at,
          episode: {
            sessionId,
            turns: 4,
            createdAt: at,
            summary: `The agent fixed bug ${i} in module mod${i} and moved it to port ${3000 + i}.`,
            provenance: {},
            source: "llm"
          }
        }
      ]
      await Effect.runPromise(store.append(EPISODES_STREAM, episodeCodec, version, events, at))
      version += events.length
    }
    expect((await tmem([...local, "facts", "add", "env", "CI runs on Node 20"])).code).toBe(0)
    expect((await tmem([...local, "episodes", "compact", "--keep-days", "30"])).stdout.trim()).toBe(
      "compacted the episodes journal: 10 batches up to version 20 folded into its base"
    )

    const copied = await tmem(["--memory", memory, "migrate", "--from", source, "--to", PG_URL])
    expect([copied.code, copied.stderr]).toEqual([0, ""])
    expect(copied.stdout.trim()).toBe(
      `copied 4 batches (7 events) of 2 streams from ${source} to postgres at 127.0.0.1:5432/test (memory ${memory})`
    )
    const out = path.join(dirs.fresh(), "exported")
    expect((await tmem(["--store", PG_URL, "--memory", memory, "export", "--to", out])).code).toBe(0)

    const look = async (where: ReadonlyArray<string>) => ({
      episodes: (await tmem([...where, "--memory", memory, "episodes", "list", "--all"])).stdout,
      recall: (await tmem([...where, "--memory", memory, "recall", "which port did module mod3 move to"])).stdout,
      // feed positions are the store's own: the copy's feed numbers its batches 1, 2, 3… with no gaps where the
      // source's compacted batches were
      history: (
        JSON.parse((await tmem([...where, "--memory", memory, "events", "--json"])).stdout).result as Array<{
          position: number
        }>
      ).map((e) => ({ ...e, position: 0 })),
      facts: (await tmem([...where, "--memory", memory, "facts", "show", "env"])).stdout
    })
    const original = await look(["--dir", source])
    expect(original.recall).toContain("module mod3 and moved it to port 3003")
    expect(await look(["--store", PG_URL])).toEqual(original)
    expect(await look(["--dir", out])).toEqual(original)
    // the copy's journal begins with the same base line as the source's, and its files are the same
    const journal = (dir: string) => path.join(dir, "memories", memory, "journal", "episodes.jsonl")
    expect(fs.readFileSync(journal(out), "utf8")).toBe(fs.readFileSync(journal(source), "utf8"))
    const files = (dir: string) =>
      fs
        .readdirSync(path.join(dir, "memories", memory), { recursive: true, encoding: "utf8" })
        .filter((f) => f.startsWith("episodes") || f.endsWith(".md"))
        .sort()
        .map((f) => [
          f,
          fs.statSync(path.join(dir, "memories", memory, f)).isFile()
            ? fs.readFileSync(path.join(dir, "memories", memory, f), "utf8")
            : ""
        ])
    expect(files(out)).toEqual(files(source))
    // and both go on from the same version
    expect(
      (await tmem(["--store", PG_URL, "--memory", memory, "facts", "add", "env", "Staging uses port 8443"])).code
    ).toBe(0)
  })

  it("tmem mcp on the database: the tool writes there, its resources read it, another host's writes too", async () => {
    const memory = memoryId()
    const client = new Client({ name: "tmem-test", version: "0.0.0" })
    const env: Record<string, string> = {}
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("TMEM_")) env[k] = v
    const dir = dirs.fresh()
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, "--dir", dir, "--store", PG_URL, "--memory", memory, "mcp"],
        env,
        stderr: "pipe"
      })
    )
    try {
      const added = await client.callTool({
        name: "memory",
        arguments: { action: "add", target: "env", content: "The staging database is db-stage-2" }
      })
      expect(added.isError ?? false).toBe(false)
      // another host's process writes to the same memory
      expect(
        (await tmem(["--store", PG_URL, "--memory", memory, "facts", "add", "env", "CI runs on Node 20"])).code
      ).toBe(0)
      const read = await client.readResource({ uri: "memory://facts/env" })
      expect(read.contents).toEqual([
        {
          uri: "memory://facts/env",
          mimeType: "text/markdown",
          text: "The staging database is db-stage-2\n§\nCI runs on Node 20"
        }
      ])
      // the directory holds nothing of the memory: it lives in the database
      expect(fs.readdirSync(dir)).toEqual([])
    } finally {
      await client.close()
    }
  })

  it("migrate refuses to copy an empty memory or into the same store", async () => {
    const empty = await tmem(["--memory", memoryId(), "migrate", "--from", dirs.fresh(), "--to", PG_URL])
    expect(empty.code).toBe(1)
    expect(empty.stderr.trim()).toBe(
      "memory: the memory to copy is empty; check where it is copied from (and --memory)"
    )
    const same = await tmem(["migrate", "--from", PG_URL, "--to", PG_URL])
    expect(same.stderr.trim()).toBe("tmem: --from and --to name the same store")
  })

  it("db migrate reports the schema version, and needs a database", async () => {
    const run = await tmem(["--store", PG_URL, "db", "migrate"])
    expect(run.code).toBe(0)
    const where = "on postgres at 127.0.0.1:5432/test"
    // up to date when an earlier test (or process) already prepared the tables, else brought there now
    const said = run.stdout.trim().replace(/went from schema version \d+ to/, "went from schema version N to")
    expect([
      `the tables are up to date (schema version ${SCHEMA_VERSION}) ${where}`,
      `the tables went from schema version N to ${SCHEMA_VERSION} ${where}`
    ]).toContain(said)
    const none = await tmem(["--dir", dirs.fresh(), "db", "migrate"])
    expect(none.code).toBe(1)
    expect(none.stderr.trim()).toBe(
      "tmem: db migrate needs a database: name it with --store, $TMEM_STORE or the config's store"
    )
  })
})
