import { Effect, Layer } from "effect"
import { Llm, LlmUnavailable } from "../../ports/Llm.js"

const reason =
  "llm: no model configured; set llm.base_url and llm.model in the config file, or pass --llm-url and --llm-model"

/** No model: every completion is Unavailable, so each feature takes its no-LLM path (DESIGN §4). */
export const make = () =>
  Llm.of({
    info: { provider: "none", model: "", endpoint: "", available: false },
    complete: () => Effect.fail(new LlmUnavailable({ reason }))
  })

export const layer = Layer.sync(Llm, make)
