import { Clock, Effect, Random } from "effect"

/** Now as the ISO-8601 UTC instant events carry; from the Effect clock so tests control it. */
export const nowIso = Clock.currentTimeMillis.pipe(Effect.map((ms) => new Date(ms).toISOString()))

/** A fresh id: 128 random bits as 32 lowercase hex digits (atoms, pending reviews), from the Effect random service. */
export const freshId = Effect.map(
  Effect.all(Array.from({ length: 4 }, () => Random.nextIntBetween(0, 2 ** 32))),
  (parts) => parts.map((p) => p.toString(16).padStart(8, "0")).join("")
)
