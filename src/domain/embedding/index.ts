/** Text embedding, pure part: Go-compatible RandomProjections and vector similarity (spec embedding.md §5–6). */
export { bigrams, featurize, lowerSimple, normalize, tokenize, tokenStream } from "./featurize.js"
export { goRand } from "./goRand.js"
export type { GoRand } from "./goRand.js"
export {
  embedRp,
  embedRows,
  embedWithCorpus,
  fitTokenStreams,
  rowIndices,
  fitRandomProjections,
  projectionRow,
  RP_DEFAULT_DIMS,
  RP_PRNG_ID,
  RP_SEED,
  rpDims,
  rpFingerprint,
  rpModelFromTokens
} from "./randomProjections.js"
export type { RpModel, SparseRow } from "./randomProjections.js"
export { bestMatch, cosine, topK } from "./vector.js"
export type { Match, Vector } from "./vector.js"
