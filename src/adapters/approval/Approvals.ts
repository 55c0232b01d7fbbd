import { Effect, Layer } from "effect"
import * as Readline from "node:readline"
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

/** The streams a terminal question needs: a readable with `isTTY`, and somewhere to write the prompt. */
export interface AskStreams {
  readonly input: NodeJS.ReadableStream & { readonly isTTY?: boolean }
  readonly output: { write: (text: string) => unknown }
}

/**
 * Asks one line on a terminal. Without one (stdin is a pipe or a file) no person can answer, so it does not wait
 * for input that may never come: it says so on one line and answers no. End of input also answers no.
 */
export const askOn =
  ({ input, output }: AskStreams) =>
  (prompt: string): Promise<string | undefined> => {
    if (input.isTTY !== true) {
      // what would have been asked about (every line but the question), so the refusal names its call
      output.write(
        `${prompt.slice(0, prompt.lastIndexOf("\n") + 1)}tmem: cannot ask for approval: stdin is not a terminal; ` +
          "answered no (use --approve auto or deny in scripts)\n"
      )
      return Promise.resolve(undefined)
    }
    return new Promise((resolve) => {
      const rl = Readline.createInterface({ input, terminal: false })
      let answered = false
      output.write(prompt)
      rl.once("line", (line) => {
        answered = true
        rl.close()
        resolve(line)
      })
      rl.once("close", () => {
        if (answered) return
        output.write("\ntmem: no answer (end of input); answered no\n")
        resolve(undefined)
      })
    })
  }
