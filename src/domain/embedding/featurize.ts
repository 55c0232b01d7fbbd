/**
 * Text → token stream for RandomProjections, in two literal stages (spec embedding.md §5.1–5.2): odek's featurizer
 * (normalize + bigrams) and go-vector's tokenizer. They split text differently (`_` separates only in the tokenizer;
 * N* vs Nd) and the Go embedding space depends on exactly that, so neither stage may be folded into the other.
 */

import { utf8Bytes } from "../text/utf8.js"

// Only two code points lower-case differently under JS's full, context-sensitive mapping than under Go's per-rune
// simple mapping: İ (full mapping "i̇", simple "i") and Σ (final-sigma rule gives ς, simple gives σ). Mapping them
// first makes `toLowerCase` context-free and equal to Go's `unicode.ToLower` rune by rune, at native speed.
const CONTEXT_SENSITIVE = /[\u0130\u03a3]/g

/** Go's `strings.ToLower`: per-code-point simple lower-casing, no locale and no final-sigma rule. */
export const lowerSimple = (text: string): string =>
  text.replace(CONTEXT_SENSITIVE, (c) => (c === "\u0130" ? "i" : "\u03c3")).toLowerCase()

const NOT_LETTER_OR_NUMBER = /[^\p{L}\p{N}]+/u
const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{Nd}]+/u

/** Lower-cased runs of letters and numbers joined by single spaces: `"uses Postgres."` → `uses postgres`. */
export const normalize = (text: string): string =>
  lowerSimple(text)
    .split(NOT_LETTER_OR_NUMBER)
    .filter((w) => w !== "")
    .join(" ")

/** The words of a normalized text followed by every adjacent pair `a_b`; texts of fewer than 2 words unchanged. */
export const bigrams = (normalized: string): string => {
  const words = normalized.split(" ")
  if (words.length < 2) return normalized
  const out = words.slice()
  for (let i = 0; i + 1 < words.length; i++) out.push(`${words[i]}_${words[i + 1]}`)
  return out.join(" ")
}

/** odek's featurizer, applied to corpus texts and queries alike so both live in one feature space. */
export const featurize = (text: string): string => bigrams(normalize(text))

/**
 * go-vector's tokenizer: lower-case, split on anything that is neither a letter (L*) nor a decimal digit (Nd), drop
 * tokens under 2 UTF-8 bytes. So `_` splits bigrams back into words and single ASCII characters never count.
 */
export const tokenize = (text: string): Array<string> =>
  lowerSimple(text)
    .split(NOT_LETTER_OR_DIGIT)
    .filter((t) => utf8Bytes(t) >= 2)

const LETTERS_AND_DIGITS_ONLY = /^[\p{L}\p{Nd}]+$/u

const wordTokens = (word: string): ReadonlyArray<string> =>
  LETTERS_AND_DIGITS_ONLY.test(word)
    ? utf8Bytes(word) >= 2
      ? [word]
      : []
    : word.split(NOT_LETTER_OR_DIGIT).filter((t) => utf8Bytes(t) >= 2)

/**
 * Exactly `tokenize(featurize(text))`, in the same order, without building the bigram strings: a bigram `a_b`
 * tokenizes to the tokens of `a` then those of `b`, so the stream is every word's tokens, then each adjacent pair's.
 * Both stages are still applied literally per word (a word may split further on N-but-not-Nd characters).
 */
export const tokenStream = (text: string): Array<string> => {
  const words = lowerSimple(text)
    .split(NOT_LETTER_OR_NUMBER)
    .filter((w) => w !== "")
  const per = words.map(wordTokens)
  const out: Array<string> = []
  for (const ts of per) out.push(...ts)
  if (words.length >= 2) for (let i = 0; i + 1 < per.length; i++) out.push(...per[i]!, ...per[i + 1]!)
  return out
}
