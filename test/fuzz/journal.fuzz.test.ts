// Journal lines: bytes of any kind appended to (or put inside) a stream's journal, then the memory loaded by a new
// process through the app. A damaged line is refused on one line with every file left byte for byte; a partial
// last line (a crash's leftover) is moved aside and cut off, the journal coming back exactly as it was.
import { Effect, Either, Exit, FastCheck as fc } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { encodeLine, verifyLine } from "../../src/adapters/disk/journal.js"
import { listEpisodes } from "../../src/app/episodes.js"
import { addFact, loadFacts } from "../../src/app/facts.js"
import { decideEpisode, type EpisodePolicy } from "../../src/domain/episodes/store.js"
import { EPISODES_STREAM, episodeCodec } from "../../src/domain/episodes/stream.js"
import { EventStore } from "../../src/ports/EventStore.js"
import { appLayer } from "../support/app.js"
import { capturedLogs } from "../support/logs.js"
import { diskLayer } from "../support/stores.js"
import { anyBytes, anyJson, anyText, expectOneLine, expectSameFiles, snapshotDir, tally } from "./support.js"

const at = "2026-01-01T00:00:00.000Z"

/** Events of the right tag with wrong or hostile fields, events of no known tag, and anything else. */
const event = fc.oneof(
  { weight: 3, arbitrary: anyText().map((content) => ({ _tag: "FactAdded", target: "user", content, at })) },
  {
    weight: 2,
    arbitrary: fc.record({
      _tag: fc.constantFrom("FactAdded", "FactRemoved", "FactsRewritten", "EpisodeStored", "Nope"),
      target: fc.oneof(fc.constantFrom("user", "env"), anyJson),
      content: anyJson,
      at: fc.oneof(fc.constant(at), anyJson)
    })
  },
  { weight: 1, arbitrary: anyJson }
)

/** A batch line as a writer would encode it (checksum and all), right or wrong in its version, base and events. */
const encodedBatch = (version: number) =>
  fc
    .record(
      {
        version: fc.oneof(fc.constantFrom(version + 1, version, version + 2, 0, -1, 1e308), fc.integer()),
        at: fc.oneof(fc.constant(at), anyText()),
        events: fc.array(event, { maxLength: 3 }),
        base: anyJson,
        projectionHash: fc.oneof(fc.constant("0".repeat(64)), anyText())
      },
      { requiredKeys: ["version", "at", "events"] }
    )
    .map((line) => Buffer.from(encodeLine(line as never)))

/** A written line with one byte changed, dropped or doubled: its checksum no longer matches, or it does not parse. */
const corrupted = (line: Buffer) =>
  fc.tuple(fc.nat(Math.max(0, line.length - 2)), fc.integer({ min: 0, max: 255 }), fc.nat(2)).map(([i, b, how]) => {
    const copy = Buffer.from(line.subarray(0, line.length - 1))
    if (how === 0) copy[i] = b
    return how === 1
      ? Buffer.concat([copy.subarray(0, i), copy.subarray(i + 1), Buffer.from("\n")])
      : how === 2
        ? Buffer.concat([copy.subarray(0, i), copy.subarray(i, i + 1), copy.subarray(i), Buffer.from("\n")])
        : Buffer.concat([copy, Buffer.from("\n")])
  })

/** What may end up after a journal's last line: whole lines of anything, a torn tail, or both. */
const appended = (version: number, lastLine: Buffer) =>
  fc.oneof(
    { weight: 3, arbitrary: anyBytes.map((b) => ({ bytes: Buffer.concat([b, Buffer.from("\n")]), torn: false })) },
    { weight: 3, arbitrary: encodedBatch(version).map((bytes) => ({ bytes, torn: false })) },
    { weight: 2, arbitrary: corrupted(lastLine).map((bytes) => ({ bytes, torn: false })) },
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          anyBytes,
          encodedBatch(version).map((b) => b.subarray(0, b.length - 1))
        )
        .filter((b) => b.length > 0 && !b.includes(10))
        .map((bytes) => ({ bytes, torn: true }))
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          anyBytes,
          anyBytes.filter((b) => b.length > 0 && !b.includes(10))
        )
        .map(([line, tail]) => ({ bytes: Buffer.concat([line, Buffer.from("\n"), tail]), torn: false }))
    }
  )

describe("verifyLine on any bytes (3,000 runs, pure)", () => {
  it("never throws; a refusal is one printable line", () => {
    const seen = tally()
    fc.assert(
      fc.property(
        fc.oneof(
          anyBytes,
          encodedBatch(1).map((b) => b.subarray(0, b.length - 1))
        ),
        (bytes) => {
          const r = verifyLine(bytes)
          seen.hit(Either.isLeft(r) ? "refused" : "accepted")
          if (Either.isLeft(r)) expectOneLine(r.left)
        }
      ),
      { numRuns: 3_000 }
    )
    expect(seen.of("refused"), seen.toString()).toBeGreaterThan(500)
    expect(seen.of("accepted"), seen.toString()).toBeGreaterThan(500)
  })
})

