import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { decideEpisode, type EpisodeCommand, type EpisodePolicy, newestFirst } from "../../src/domain/episodes/store.js"
import { EPISODES_STREAM, episodeCodec, renderIndex } from "../../src/domain/episodes/stream.js"
import { EventStore } from "../../src/ports/EventStore.js"
import { diskLayer, tempDir } from "../support/stores.js"

const policy: EpisodePolicy = { enabled: true, dedupThreshold: 0.92, maxEpisodes: 2, ttlDays: 0, autoApprove: false }
const day = (d: number) => `2026-07-${String(d).padStart(2, "0")}T10:11:12.000Z`
const ID = (n: number) => `2026070${n}-0f3c9a1b2c3d4e5f60718293a4b5c6d${n}`

/** Decide a command on the stored state and append it, as the app will. */
const run = (command: EpisodeCommand) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const loaded = yield* store.load(EPISODES_STREAM, episodeCodec)
    const events = Either.getOrThrow(decideEpisode(policy)(command, loaded.state))
    return yield* store.append(EPISODES_STREAM, episodeCodec, loaded.version, events, command.at)
  })
const storeEp = (n: number, untrusted = false): EpisodeCommand => ({
  _tag: "StoreEpisode",
  sessionId: ID(n),
  summary: `The user asked to fix bug ${n}; the agent patched lexer.go and added tests.`,
  turns: 3 + n,
  provenance: untrusted ? { untrusted: true, sources: ["read_file"] } : {},
  source: n === 3 ? "extractive" : "llm",
  at: day(n)
})
const load = Effect.flatMap(EventStore, (s) => s.load(EPISODES_STREAM, episodeCodec))

describe("episode store on disk (odek's index.json and <id>.md as projections)", () => {
  it.scopedLive("writes odek's files; eviction removes the evicted summary file; promote rewrites the index", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      yield* Effect.gen(function* () {
        yield* run(storeEp(1, true))
        expect(fs.readFileSync(path.join(dir, `${ID(1)}.md`), "utf8")).toBe(
          "The user asked to fix bug 1; the agent patched lexer.go and added tests."
        )
        expect(fs.readFileSync(path.join(dir, "index.json"), "utf8")).toBe(
          JSON.stringify(
            [
              {
                session_id: ID(1),
                turns: 4,
                created_at: day(1),
                summary: "The user asked to fix bug 1; the agent patched lexer.go and added tests.",
                provenance: { untrusted: true, sources: ["read_file"] }
              }
            ],
            null,
            2
          )
        )
        yield* run(storeEp(2))
        yield* run(storeEp(3)) // the cap of 2 evicts episode 1
        expect(fs.existsSync(path.join(dir, `${ID(1)}.md`))).toBe(false)
        const index = JSON.parse(fs.readFileSync(path.join(dir, "index.json"), "utf8")) as Array<
          Record<string, unknown>
        >
        expect(index.map((e) => e["session_id"])).toEqual([ID(3), ID(2)])
        expect(index[0]).toMatchObject({ extractive: true, provenance: {} })
        yield* run({ _tag: "PromoteEpisode", sessionId: ID(2), at: day(4) })
        expect(
          (JSON.parse(fs.readFileSync(path.join(dir, "index.json"), "utf8")) as Array<{ provenance: object }>)[1]!
            .provenance
        ).toEqual({ user_approved: true })
        expect(fs.readdirSync(dir).filter((n) => n.includes(".tmp-"))).toEqual([])
        expect(fs.statSync(path.join(dir, "index.json")).mode & 0o777).toBe(0o600)
      }).pipe(Effect.provide(diskLayer(dir)))
    })
  )

  it.scopedLive("an edit of index.json cannot approve an episode: the journal decides, the edit is kept aside", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      yield* run(storeEp(1, true)).pipe(Effect.provide(diskLayer(dir)))
      const file = path.join(dir, "index.json")
      const forged = fs.readFileSync(file, "utf8").replace('"untrusted": true', '"user_approved": true')
      fs.writeFileSync(file, forged)
      const later = new Date(Date.now() + 5_000)
      fs.utimesSync(file, later, later)
      const loaded = yield* load.pipe(Effect.provide(diskLayer(dir)))
      expect(loaded.state.episodes[0]!.provenance).toEqual({ untrusted: true, sources: ["read_file"] })
      expect(fs.readFileSync(file, "utf8")).toBe(renderIndex(loaded.state))
      expect(fs.readFileSync(path.join(dir, "index.json.edited-v1"), "utf8")).toBe(forged)
    })
  )

  it.scopedLive("a deleted or stale index is re-projected from the journal", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      yield* run(storeEp(1)).pipe(Effect.provide(diskLayer(dir)))
      const stale = fs.readFileSync(path.join(dir, "index.json"))
      yield* run(storeEp(2)).pipe(Effect.provide(diskLayer(dir)))
      fs.rmSync(path.join(dir, "index.json"))
      fs.rmSync(path.join(dir, `${ID(2)}.md`))
      const a = yield* load.pipe(Effect.provide(diskLayer(dir)))
      expect(newestFirst(a.state.episodes).map((e) => e.sessionId)).toEqual([ID(2), ID(1)])
      expect(fs.existsSync(path.join(dir, `${ID(2)}.md`))).toBe(true)
      // one write behind and older than the journal: what a crash between append and rename leaves
      const past = new Date(Date.now() - 60_000)
      fs.writeFileSync(path.join(dir, "index.json"), stale)
      fs.utimesSync(path.join(dir, "index.json"), past, past)
      yield* load.pipe(Effect.provide(diskLayer(dir)))
      expect(fs.readFileSync(path.join(dir, "index.json"), "utf8")).toBe(renderIndex(a.state))
      expect(fs.readdirSync(dir).filter((n) => n.includes(".edited-"))).toEqual([])
    })
  )

  it.scopedLive(
    "adopts an odek directory: valid entries with their full text; invalid ids and legacy entries as odek reads them",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        fs.writeFileSync(
          path.join(dir, "index.json"),
          JSON.stringify([
            {
              session_id: "20260722-aa",
              turns: 5,
              created_at: "2026-07-22T10:11:12.123456789Z",
              summary: "preview a",
              provenance: { untrusted: true, sources: ["browser"] }
            },
            { session_id: "20260721-bb", turns: 4, created_at: "2026-07-21T08:00:00Z", summary: "legacy preview b" },
            { session_id: "../escape", turns: 9, created_at: "2026-07-20T00:00:00Z", summary: "never a file" },
            { turns: 1 }
          ])
        )
        fs.writeFileSync(path.join(dir, "20260722-aa.md"), "The user asked for A; the agent did A.")
        const loaded = yield* load.pipe(Effect.provide(diskLayer(dir)))
        expect(loaded.version).toBe(1)
        expect(newestFirst(loaded.state.episodes).map((e) => [e.sessionId, e.summary, e.provenance])).toEqual([
          ["20260722-aa", "The user asked for A; the agent did A.", { untrusted: true, sources: ["browser"] }],
          ["20260721-bb", "legacy preview b", {}]
        ])
        expect(fs.existsSync(path.join(dir, "journal", "episodes.jsonl"))).toBe(true)
      })
  )
})
