import { Either } from "effect"
import { expect } from "vitest"

/** A decider as a specification sees it: the state it starts from, its decision, and how an event changes the state. */
export interface DeciderUnderSpec<C, E, S, Err> {
  readonly initialState: S
  readonly decide: (command: C, state: S) => Either.Either<ReadonlyArray<E>, Err>
  readonly evolve: (state: S, event: E) => S
}

/**
 * Decider specifications in given / when / then form: given the events a stream already holds, when a command
 * arrives, then exactly these events — or nothing, or this refusal. (`thenEvents`, not `then`: an object with a
 * `then` method is a thenable, which `await` would call.) The state is the fold of the given events, as
 * every store hands it to the decider.
 */
export const specOf = <C, E, S, Err extends { readonly _tag: string; readonly message: string }>(
  decider: DeciderUnderSpec<C, E, S, Err>
) => ({
  given: (...history: ReadonlyArray<E>) => ({
    when: (command: C) => {
      const result = decider.decide(command, history.reduce(decider.evolve, decider.initialState))
      const decided = () => {
        if (Either.isLeft(result))
          expect.fail(`expected events, got the refusal ${result.left._tag}: ${result.left.message}`)
        return Either.getOrThrow(result)
      }
      return {
        thenEvents: (...expected: ReadonlyArray<E>) => expect(decided()).toStrictEqual(expected),
        thenNothing: () => expect(decided()).toStrictEqual([]),
        thenRefused: (tag: Err["_tag"], message?: string | RegExp) => {
          if (Either.isRight(result)) expect.fail(`expected the refusal ${tag}, got ${JSON.stringify(result.right)}`)
          const error = Either.getLeft(result).pipe((o) => (o._tag === "Some" ? o.value : undefined))!
          expect(error._tag).toBe(tag)
          if (message !== undefined) expect(error.message).toMatch(message)
        }
      }
    }
  })
})
