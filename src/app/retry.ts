import { Schedule } from "effect"

/** Re-decide after another writer got in first: many quick, jittered tries (appends take milliseconds). */
export const conflictRetry = Schedule.intersect(Schedule.recurs(50), Schedule.jittered(Schedule.spaced("2 millis")))
