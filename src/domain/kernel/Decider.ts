import type { Either } from "effect"

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
