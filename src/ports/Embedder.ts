import { Context, Effect, Schema } from "effect"
import { cosine } from "../domain/embedding/vector.js"

/** Identity of an embedding space: vectors are comparable only within one id (`rp/256`, `http/<model>/<dims>/<h>`). */
export interface EmbeddingSpace {
  readonly id: string
  readonly provider: string
  readonly model: string
  readonly dims: number
}

/**
 * Whether vectors of this space are fitted on the corpus of each call (the local spaces, `local` and `rp`): they see
 * the words of their corpus and nothing else, so a query needs the corpus's fit and can only re-weigh what shares
 * its words. Stateless spaces (an embeddings API) carry meaning of their own.
 */
export const isCorpusFitted = (space: EmbeddingSpace): boolean => space.provider === "local" || space.provider === "rp"

export class EmbedFailed extends Schema.TaggedError<EmbedFailed>()("EmbedFailed", { text: Schema.String }) {
  override get message() {
    return this.text
  }
}

/**
 * Text to vectors. `corpus` is the collection the texts are compared within: corpus-fitted embedders (random
 * projections) fit on it, stateless ones may use it to warm a cache. Vectors come back in input order.
 */
export class Embedder extends Context.Tag("tmem/Embedder")<
  Embedder,
  {
    readonly space: EmbeddingSpace
    readonly embed: (
      corpus: ReadonlyArray<string>,
      texts: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<Float32Array>, EmbedFailed>
    /**
     * Fits once on `corpus` and returns an embedder of further texts in that same space, for many queries against
     * one index. Optional: without it, callers embed each query with `embed(corpus, [query])`.
     */
    readonly fit?: (
      corpus: ReadonlyArray<string>
    ) => Effect.Effect<
      (texts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Float32Array>, EmbedFailed>,
      EmbedFailed
    >
    /**
     * The cosine of `query` to each corpus text, computed in the space directly rather than through vectors: exact
     * where the vectors are an estimate (the local spaces project onto D random rows), and far cheaper for one query
     * against a small corpus (the merge probe of every add). Optional: without it, callers compare `embed` vectors.
     */
    readonly similarities?: (
      corpus: ReadonlyArray<string>,
      query: string
    ) => Effect.Effect<ReadonlyArray<number>, EmbedFailed>
  }
>() {}

/** `embedder.fit(corpus)`, or the equivalent made of `embed` for embedders without it. */
export const fitted = (embedder: Embedder["Type"], corpus: ReadonlyArray<string>) =>
  embedder.fit !== undefined
    ? embedder.fit(corpus)
    : Effect.succeed((texts: ReadonlyArray<string>) => embedder.embed(corpus, texts))

/**
 * The cosine of `query` to each corpus text: `embedder.similarities` when it offers it, else the cosines of the
 * vectors `embed` gives with `corpus` as the corpus.
 */
export const similaritiesOf = (
  embedder: Embedder["Type"],
  corpus: ReadonlyArray<string>,
  query: string
): Effect.Effect<ReadonlyArray<number>, EmbedFailed> =>
  embedder.similarities !== undefined
    ? embedder.similarities(corpus, query)
    : Effect.flatMap(embedder.embed(corpus, [...corpus, query]), (vectors) => {
        const q = vectors[corpus.length]
        return q === undefined || vectors.length !== corpus.length + 1
          ? Effect.fail(
              new EmbedFailed({
                text: `memory: the embedder returned ${vectors.length} vectors for ${corpus.length + 1} texts`
              })
            )
          : Effect.succeed(vectors.slice(0, corpus.length).map((v) => cosine(q, v)))
      })
