import { Args, Command, Options } from "@effect/cli"
import { FileSystem } from "@effect/platform"
import { Console, Effect, Either, Option } from "effect"
import { evaluateRecall } from "../../app/eval.js"
import { decodeDataset, describeParseError } from "../../domain/eval/dataset.js"
import { renderEvaluation } from "../../domain/eval/report.js"
import * as ScratchMemories from "../disk/ScratchMemories.js"
import * as Progresses from "../progress/Progresses.js"
import { resolveConfig } from "./globals.js"
import { refuse } from "./output.js"
import { tmem } from "./root.js"

const FORMAT_HINT = "see docs/CLI.md (eval recall) for the dataset format"

const recall = Command.make(
  "recall",
  {
    file: Args.file({ name: "dataset.json", exists: "yes" }).pipe(
      Args.withDescription("conversations, sessions and questions in the neutral format (docs/CLI.md)")
    ),
    limit: Options.integer("limit-conversations").pipe(
      Options.withDescription("only the first N conversations"),
      Options.optional
    )
  },
  ({ file, limit }) =>
    Effect.flatMap(tmem, (g) =>
      Effect.gen(function* () {
        if (Option.isSome(limit) && limit.value < 1)
          return yield* Effect.fail({ message: `tmem: --limit-conversations must be 1 or more (got ${limit.value})` })
        // the user's configuration (model, embedder) is measured; their memory directory is never touched
        const config = yield* resolveConfig(g)
        const text = yield* (yield* FileSystem.FileSystem)
          .readFileString(file)
          .pipe(Effect.mapError((e) => ({ message: `tmem: cannot read ${file}: ${e.message}` })))
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch (e) {
          return yield* Effect.fail({
            message: `tmem: ${file} is not JSON (${e instanceof Error ? e.message : String(e)}); ${FORMAT_HINT}`
          })
        }
        const dataset = yield* Either.mapLeft(decodeDataset(json), (e) => ({
          message: `tmem: ${file}: ${describeParseError(e)}; ${FORMAT_HINT}`
        }))
        const evaluation = yield* evaluateRecall(dataset, { limitConversations: Option.getOrUndefined(limit) }).pipe(
          Effect.provide(ScratchMemories.layer(config)),
          Effect.provide(Progresses.terminal(process.stderr))
        )
        return { text: renderEvaluation(file, evaluation), json: { dataset: file, ...evaluation } }
      }).pipe(
        Effect.matchEffect({
          onSuccess: (out) => Console.log(g.json ? JSON.stringify({ ok: true, result: out.json }) : out.text),
          onFailure: (e) => refuse(g, e.message)
        })
      )
    )
).pipe(
  Command.withDescription(
    "measure recall on a dataset (each conversation in a scratch memory, your configuration): " +
      "hit@1/3/5, answer-in-block, latency"
  )
)

export const evalCommand = Command.make("eval").pipe(
  Command.withDescription("measure the memory on a dataset (your configuration, scratch memories)"),
  Command.withSubcommands([recall])
)
