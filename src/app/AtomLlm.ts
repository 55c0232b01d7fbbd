import { Context, Layer } from "effect"
import { Embedder } from "../ports/Embedder.js"
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

/**
 * The embedder Extended Memory compares atoms with (spec extended §8.1): `memory.extended.embedding` when set, else
 * the memory's. The atom index, the write path's dedup and links, and consolidation all use it, so their thresholds
 * apply in one vector space.
 */
export class AtomEmbedder extends Context.Tag("tmem/AtomEmbedder")<AtomEmbedder, Embedder["Type"]>() {
  /** The memory's embedder. */
  static readonly main = Layer.effect(AtomEmbedder, Embedder)
}
