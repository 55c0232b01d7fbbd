import { Either } from "effect"

/**
 * An aggregate as three pure functions: `decide` turns a command into events (or a typed refusal, in which case
 * nothing is appended), `evolve` folds one event into the state and never fails.
 */
export interface Decider<Command, Event, State, Err> {
  readonly initialState: State
  readonly decide: (command: Command, state: State) => Either.Either<ReadonlyArray<Event>, Err>
  readonly evolve: (state: State, event: Event) => State
}

/** The state after `events`, starting from `state`. */
export const foldEvents = <S, E>(evolve: (s: S, e: E) => S, state: S, events: Iterable<E>): S => {
  let s = state
  for (const e of events) s = evolve(s, e)
  return s
}

/** Runs commands one after another, skipping refused ones: what a sequence of calls leaves behind. */
export const runCommands = <C, E, S, Err>(
  decider: Decider<C, E, S, Err>,
  commands: Iterable<C>,
  state: S = decider.initialState
): { readonly state: S; readonly events: ReadonlyArray<E>; readonly refused: ReadonlyArray<Err> } => {
  let s = state
  const events: Array<E> = []
  const refused: Array<Err> = []
  for (const c of commands) {
    const result = decider.decide(c, s)
    if (Either.isLeft(result)) {
      refused.push(result.left)
      continue
    }
    events.push(...result.right)
    s = foldEvents(decider.evolve, s, result.right)
  }
  return { state: s, events, refused }
}
