import { Effect, Layer, Option } from "effect"
import { DerivedFiles } from "../../ports/DerivedFiles.js"

/** Derived files in a map: for tests and simulations. */
export const make = () => {
  const files = new Map<string, Uint8Array>()
  return DerivedFiles.of({
    read: (name) => Effect.sync(() => Option.fromNullable(files.get(name))),
    write: (name, bytes) => Effect.sync(() => void files.set(name, bytes.slice())),
    remove: (name) => Effect.sync(() => void files.delete(name))
  })
}

export const layer = Layer.sync(DerivedFiles, make)
