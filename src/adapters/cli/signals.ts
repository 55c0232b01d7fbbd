import { Effect } from "effect"

// A command whose normal end is Ctrl-C (a server, a follower) says so; for every other command SIGINT or SIGTERM
// is an interruption, reported on stderr with exit 130/143 (src/bin.ts).
let untilSignal = false

/** Marks the running command as one that runs until a signal stops it: the signal then exits 0, silently. */
export const runsUntilSignal = Effect.sync(() => void (untilSignal = true))

/** Whether the running command stops on a signal as its normal end. */
export const stopsOnSignal = (): boolean => untilSignal