const dirs: Array<string> = []
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true })
})
const freshDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-fuzz-journal-"))
  dirs.push(d)
  return d
}

const policy: EpisodePolicy = { enabled: true, dedupThreshold: 0.92, maxEpisodes: 20, ttlDays: 0, autoApprove: false }

/** A memory with two fact batches and two episodes, written once; each run damages a copy of it. */
let template = ""
beforeAll(async () => {
  template = freshDir()
  const layer = appLayer({ store: diskLayer(template) })
  await Effect.runPromise(
    Effect.gen(function* () {
      yield* addFact("user", "Prefers tabs over spaces")
      yield* addFact("user", "Uses vim with relative line numbers")
      const store = yield* EventStore
      for (const n of [1, 2]) {
        const loaded = yield* store.load(EPISODES_STREAM, episodeCodec)
        const events = Either.getOrThrow(
          decideEpisode(policy)(
            {
              _tag: "StoreEpisode",
              sessionId: `2026070${n}-0f3c9a1b2c3d4e5f60718293a4b5c6d${n}`,
              summary: `Bug ${n} was fixed in module ${n * 7}.`,
              turns: 3,
              provenance: {},
              source: "llm",
              at
            },
            loaded.state
          )
        )
        yield* store.append(EPISODES_STREAM, episodeCodec, loaded.version, events, at)
      }
    }).pipe(Effect.provide(layer))
  )
})

const STREAMS = [
  { journal: "journal/facts/user.jsonl", read: Effect.map(loadFacts("user"), (l) => l.state.entries) },
  {
    journal: "journal/episodes.jsonl",
    read: Effect.map(listEpisodes({ all: true }), (es) => es.map((e) => e.sessionId))
  }
] as const

describe("a journal with bytes of any kind after (or among) its lines, loaded by a new store (2 × 120 runs)", () => {
  for (const stream of STREAMS)
    it(`${stream.journal}: refused on one line with no file changed, or a torn tail cut off and kept`, async () => {
      const original = fs.readFileSync(path.join(template, stream.journal))
      const lines = original.toString("latin1").split("\n").slice(0, -1)
      const last = Buffer.from(`${lines[lines.length - 1]}\n`, "latin1")
      const expected = await Effect.runPromise(
        stream.read.pipe(Effect.provide(appLayer({ store: diskLayer(template) })))
      )
      const seen = tally()
      await fc.assert(
        fc.asyncProperty(appended(lines.length, last), fc.boolean(), async ({ bytes, torn }, inside) => {
          const dir = freshDir()
          fs.cpSync(template, dir, { recursive: true })
          const journal = path.join(dir, stream.journal)
          // whole lines may also land between two written ones (a bad merge, a bad restore)
          const inner = inside && !torn && lines.length > 1
          const written = inner
            ? Buffer.concat([Buffer.from(`${lines[0]}\n`, "latin1"), bytes, original.subarray(lines[0]!.length + 1)])
            : Buffer.concat([original, bytes])
          fs.writeFileSync(journal, written)
          const before = snapshotDir(dir)
          const warnings: Array<string> = []
          const exit = await Effect.runPromiseExit(
            stream.read.pipe(
              Effect.provide(appLayer({ store: diskLayer(dir) })),
              Effect.provide(capturedLogs(warnings))
            )
          )
          for (const w of warnings) expectOneLine(w)
          if (Exit.isFailure(exit)) {
            const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
            if (failure === undefined) throw new Error(`not a plain failure: ${String(exit.cause)}`)
            seen.hit("refused")
            expect(failure._tag).toBe("StoreError")
            expectOneLine(failure.message)
            expect(failure.message).toMatch(/line \d+ is damaged/)
            expectSameFiles(before, snapshotDir(dir), `refused with ${failure.message}`)
            return
          }
          if (torn) {
            seen.hit("torn tail cut")
            expect(exit.value).toEqual(expected)
            expect(fs.readFileSync(journal).equals(original), "the journal is as it was").toBe(true)
            expect(fs.readFileSync(`${journal}.torn`).equals(bytes), "the torn bytes are kept").toBe(true)
            expect(warnings.join("\n")).toMatch(/ended in a partial batch/)
          } else {
            // lines that are batches after all: history is never rewritten, and a second reader agrees
            seen.hit("accepted")
            expect(fs.readFileSync(journal).subarray(0, written.length).equals(written)).toBe(true)
            const again = await Effect.runPromise(
              stream.read.pipe(Effect.provide(appLayer({ store: diskLayer(dir) })), Effect.provide(capturedLogs()))
            )
            expect(again).toEqual(exit.value)
          }
        }),
        { numRuns: 120 }
      )
      expect(seen.of("refused"), seen.toString()).toBeGreaterThan(45)
      expect(seen.of("torn tail cut"), seen.toString()).toBeGreaterThan(8)
    })
})
