import { Clock, Effect } from "effect"

/** Now as the ISO-8601 UTC instant events carry; from the Effect clock so tests control it. */
export const nowIso = Clock.currentTimeMillis.pipe(Effect.map((ms) => new Date(ms).toISOString()))
