/**
 * Step 1 of the content scan (hidden characters) and the two normalised forms that injection patterns read.
 */

// Spec §7.1 step 1 names soft hyphen, combining grapheme joiner, Mongolian vowel separator, zero-width and
// directional marks, bidi embeddings/overrides, word joiner and invisible operators, BOM. Attackers also hide text
// in what the spec does not list (issue 12): the tag block (U+E0000–U+E007F, which spells ASCII invisibly), bidi
// isolates (U+2066–U+2069), Hangul fillers, variation selectors strung together to carry bytes. So every default-
// ignorable code point counts, less the ones ordinary spelling needs (isOrthographic below).
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u
const INVISIBLE_ALL = /\p{Default_Ignorable_Code_Point}/gu

const ZWNJ = 0x200c
const ZWJ = 0x200d
const PICTOGRAPH = /^\p{Extended_Pictographic}$/u
const EMOJI_MODIFIER_OR_VS16 = /^[\p{Emoji_Modifier}\uFE0F]$/u
// Scripts whose spelling needs ZWNJ/ZWJ between letters (Persian "می‌خواهم", Devanagari half forms).
const JOINING_SCRIPT_LETTER = new RegExp(
  String.raw`^(?=[\p{L}\p{M}])[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Nko}\p{Script=Devanagari}` +
    String.raw`\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}` +
    String.raw`\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}]$`,
  "u"
)

const codePointBefore = (s: string, i: number): number | undefined => {
  if (i === 0) return undefined
  const lo = s.charCodeAt(i - 1)
  if (lo >= 0xdc00 && lo <= 0xdfff && i >= 2) {
    const hi = s.charCodeAt(i - 2)
    if (hi >= 0xd800 && hi <= 0xdbff) return (hi - 0xd800) * 0x400 + (lo - 0xdc00) + 0x10000
  }
  return lo
}

const isChar = (cp: number | undefined, re: RegExp): boolean => cp !== undefined && re.test(String.fromCodePoint(cp))

