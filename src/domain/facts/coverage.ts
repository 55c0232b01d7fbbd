/**
 * The coverage rule for consolidation (docs/CONSOLIDATION.md). A consolidated file may drop repetition and
 * function words, but never a fact:
 *
 * - covered: every original entry has one consolidated entry that contains all of its content words;
 * - nothing new: every content word of a consolidated entry occurs in some original entry.
 *
 * Content words are Unicode letter/number runs, NFKC-normalised and lower-cased, with a trailing plural "s"
 * dropped, minus a fixed list of English function words. Negations ("not", "no", "never", "without") are content
 * words on purpose: losing one inverts a fact. Containment of word sets is transitive, so a fact that survives
 * one pass survives every later pass too — the property the consolidation tests check across interleavings.
 */

// Words that carry no fact on their own. Deliberately small and English: text in other languages keeps every
// word, which makes the rule stricter (a rejected pass leaves the file as it was), never looser.
const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  (
    "a an the this that these those there here it its they them their theirs he him his she her hers we us our " +
    "ours you your yours i me my mine one ones is are was were be been being am do does did has have had having " +
    "will would shall should can could may might must of in on at to for from with by as into onto about " +
    "and or but also both either so such than then too very just only which who whom whose what where when " +
    "while because since though although if else etc e g ie eg via per plus each any all user users s t"
  ).split(" ")
)

const WORD = /[\p{L}\p{M}\p{N}]+/gu

/** A word's comparable form: plural "s" dropped (not "ss", "us", "is"), so "uses"/"use" and "tests"/"test" match. */
const stem = (word: string): string =>
  word.length > 3 && word.endsWith("s") && !/(?:ss|us|is)$/u.test(word) && /^\p{L}+$/u.test(word)
    ? word.slice(0, -1)
    : word

/** The content words of a text, as the coverage rule compares them. */
export const contentWords = (text: string): ReadonlySet<string> => {
  const out = new Set<string>()
  for (const m of text.normalize("NFKC").toLowerCase().matchAll(WORD)) {
    const w = stem(m[0])
    if (!FUNCTION_WORDS.has(w) && !FUNCTION_WORDS.has(m[0])) out.add(w)
  }
  return out
}

const missingFrom = (needed: ReadonlySet<string>, have: ReadonlySet<string>): ReadonlyArray<string> =>
  [...needed].filter((w) => !have.has(w))

/** Whether `entry` holds every content word of `fact` (the fact is represented there). */
export const covers = (entry: string, fact: string): boolean =>
  missingFrom(contentWords(fact), contentWords(entry)).length === 0

export type CoverageProblem =
  | {
      readonly kind: "lost"
      /** 0-based index of the original entry no consolidated entry covers. */
      readonly index: number
      readonly entry: string
      /** Words the closest consolidated entry lacks. */
      readonly missing: ReadonlyArray<string>
    }
  | {
      readonly kind: "invented"
      /** 0-based index of the consolidated entry. */
      readonly index: number
      readonly entry: string
      readonly words: ReadonlyArray<string>
    }

/** The first way `after` fails to stand for `before`, or undefined when it passes both halves of the rule. */
export const coverageProblem = (
  before: ReadonlyArray<string>,
  after: ReadonlyArray<string>
): CoverageProblem | undefined => {
  const outWords = after.map(contentWords)
  for (const [index, entry] of before.entries()) {
    const need = contentWords(entry)
    let best: ReadonlyArray<string> | undefined
    for (const have of outWords) {
      const missing = missingFrom(need, have)
      if (best === undefined || missing.length < best.length) best = missing
      if (missing.length === 0) break
    }
    if (best === undefined || best.length > 0) return { kind: "lost", index, entry, missing: best ?? [...need] }
  }
  const known = new Set(before.flatMap((e) => [...contentWords(e)]))
  for (const [index, entry] of after.entries()) {
    const words = [...outWords[index]!].filter((w) => !known.has(w))
    if (words.length > 0) return { kind: "invented", index, entry, words }
  }
  return undefined
}
