import { Context, Layer } from "effect"
import { Llm } from "../ports/Llm.js"

/**
 * The model Extended Memory asks (spec extended §20): extraction, rerank, prediction, user-model inference,
 * consolidation and nudges. `memory.extended.llm` gives it a model of its own (a cheaper one, say); otherwise it is
 * the main `llm`.
 */
export class AtomLlm extends Context.Tag("tmem/AtomLlm")<AtomLlm, Llm["Type"]>() {
  /** The main model. */
  static readonly main = Layer.effect(AtomLlm, Llm)
}