const VARIATION_SELECTOR = /^[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]$/u
// What a variation selector may follow: a visible character beyond ASCII (an emoji, a CJK ideograph, a math
// symbol). One after a plain letter is a byte being smuggled, one per letter; a keycap (1️⃣) is checked apart.
const SELECTABLE = /^[^\p{Default_Ignorable_Code_Point}\p{White_Space}\p{Cc}\u0000-\u007F]$/u
const KEYCAP_BASE = /^[0-9#*]$/u
const COMBINING_KEYCAP = 0x20e3
const MONGOLIAN = /^\p{Script=Mongolian}$/u
const BLACK_FLAG = 0x1f3f4
const TAG_CANCEL = 0xe007f
const isTag = (cp: number | undefined) => cp !== undefined && cp >= 0xe0020 && cp <= 0xe007e
// A flag's tag letters: a region and subdivision code (`gbeng`, `usca`), lowercase letters and digits only.
const isFlagTag = (cp: number | undefined) =>
  cp !== undefined && ((cp >= 0xe0061 && cp <= 0xe007a) || (cp >= 0xe0030 && cp <= 0xe0039))
const FLAG_TAGS_MAX = 7

/**
 * Emoji tag sequences (the flags of England, Scotland, Wales: U+1F3F4, two to seven tag letters, U+E007F): the one
 * ordinary use of the tag block. `i` is any code unit inside such a sequence. Scans are bounded by the longest
 * flag, so a long run of tags costs linear time and is never taken for a flag (text hidden behind a flag emoji).
 */
const inFlagSequence = (text: string, i: number): boolean => {
  let start = i
  for (let n = 0; n <= FLAG_TAGS_MAX && start > 0 && isFlagTag(codePointBefore(text, start)); n++) start -= 2
  if (codePointBefore(text, start) !== BLACK_FLAG) return false
  let end = start
  for (let n = 0; n <= FLAG_TAGS_MAX && isFlagTag(text.codePointAt(end)); n++) end += 2
  const tags = (end - start) / 2
  return text.codePointAt(end) === TAG_CANCEL && tags >= 2 && tags <= FLAG_TAGS_MAX && i <= end
}

/**
 * A default-ignorable character that ordinary text needs: a joiner of ordinary spelling (isOrthographicJoiner), one
 * variation selector after a visible character (☺️, 葛󠄀), a Mongolian free variation selector after a Mongolian
 * letter, or part of an emoji flag's tag sequence.
 */
const isOrthographic = (text: string, i: number): boolean => {
  const cp = text.codePointAt(i)!
  if (cp === ZWNJ || cp === ZWJ) return isOrthographicJoiner(text, i)
  const before = codePointBefore(text, i)
  if (VARIATION_SELECTOR.test(String.fromCodePoint(cp)))
    return (
      (isChar(before, SELECTABLE) && !isChar(before, VARIATION_SELECTOR)) ||
      (cp === 0xfe0f && isChar(before, KEYCAP_BASE) && text.codePointAt(i + 1) === COMBINING_KEYCAP)
    )
  if ((cp >= 0x180b && cp <= 0x180d) || cp === 0x180f) return isChar(before, MONGOLIAN)
  if (isTag(cp) || cp === TAG_CANCEL) return inFlagSequence(text, i)
  return false
}

/**
 * A joiner that is part of ordinary spelling rather than hidden: ZWJ inside an emoji sequence (👨‍👩‍👧), or
 * ZWNJ/ZWJ between two letters of a script that needs them. Precision over the spec's flat list (DESIGN §5.8):
 * these never hide Latin-script instructions, and refusing them would refuse ordinary Persian, Hindi and emoji.
 */
const isOrthographicJoiner = (text: string, i: number): boolean => {
  const c = text.charCodeAt(i)
  if (c !== ZWNJ && c !== ZWJ) return false
  const before = codePointBefore(text, i)
  const after = text.codePointAt(i + 1)
  if (
    c === ZWJ &&
    (isChar(before, PICTOGRAPH) || isChar(before, EMOJI_MODIFIER_OR_VS16)) &&
    isChar(after, PICTOGRAPH)
  ) {
    return true
  }
  return isChar(before, JOINING_SCRIPT_LETTER) && isChar(after, JOINING_SCRIPT_LETTER)
}

/** Spec §7.1 step 1 on the raw text, widened to every default-ignorable code point (see INVISIBLE). */
export const hasHiddenUnicode = (text: string): boolean => {
  if (!INVISIBLE.test(text)) return false
  for (const m of text.matchAll(INVISIBLE_ALL)) {
    if (!isOrthographic(text, m.index ?? 0)) return true
  }
  return false
}

const WHITESPACE_RUN = /\s+/gu
const LINE_BREAK = /[\n\r\u2028\u2029]/u

// A run that spans a line break keeps one "\n" so that line-anchored patterns (markdown headers) still see
// line starts; every pattern spells inter-word space as `\s`, so this is otherwise the spec's single space.
const collapse = (s: string): string => s.replace(WHITESPACE_RUN, (run) => (LINE_BREAK.test(run) ? "\n" : " ")).trim()

/** Spec `norm`: invisible characters removed, lower-cased, whitespace collapsed, trimmed. */
export const normForm = (text: string): string =>
  collapse(text.replace(INVISIBLE_ALL, "").normalize("NFC").toLowerCase())

// Lower-case Cyrillic, Greek, Armenian and Latin-extension letters that pass for ASCII letters. Upper-case
// look-alikes are covered because `norm` is already lower-cased; fullwidth and mathematical letters are
// covered by NFKD.
const HOMOGLYPHS: Readonly<Record<string, string>> = {
  а: "a",
  в: "b",
  г: "r",
  е: "e",
  ё: "e",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  п: "n",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  ь: "b",
  і: "i",
  ї: "i",
  ј: "j",
  ѕ: "s",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  һ: "h",
  ӏ: "l",
  ү: "y",
  α: "a",
  β: "b",
  γ: "y",
  ε: "e",
  η: "n",
  ι: "i",
  κ: "k",
  μ: "u",
  ν: "v",
  ο: "o",
  π: "n",
  ρ: "p",
  σ: "o",
  ς: "c",
  τ: "t",
  υ: "u",
  χ: "x",
  ω: "w",
  ϲ: "c",
  ϳ: "j",
  օ: "o",
  ս: "u",
  հ: "h",
  ո: "n",
  ց: "g",
  զ: "q",
  ı: "i",
  ɑ: "a",
  ɡ: "g",
  ɩ: "i",
  ɪ: "i",
  ʏ: "y",
  // small capitals, which "fancy text" generators use for a whole word
  ᴀ: "a",
  ʙ: "b",
  ᴄ: "c",
  ᴅ: "d",
  ᴇ: "e",
  ꜰ: "f",
  ɢ: "g",
  ʜ: "h",
  ᴊ: "j",
  ᴋ: "k",
  ʟ: "l",
  ᴍ: "m",
  ɴ: "n",
  ᴏ: "o",
  ᴘ: "p",
  ǫ: "q",
  ʀ: "r",
  ꜱ: "s",
  ᴛ: "t",
  ᴜ: "u",
  ᴠ: "v",
  ᴡ: "w",
  ᴢ: "z",
  // curly apostrophes, so "don’t" reads as "don't"
  "‘": "'",
  "’": "'",
  ʼ: "'"
}
const HOMOGLYPH = new RegExp(`[${Object.keys(HOMOGLYPHS).join("")}]`, "gu")
const COMBINING_MARK = /\p{Mn}/gu

// Digits standing for letters ("1gn0re prev10us 1nstruct10ns", "s3cr3t", "y0ur"), read back only inside a word of
// four or more characters with two letters or more, where a letter follows, and where the word has two such digits
// or one between letters: "ipv4", "python3", "node20", "x86_64", "k8s", "1Password", "10 ms" and "2024" keep their
// digits (and so most technical text keeps one form to scan, not two).
const LEET: Readonly<Record<string, string>> = { "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t" }
const DIGIT_WORD = /\b(?=[a-z0-9]*[a-z][a-z0-9]*[a-z])[a-z0-9]*[013457][a-z][a-z0-9]*\b/g
const LEET_RUN = /(?<![0-9])[013457]+(?=[a-z])/g
const TWO_LEET = /[013457][^013457]*[013457]/
const LEET_INSIDE = /[a-z][013457]+[a-z]/
const unleet = (s: string): string =>
  s.replace(DIGIT_WORD, (word) =>
    word.length < 4 || !(TWO_LEET.test(word) || LEET_INSIDE.test(word))
      ? word
      : word.replace(LEET_RUN, (run) => [...run].map((d) => LEET[d] ?? d).join(""))
  )

/**
 * Spec `fold`: `norm` with compatibility forms (fullwidth, mathematical, ligatures) decomposed, combining marks
 * dropped (so "ìgnore" reads "ignore"), homoglyphs and small capitals mapped to their ASCII look-alikes, and digits
 * written for letters inside words read as those letters.
 */
export const foldForm = (norm: string): string =>
  unleet(
    collapse(
      norm
        .normalize("NFKD")
        .replace(COMBINING_MARK, "")
        .toLowerCase()
        .replace(HOMOGLYPH, (c) => HOMOGLYPHS[c] ?? c)
    )
  )
