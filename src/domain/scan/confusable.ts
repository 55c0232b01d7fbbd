/**
 * Step 2 of the content scan: a homoglyph spoof such as "pаypal" (Cyrillic а) or "ΑPI" (Greek Alpha).
 *
 * Judged per word, not per text (DESIGN §5.8): "Русский and English" or "王伟 (Wang Wei)" use two scripts
 * side by side, which is ordinary writing; only a single word that mixes Latin letters with look-alike letters
 * can pass for something it is not.
 *
 * - Any Cyrillic letter inside a Latin word counts: no language spells one word in both scripts, so a mix is a
 *   spoof or a keyboard-layout slip, and both deserve a second look.
 * - Greek counts only for letters that pass for Latin ones (ο, ρ, ν, Α, Ε, Κ …). The other Greek letters are
 *   scientific notation glued to Latin units and names ("10μs", "kΩ", "TNFα", "IFNγ") and look like nothing
 *   else.
 * - Han, kana and Hangul never count: CJK writing routinely runs Latin tokens into ideographs without a space
 *   ("API调用", "Gitでコミット"), and no ideograph resembles a Latin letter, so such a token cannot spoof one.
 */

const WORD = /[\p{L}\p{M}\p{N}]+/gu
const LATIN_LETTER = /(?=\p{L})\p{Script=Latin}/u
const LOOKALIKE_LETTER = /(?=\p{L})[\p{Script=Cyrillic}ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϹͿοικνρυχϲϳόίύϊϋ]/u

/** True when some word mixes Latin letters with Cyrillic or look-alike Greek letters. */
export const hasMixedConfusableWord = (text: string): boolean => {
  if (!LOOKALIKE_LETTER.test(text) || !LATIN_LETTER.test(text)) return false
  for (const [word] of text.matchAll(WORD)) {
    if (LATIN_LETTER.test(word) && LOOKALIKE_LETTER.test(word)) return true
  }
  return false
}
