import { Effect, Layer, ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as v8 from "node:v8"
import { runInNewContext } from "node:vm"
import * as DiskDerivedFiles from "../src/adapters/disk/DiskDerivedFiles.js"
import * as DiskEventStore from "../src/adapters/disk/DiskEventStore.js"
import * as NoGuard from "../src/adapters/guard/NoGuard.js"
import * as NoneLlm from "../src/adapters/llm/NoneLlm.js"
import { NodeFiles } from "../src/adapters/live.js"
import * as MemoryEventStore from "../src/adapters/memory/MemoryEventStore.js"
import { AtomActivity } from "../src/app/AtomActivity.js"
import * as LocalEpisodeSearch from "../src/adapters/search/LocalEpisodeSearch.js"
import { AtomIndex } from "../src/app/AtomIndex.js"
import { AtomEmbedder, AtomLlm } from "../src/app/AtomLlm.js"
import { addAtoms, compactAtoms, loadAtoms, searchAtoms } from "../src/app/atoms.js"
import { atomRecallBlock } from "../src/app/atomRecall.js"
import { Settings } from "../src/app/Settings.js"
import type { Atom } from "../src/domain/atoms/atom.js"
import { ATOMS_STREAM, type AtomEvent, type AtomStoreState } from "../src/domain/atoms/store.js"
import { atomCodec } from "../src/domain/atoms/stream.js"
import { DEFAULT_CONFIG, DEFAULT_EXTENDED, type MemoryConfig } from "../src/domain/config/MemoryConfig.js"
import { buildVectorIndex, searchVectorIndex } from "../src/domain/embedding/vector.js"
import type { StreamCodec } from "../src/domain/kernel/Stream.js"
import { odekProjections } from "../src/domain/odek/projections.js"
import { Embedder, type EmbeddingSpace } from "../src/ports/Embedder.js"
import { EventStore } from "../src/ports/EventStore.js"
import { type BenchResult, fmt, median, nowMs, percentile, range, table, type Target, verdict } from "./stats.js"

/** A deterministic PRNG (mulberry32): every run sees the same atoms and queries. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const random = seeded(13)
const VOCAB = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}`)
const sentence = (n: number) =>
  Array.from({ length: n }, () => VOCAB[Math.floor(random() ** 2 * VOCAB.length)]!).join(" ")
const hex8 = () =>
  Math.floor(random() * 2 ** 32)
    .toString(16)
    .padStart(8, "0")

// ---------------------------------------------------------------------------------------------------------------
// A scripted in-process embedder: 384 dimensions of hashed word features (two signed features per word), so texts
// sharing words share dimensions. Stateless, like an embeddings API: no fit, queries embed on their own.

const DIMS = 384
const SPACE: EmbeddingSpace = { id: "bench/384", provider: "scripted", model: "bench", dims: DIMS }

const fnv32 = (s: string, seed: number) => {
  let h = (0x811c9dc5 ^ seed) >>> 0
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return h >>> 0
}

const scriptedVector = (text: string): Float32Array => {
  const v = new Float32Array(DIMS)
  for (const word of text.toLowerCase().split(/[^a-z0-9]+/)) {
    if (word === "") continue
    const a = fnv32(word, 0)
    const b = fnv32(word, 0x9e3779b9)
    v[a % DIMS] = v[a % DIMS]! + (a & 0x80000000 ? 1 : -1)
    v[b % DIMS] = v[b % DIMS]! + (b & 0x80000000 ? 0.5 : -0.5)
  }
  return v
}

const scriptedEmbedder = Layer.succeed(
  Embedder,
  Embedder.of({ space: SPACE, embed: (_corpus, texts) => Effect.sync(() => texts.map(scriptedVector)) })
)

// ---------------------------------------------------------------------------------------------------------------
// Atoms and queries

const atomsOf = (n: number): Array<Atom> => {
  const now = Date.now()
  return Array.from({ length: n }, (_, i) => ({
    id: `${i.toString(16).padStart(8, "0")}${hex8()}${hex8()}${hex8()}`,
    text: sentence(8 + (i % 9)),
    source_class: "user_approved",
    type: "fact" as const,
    // spread over the last ~6 weeks at 100,000 atoms, so retention differs between atoms
    created_at: new Date(now - 60_000 - i * 37_000).toISOString(),
    context: {}
  }))
}

/** Half paraphrases of a stored atom (two words swapped for others: hits above min score), half fresh sentences. */
const queriesFor = (atoms: ReadonlyArray<Atom>, n: number) =>
  Array.from({ length: n }, (_, i) => {
    if (i % 2 === 1) return sentence(10)
    const words = atoms[Math.floor(random() * atoms.length)]!.text.split(" ")
    for (let k = 0; k < 2; k++) words[Math.floor(random() * words.length)] = sentence(1)
    return words.join(" ")
  })

const stored = (atom: Atom, at: string): AtomEvent => ({ _tag: "AtomStored", atom, at })

/**
 * The atom stream's codec with a no-op `evolve`, for seeding the in-memory store only: its append folds a batch
 * event by event through `evolve`, and `evolveAtoms` copies the whole store per event (quadratic: 100,000 events
 * would take hours). The next load with the real codec refolds the batch in one pass (`codec.fold`), so the state
 * is exactly the one appending with `atomCodec` would leave.
 */
const seedCodec: StreamCodec<AtomStoreState, AtomEvent> = { ...atomCodec, evolve: (s) => s }

/** One atom appended through the store as it is now: the write without any of the write path's decisions. */
const appendOne = (atom: Atom) =>
  Effect.flatMap(EventStore, (s) =>
    Effect.flatMap(s.load(ATOMS_STREAM, atomCodec), (l) => {
      const at = new Date().toISOString()
      return s.append(ATOMS_STREAM, atomCodec, l.version, [stored({ ...atom, created_at: at }, at)], at)
    })
  )

const seed = (atoms: ReadonlyArray<Atom>, codec: StreamCodec<AtomStoreState, AtomEvent>) => {
  const at = new Date().toISOString()
  return Effect.flatMap(EventStore, (s) =>
    s.append(
      ATOMS_STREAM,
      codec,
      0,
      atoms.map((a) => stored(a, at)),
      at
    )
  )
}

const enabled = (extended: Partial<MemoryConfig["extended"]> = {}): MemoryConfig => ({
  ...DEFAULT_CONFIG,
  extended: { ...DEFAULT_EXTENDED, enabled: true, ...extended }
})

/** A full collection when the process allows one (`--expose-gc`, or switched on here through V8's flags). */
const collect = (() => {
  const exposed = (globalThis as { gc?: () => void }).gc
  if (exposed !== undefined) return exposed
  try {
    v8.setFlagsFromString("--expose-gc")
    return runInNewContext("gc") as () => void
  } catch {
    return () => undefined
  }
})()

const memory = () => {
  collect()
  collect()
  const m = process.memoryUsage()
  return { rss: m.rss, heap: m.heapUsed, buffers: m.arrayBuffers }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`

// ---------------------------------------------------------------------------------------------------------------
// 1, 3, 4: recall, compaction and memory at n live atoms

const RECALL_QUERIES = 200
/** Recalls in all before memory is read: the timed ones (two per query) and these. */
const EXTRA_RECALLS = 1_000 - 2 * RECALL_QUERIES
/** Atoms written one at a time after the memory reading, each followed by a timed search (the index refresh). */
const REFRESHES = 3

/** What the bench itself holds for a phase: the atoms, the queries and the baseline's index of the same vectors. */
const benchInputs = (n: number) => {
  const atoms = atomsOf(n)
  const queries = queriesFor(atoms, RECALL_QUERIES)
  return {
    atoms,
    queries,
    embedded: queries.map(scriptedVector),
    index: buildVectorIndex(atoms.map((a) => scriptedVector(a.text)))
  }
}

const recallPhase = async (n: number, compactions: number) => {
  // everything the bench itself holds exists before the first reading, made in a frame that is gone by then
  const { atoms, queries, embedded, index } = benchInputs(n)
  // baseline: the bare scan over the same vectors, the query already embedded, k = top k × overfetch
  const k = DEFAULT_EXTENDED.semanticSearchTopK * DEFAULT_EXTENDED.semanticSearchOverfetch
  await new Promise((resolve) => setImmediate(resolve))
  const before = memory()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-bench-atoms-"))
  const layer = Layer.merge(AtomIndex.layer, LocalEpisodeSearch.atomLayer).pipe(
    // the vectors persisted as the live layer does, to a file: nothing kept in memory but the index
    Layer.provide(DiskDerivedFiles.layer({ dir })),
    Layer.provideMerge(
      Layer.mergeAll(
        MemoryEventStore.layer,
        scriptedEmbedder,
        // no model: no rerank, no predicted intents (each would be a model call per recall)
        AtomLlm.main.pipe(Layer.provideMerge(NoneLlm.layer)),
        AtomActivity.layer,
        Settings.layer(enabled())
      )
    )
  )
  const rt = ManagedRuntime.make(layer)
  try {
    // the store gets strings of its own, as a process that read them from disk would hold them
    const own = JSON.parse(JSON.stringify(atoms)) as ReadonlyArray<Atom>
    const s0 = nowMs()
    await rt.runPromise(seed(own, seedCodec))
    const live = (await rt.runPromise(loadAtoms())).state.live.length
    const seedMs = nowMs() - s0
    if (live !== n) throw new Error(`seeded ${live} atoms, not ${n}`)
    const b0 = nowMs()
    await rt.runPromise(searchAtoms(queries[0]!)) // builds the index
    const build = nowMs() - b0
    const scan: Array<number> = []
    const search: Array<number> = []
    const block: Array<number> = []
    let hits = 0
    let blocks = 0
    // interleaved, so the machine's drift hits the three alike
    for (const [i, q] of queries.entries()) {
      const a = nowMs()
      searchVectorIndex(index, embedded[i]!, k)
      const b = nowMs()
      hits += (await rt.runPromise(searchAtoms(q))).length
      const c = nowMs()
      if ((await rt.runPromise(atomRecallBlock(q))) !== "") blocks++
      block.push(nowMs() - c)
      search.push(c - b)
      scan.push(b - a)
    }
    for (let i = 0; i < EXTRA_RECALLS; i++) await rt.runPromise(atomRecallBlock(queries[i % queries.length]!))
    await new Promise((resolve) => setImmediate(resolve))
    const after = memory()
    // the bench's own index and queries stay alive past the reading, or V8 frees them under it
    if (index.size !== n || embedded.length !== queries.length) throw new Error("the baseline index went missing")
    const peak = process.resourceUsage().maxRSS * 1024
    // a long-lived process between turns: one atom written, then the next search refreshes the index first
    // (searchAtoms: atomRecallBlock would give up at its 5 s deadline and throw the refresh away)
    const refresh: Array<number> = []
    for (let i = 0; i < REFRESHES; i++) {
      await rt.runPromise(appendOne(atomsOf(1)[0]!))
      const a = nowMs()
      await rt.runPromise(searchAtoms(queries[i]!))
      refresh.push(nowMs() - a)
    }
    // compaction, against its floor: embedding every live text and building the index, nothing else
    const compact: Array<number> = []
    const floor: Array<number> = []
    for (let i = 0; i < compactions; i++) {
      const a = nowMs()
      const vectors = await rt.runPromise(compactAtoms())
      const b = nowMs()
      buildVectorIndex(atoms.map((x) => scriptedVector(x.text)))
      floor.push(nowMs() - b)
      compact.push(b - a)
      if (vectors !== n + REFRESHES) throw new Error(`compacted ${vectors} vectors, not ${n + REFRESHES}`)
    }
    return { seedMs, build, search, block, scan, hits, blocks, refresh, compact, floor, before, after, peak, k }
  } finally {
    await rt.dispose()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 2: adds on a disk store

const EXISTING = 1_000
const ADDS = 300
const WARMUP = 20

const addPhase = async () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-bench-atom-add-"))
  const storeAt = (name: string, config: MemoryConfig) => {
    const dir = path.join(base, name)
    return ManagedRuntime.make(
      Layer.merge(AtomIndex.layer, LocalEpisodeSearch.atomLayer).pipe(
        Layer.provide(DiskDerivedFiles.layer({ dir: path.join(dir, "extended") })),
        Layer.provideMerge(
          Layer.mergeAll(
            DiskEventStore.layer({ dir, projections: odekProjections() }).pipe(Layer.provide(NodeFiles)),
            scriptedEmbedder,
            NoGuard.layer,
            AtomActivity.layer,
            AtomEmbedder.main.pipe(Layer.provide(scriptedEmbedder)),
            Settings.layer(config)
          )
        )
      )
    )
  }
  // three stores holding the same atoms, each round one write to each: drift on the machine hits all three alike
  const bare = storeAt("bare", enabled())
  // no embedder probe at all: neither the semantic dedup tier nor semantic associations
  const plain = storeAt("plain", enabled({ semanticDedupThreshold: 0, associationsEnabled: false }))
  const dedup = storeAt("dedup", enabled())
  const runtimes = [bare, plain, dedup]
  const existing = atomsOf(EXISTING)
  const times = { bare: [] as Array<number>, plain: [] as Array<number>, dedup: [] as Array<number> }
  const outcomes = new Map<string, number>()
  try {
    for (const rt of runtimes) await rt.runPromise(seed(existing, atomCodec))
    for (let i = 0; i < WARMUP + ADDS; i++) {
      // every tenth add restates a stored atom with a word more: not an exact duplicate, the semantic tier's to find
      const text = i % 10 === 9 ? `${existing[Math.floor(random() * EXISTING)]!.text} again` : sentence(8 + (i % 9))
      const a = nowMs()
      await bare.runPromise(appendOne({ ...atomsOf(1)[0]!, text }))
      const b = nowMs()
      await plain.runPromise(addAtoms([{ text, type: "fact", source_class: "user_approved" }]))
      const c = nowMs()
      const landed = await dedup.runPromise(addAtoms([{ text, type: "fact", source_class: "user_approved" }]))
      const d = nowMs()
      if (i >= WARMUP) {
        times.bare.push(b - a)
        times.plain.push(c - b)
        times.dedup.push(d - c)
        const kind = landed[0]!.kind
        outcomes.set(kind, (outcomes.get(kind) ?? 0) + 1)
      }
    }
  } finally {
    for (const rt of runtimes) await rt.dispose()
    fs.rmSync(base, { recursive: true, force: true })
  }
  return { times, outcomes }
}

// ---------------------------------------------------------------------------------------------------------------

const ratio = (x: number, y: number) => `${(x / y).toFixed(2)}×`

/** Extended Memory atoms (issue 13): recall at 10,000 and 100,000 atoms, adds with dedup, compaction, memory. */
export const runAtomsBench = async (): Promise<BenchResult> => {
  const adds = await addPhase()
  const phases = [
    { n: 10_000, r: await recallPhase(10_000, 5) },
    { n: 100_000, r: await recallPhase(100_000, 3) }
  ]
  const recallRows: Array<Array<string>> = []
  const targets: Array<Target> = []
  for (const { n, r } of phases) {
    const label = `${n.toLocaleString("en")} atoms`
    const scan95 = percentile(r.scan, 95)
    const target: Target | undefined =
      n === 100_000
        ? {
            name: `atomRecallBlock, warm index, ${label}`,
            measured: `p95 ${fmt(percentile(r.block, 95))}`,
            baseline: `bare cosine scan p95: ${fmt(scan95)}`,
            ratio: percentile(r.block, 95) / scan95,
            target: "p95 ≤ 25 ms",
            met: percentile(r.block, 95) <= 25
          }
        : undefined
    if (target !== undefined) targets.push(target)
    const row = (name: string, xs: ReadonlyArray<number>, targetCell = "") => [
      `${label}: ${name}`,
      fmt(median(xs)),
      range(xs),
      fmt(percentile(xs, 95)),
      ratio(percentile(xs, 95), scan95),
      targetCell
    ]
    recallRows.push(
      row(`baseline scan (top ${r.k}, query embedded)`, r.scan),
      row("searchAtoms", r.search),
      row("atomRecallBlock", r.block, target === undefined ? "" : verdict(target))
    )
  }
  const recall = table(
    `Atom recall, warm index (${RECALL_QUERIES} queries, half paraphrases of a stored atom; atoms and queries ` +
      "from seed 13; 384-d scripted embedder; in-memory store; the baseline is the bare cosine scan over the same " +
      "vectors)",
    ["atoms / operation", "p50", "min – max", "p95", "ratio (p95)", "target"],
    recallRows
  )
  const setup = table(
    "Atom recall: setup and what the queries found",
    [
      "atoms",
      "seed (append + first load)",
      "first search (index build)",
      `first search after one new atom (p50 of ${REFRESHES})`,
      "min – max",
      "hits / search",
      "non-empty blocks"
    ],
    phases.map(({ n, r }) => [
      n.toLocaleString("en"),
      fmt(r.seedMs),
      fmt(r.build),
      fmt(median(r.refresh)),
      range(r.refresh),
      (r.hits / RECALL_QUERIES).toFixed(1),
      `${r.blocks} / ${RECALL_QUERIES}`
    ])
  )
  const compaction = table(
    "compactAtoms (re-embeds every live atom, rebuilds and persists the index to disk; " +
      "the floor is embedding every text and building the index, nothing else)",
    ["atoms", "runs", "floor p50", "floor min – max", "compactAtoms p50", "compactAtoms min – max", "ratio"],
    phases.map(({ n, r }) => [
      n.toLocaleString("en"),
      `${r.compact.length}`,
      fmt(median(r.floor)),
      range(r.floor),
      fmt(median(r.compact)),
      range(r.compact),
      ratio(median(r.compact), median(r.floor))
    ])
  )
  const mem = table(
    `Memory of a long-lived process: after seeding, the index build and 1,000 recalls, less before seeding ` +
      `(after a full GC; vectors alone are atoms × ${DIMS} × 4 bytes)`,
    ["atoms", "rss", "heapUsed", "arrayBuffers", "vectors alone", "process peak rss so far"],
    phases.map(({ n, r }) => [
      n.toLocaleString("en"),
      mb(r.after.rss - r.before.rss),
      mb(r.after.heap - r.before.heap),
      mb(r.after.buffers - r.before.buffers),
      mb(n * DIMS * 4),
      mb(r.peak)
    ])
  )
  const t = adds.times
  const addRow = (label: string, xs: ReadonlyArray<number>) => [
    label,
    fmt(median(xs)),
    range(xs),
    fmt(percentile(xs, 90)),
    `${Math.round(1000 / median(xs))}`,
    ratio(median(xs), median(t.bare))
  ]
  const outcomes = [...adds.outcomes].map(([k, v]) => `${v} ${k}`).join(", ")
  const add = table(
    `Atom adds on a disk store, one atom per call (${ADDS} adds after ${WARMUP} warm-up, on top of ` +
      `${EXISTING.toLocaleString("en")} atoms; every tenth restates a stored atom; dedup run: ${outcomes})`,
    ["operation", "p50", "min – max", "p90", "adds/s (p50)", "ratio (p50)"],
    [
      addRow("baseline: load + durable append of one AtomStored (odek projection)", t.bare),
      addRow("addAtoms, no embedder probe (dedup threshold 0, associations off)", t.plain),
      addRow("addAtoms, defaults: semantic dedup at 0.92 + semantic associations", t.dedup)
    ]
  )
  return { markdown: [recall, setup, compaction, mem, add].join("\n"), targets }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log((await runAtomsBench()).markdown)
