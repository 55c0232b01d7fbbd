import { Effect } from "effect"
import * as Readline from "node:readline"
import type { QuarantinedAtom } from "../../domain/atoms/store.js"
import { printable } from "../../domain/text/printable.js"
import type { AskStreams } from "../approval/Approvals.js"

/**
 * `tmem atoms triage`: a person walks through the quarantine and decides on each entry. The walk is apart from the
 * terminal so that tests can answer it; the terminal side is the one `--approve ask` uses (a readline on stdin,
 * the question on stderr).
 */

/** Where the walk's questions go and its answers come from; undefined is the end of input. */
export interface TriageIo {
  readonly ask: (prompt: string) => Effect.Effect<string | undefined>
  readonly say: (line: string) => Effect.Effect<void>
}

/** What the walk can do to an entry: the app's promotion and forgetting. */
export interface TriageActions<E, R> {
  readonly promote: (id: string) => Effect.Effect<void, E, R>
  readonly forget: (id: string) => Effect.Effect<void, E, R>
}

export interface TriageOutcome {
  readonly promoted: ReadonlyArray<string>
  readonly forgotten: ReadonlyArray<string>
  readonly skipped: ReadonlyArray<string>
  /** Entries whose promotion or forgetting the store refused; they stay in quarantine. */
  readonly failed: ReadonlyArray<{ readonly id: string; readonly message: string }>
}

export const TRIAGE_QUESTION = "promote, forget or skip? [p/f/S] "

/** Skip is the default: only a clear answer changes the store. */
const decision = (answer: string): "promote" | "forget" | "skip" => {
  const a = answer.trim().toLowerCase()
  return a === "p" || a === "promote" ? "promote" : a === "f" || a === "forget" ? "forget" : "skip"
}

/** One entry as a person reviews it: everything the store knows about why it is held, its full text. */
export const entryCard = (q: QuarantinedAtom, n: number, of: number): string =>
  [
    `[${n}/${of}] ${q.atom.id} [${printable(q.atom.source_class)}] quarantined ${q.quarantined_at}`,
    `  reason: ${printable(q.reason === "" ? "unknown" : q.reason)}`,
    `  text: ${printable(q.atom.text)}`
  ].join("\n")

/**
 * Asks about each entry in the order given (the caller passes the quarantine newest first). An entry the store
 * refuses to change is reported and left where it is; the walk goes on. At the end of input the rest are skipped
 * without asking.
 */
export const triageWalk = <E extends { readonly message: string }, R>(
  entries: ReadonlyArray<QuarantinedAtom>,
  io: TriageIo,
  actions: TriageActions<E, R>
): Effect.Effect<TriageOutcome, never, R> =>
  Effect.gen(function* () {
    const promoted: Array<string> = []
    const forgotten: Array<string> = []
    const skipped: Array<string> = []
    const failed: Array<{ id: string; message: string }> = []
    for (const [i, q] of entries.entries()) {
      const id = q.atom.id
      yield* io.say(`${i > 0 ? "\n" : ""}${entryCard(q, i + 1, entries.length)}`)
      const answer = yield* io.ask(TRIAGE_QUESTION)
      if (answer === undefined) {
        const rest = entries.slice(i).map((e) => e.atom.id)
        skipped.push(...rest)
        // the question is still on its line
        yield* io.say(`\nno answer (end of input): ${rest.length} left in quarantine`)
        break
      }
      const what = decision(answer)
      if (what === "skip") {
        skipped.push(id)
        continue
      }
      const done = yield* Effect.either(what === "promote" ? actions.promote(id) : actions.forget(id))
      if (done._tag === "Left") {
        failed.push({ id, message: done.left.message })
        yield* io.say(`  ${done.left.message}; left in quarantine`)
      } else if (what === "promote") {
        promoted.push(id)
        yield* io.say("  promoted: it can now be recalled into future sessions")
      } else {
        forgotten.push(id)
        yield* io.say("  forgotten")
      }
    }
    return { promoted, forgotten, skipped, failed }
  })

/**
 * Questions on a terminal, answered a line at a time. One reader for the whole walk, so that lines typed ahead are
 * kept for the next question rather than lost with a closed reader. Scoped: the reader is closed at the end, which
 * lets the process exit.
 */
export const terminalIo = ({ input, output }: AskStreams) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => {
        const reader = Readline.createInterface({ input, terminal: false })
        const typed: Array<string> = []
        let ended = false
        let waiting: ((line: string | undefined) => void) | undefined
        reader.on("line", (line) => {
          const w = waiting
          waiting = undefined
          if (w !== undefined) w(line)
          else typed.push(line)
        })
        reader.on("close", () => {
          ended = true
          const w = waiting
          waiting = undefined
          w?.(undefined)
        })
        const ask = (prompt: string) =>
          Effect.async<string | undefined>((resume) => {
            output.write(prompt)
            if (typed.length > 0) return resume(Effect.succeed(typed.shift()))
            if (ended) return resume(Effect.succeed(undefined))
            waiting = (line) => resume(Effect.succeed(line))
            return Effect.sync(() => void (waiting = undefined))
          })
        return { reader, ask }
      }),
      ({ reader }) => Effect.sync(() => reader.close())
    ),
    ({ ask }): TriageIo => ({ ask, say: (line) => Effect.sync(() => void output.write(`${line}\n`)) })
  )
