import { FileSystem } from "@effect/platform"
import { Effect, Layer, Schema } from "effect"
import * as DiskEventStore from "../../src/adapters/disk/DiskEventStore.js"
import { NodeFiles } from "../../src/adapters/live.js"
import * as MemoryEventStore from "../../src/adapters/memory/MemoryEventStore.js"
import type { StreamCodec } from "../../src/domain/kernel/Stream.js"
import type { EventStore } from "../../src/ports/EventStore.js"
import { quietLogs } from "./logs.js"

/** A store under test, in a fresh place; the scope removes the directory afterwards. */
export interface StoreFixture {
  readonly name: string
  readonly make: Effect.Effect<
    {
      readonly layer: Layer.Layer<EventStore>
      readonly dir: string | undefined
      /** Another store instance over the same storage (another process, for a disk store); built on demand. */
      readonly another: Layer.Layer<EventStore>
    },
    never,
    import("effect").Scope.Scope
  >
}

export const memoryFixture: StoreFixture = {
  name: "memory",
  make: Effect.map(Layer.memoize(MemoryEventStore.layer), (layer) => ({ layer, dir: undefined, another: layer }))
}

export const tempDir = Effect.flatMap(FileSystem.FileSystem, (fs) =>
  fs.makeTempDirectoryScoped({ prefix: "tmem-test-" })
).pipe(Effect.provide(NodeFiles), Effect.orDie)

export const diskLayer = (dir: string, options: Partial<DiskEventStore.DiskOptions> = {}) =>
  Layer.merge(DiskEventStore.layer({ dir, ...options }).pipe(Layer.provide(NodeFiles)), quietLogs)

export const diskFixture: StoreFixture = {
  name: "disk",
  make: Effect.map(tempDir, (dir) => ({ layer: diskLayer(dir), dir, another: diskLayer(dir) }))
}

/** A stream kind without a text projection: a counter, to exercise plain journals. */
const Incremented = Schema.TaggedStruct("Incremented", { by: Schema.Number, note: Schema.String })
export type CounterEvent = typeof Incremented.Type
export const counterCodec: StreamCodec<
  { readonly total: number; readonly notes: ReadonlyArray<string> },
  CounterEvent
> = {
  initialState: { total: 0, notes: [] },
  evolve: (s, e) => ({ total: s.total + e.by, notes: [...s.notes, e.note] }),
  events: Incremented
}
export const inc = (by: number, note = ""): CounterEvent => Incremented.make({ by, note })
