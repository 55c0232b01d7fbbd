import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import * as DiskEventStore from "../../src/adapters/disk/DiskEventStore.js"
import type { EpisodeEvent } from "../../src/domain/episodes/store.js"
import { EPISODES_STREAM, episodeCodec } from "../../src/domain/episodes/stream.js"
import { tempDirs, tmem } from "../support/cli.js"

const { fresh } = tempDirs(afterAll)
const DAY = 86_400_000

/** A memory whose episodes were stored `ages` days ago, one session (one batch) each. */
const memoryAged = async (dir: string, ages: ReadonlyArray<number>) => {
  const store = Effect.runSync(DiskEventStore.make({ dir }))
  let version = 0
  for (const [i, age] of ages.entries()) {
    const at = new Date(Date.now() - age * DAY).toISOString()
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
}

describe("tmem episodes compact --keep-days N", () => {
  it("folds the older history into the journal's base; episodes and recall are unchanged", async () => {
    const dir = fresh()
    await memoryAged(dir, [100, 99, 98, 97, 96, 95, 94, 93, 92, 91, 2, 1, 0])
    const before = await tmem(["--dir", dir, "episodes", "list", "--all"])
    const journal = path.join(dir, "journal/episodes.jsonl")
    expect(fs.readFileSync(journal, "utf8").trim().split("\n")).toHaveLength(13)

    const r = await tmem(["--dir", dir, "episodes", "compact", "--keep-days", "30"])
    expect([r.code, r.stdout.trim()]).toEqual([
      0,
      "compacted the episodes journal: 10 batches up to version 20 folded into its base"
    ])
    const lines = fs.readFileSync(journal, "utf8").trim().split("\n")
    expect(lines).toHaveLength(4)
    expect(JSON.parse(lines[0]!)).toMatchObject({ version: 20, events: [] })
    expect(JSON.parse(lines[0]!).base.episodes).toHaveLength(10)

    // a new process sees the same episodes and still recalls a forgotten batch's episode; the first one to decode
    // the base leaves a snapshot, so the next ones need not
    expect(fs.existsSync(path.join(dir, "journal/episodes.snapshot.json"))).toBe(false)
    expect((await tmem(["--dir", dir, "episodes", "list", "--all"])).stdout).toBe(before.stdout)
    expect(fs.existsSync(path.join(dir, "journal/episodes.snapshot.json"))).toBe(true)
    const recalled = await tmem(["--dir", dir, "recall", "which port did module mod3 move to"])
    expect(recalled.stdout).toContain("module mod3 and moved it to port 3003")
    // the audit trail starts after the base
    const events = await tmem(["--dir", dir, "events", "--json"])
    const shown = JSON.parse(events.stdout).result as ReadonlyArray<{ readonly version: number }>
    expect(new Set(shown.map((e) => e.version))).toEqual(new Set([22, 24, 26]))

    expect((await tmem(["--dir", dir, "episodes", "compact", "--keep-days", "30"])).stdout.trim()).toBe(
      "nothing to compact: the episodes journal holds no history older than that besides its last batch"
    )
    // the last batch always stays
    const all = await tmem(["--dir", dir, "episodes", "compact", "--keep-days", "0", "--json"])
    expect(JSON.parse(all.stdout)).toEqual({ ok: true, result: { forgotten: 2, through: 24 } })
    expect(fs.readFileSync(journal, "utf8").trim().split("\n")).toHaveLength(2)
    expect((await tmem(["--dir", dir, "episodes", "list", "--all"])).stdout).toBe(before.stdout)
  })

  it("refuses a negative number of days and changes nothing", async () => {
    const dir = fresh()
    await memoryAged(dir, [50, 40])
    const journal = path.join(dir, "journal/episodes.jsonl")
    const bytes = fs.readFileSync(journal)
    const r = await tmem(["--dir", dir, "episodes", "compact", "--keep-days", "-1"])
    expect([r.code, r.stderr.trim()]).toEqual([1, "memory: --keep-days must be 0 or more (days of history to keep)"])
    expect(fs.readFileSync(journal).equals(bytes)).toBe(true)
  })
})
