import { Effect, Layer } from "effect"
import { Approval, type ApprovalRequest } from "../../ports/Approval.js"

/** Every call goes ahead: the library default (the host agent has its own gate, or none). */
export const auto = Layer.succeed(Approval, Approval.of({ approve: () => Effect.succeed(true) }))

/** Every mutating call is refused: read-only memory. */
export const deny = Layer.succeed(Approval, Approval.of({ approve: () => Effect.succeed(false) }))

/**
 * Asks a person: the resource string, then `approve? [y/N] `; only `y` or `yes` approves. `ask` is given the
 * prompt and returns the answered line (undefined when there is no one to ask, which refuses).
 */
export const interactive = (ask: (prompt: string) => Promise<string | undefined>) =>
  Layer.succeed(
    Approval,
    Approval.of({
      approve: (request: ApprovalRequest) =>
        Effect.promise(() => ask(`${request.resource}\napprove? [y/N] `).catch(() => undefined)).pipe(
          Effect.map((answer) => answer !== undefined && /^\s*y(es)?\s*$/i.test(answer))
        )
    })
  )
