export { bounded, CACHE_LIMIT } from "../../domain/kernel/memo.js"

/** Whether two corpora are the same texts in the same order (a fitted model can then be reused as it is). */
export const sameTexts = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean =>
  a.length === b.length && a.every((t, i) => t === b[i])
