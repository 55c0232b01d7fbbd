import { Effect, Layer } from "effect"
import { Guard } from "../../ports/Guard.js"

/**
 * No second opinion: the local scan decides alone. The default, and what `guard.scan.memory: false` selects; it opens
 * no socket. Inactive, so callers skip it; asked anyway, it answers clean.
 */
export const make = () =>
  Guard.of({
    info: { provider: "none", endpoint: "", active: false },
    check: () => Effect.succeed({ verdict: "clean" })
  })

export const layer = Layer.sync(Guard, make)
