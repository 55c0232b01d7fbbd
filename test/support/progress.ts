import { Effect, Layer } from "effect"
import { Progress } from "../../src/ports/Progress.js"

/** A Progress that records each label it is shown, in order, into `labels`. */
export const recordingProgress = (labels: Array<string>) =>
  Layer.succeed(
    Progress,
    Progress.of({
      during: (label, effect) =>
        Effect.zipRight(
          Effect.sync(() => labels.push(label)),
          effect
        )
    })
  )
