/**
 * Distinguishing tokens: the parts of a text that make it one fact rather than another (DESIGN §7 "Merges").
 * Numbers, versions, ports, paths, URLs, identifiers, names and every content word that names a specific thing
 * ("vim", "helix") distinguish; function words and word endings do not. Two texts state the same fact only when
 * the second restates or extends the first without replacing any distinguishing token of it, without flipping a
 * negation, and without reordering what both say ("from MySQL to Postgres" is not "from Postgres to MySQL").
 *
 * Deliberately independent of any embedder: the similarity threshold decides whether two texts are close, this
 * decides whether they may be one entry at all.
 */
import { FUNCTION_WORDS, type Language, LANGUAGES, NEGATIONS } from "./functionWords.js"
import { bounded } from "../kernel/memo.js"

export type TokenKind = "url" | "path" | "version" | "number" | "identifier" | "name" | "word"

export interface Token {
  /** As written (trimmed of surrounding punctuation), for explanations. */
  readonly text: string
  /** What two tokens are compared on. */
  readonly key: string
  readonly kind: TokenKind
  /** Written with a capital first letter (a sentence-initial word keeps kind "word" but may still be a name). */
  readonly cased: boolean
}

export interface Analysis {
  readonly tokens: ReadonlyArray<Token>
  /**
   * Where the text negates ("not", "nicht", "ne … pas", "sin", "n't"): for each negation, the index of the first
   * token after it. A negation reaches what follows it.
   */
  readonly negations: ReadonlyArray<number>
}

/** Why two texts are not one fact; absent when the second restates or extends the first. */
export type Change =
  | { readonly _tag: "Replaced"; readonly removed: ReadonlyArray<Token>; readonly added: ReadonlyArray<Token> }
  | { readonly _tag: "Negated" }
  | { readonly _tag: "Reordered"; readonly tokens: ReadonlyArray<Token> }

// Scripts written without spaces: each character is its own token, so a restatement that extends still shares them.
const UNSPACED = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])/gu
const LEADING = /^[(["'«“‘„‹{¿¡*`<]+/u
const TRAILING = /[)\]"'»”’›}.,;:!?…*`>。！？、，]+$/u
const SENTENCE_END = /[.!?…。！？:;]["'»”’)\]*`]*$/u
const HAS_ALNUM = /[\p{L}\p{N}]/u
const URL = /^(?:[a-z][a-z0-9+.-]*:\/\/|www\.)\S/iu
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/u
const VERSION = /^v?\d+(?:\.\d+)+(?:[-+][0-9a-z.]+)?$|^v\d+$/iu
const NUMBER = /^[#№]?[+\-−]?\p{Sc}?\d[\d.,:'’\-/]*\p{Sc}?%?$/u
const PATHLIKE = /[/\\]|^~/u
const WORD = /^[\p{L}\p{M}'’ʼ]+$/u
const LETTERS = /^[\p{L}\p{M}]+$/u
const PLAIN = /^[a-z]+$/u
const APOSTROPHE = /['’ʼ]/u
const NOT_SUFFIX = /n['’ʼ]t$/iu
const UPPER_FIRST = /^\p{Lu}/u
const INNER_CAPS = /\p{Ll}\p{Lu}/u

const keyOf = (s: string) => s.normalize("NFC").toLowerCase()

const OPENER_ENDINGS: ReadonlySet<string> = new Set(["s", "es", "d", "ed"])
const NAME_LIKE: ReadonlySet<string> = new Set(["will", "may", "can", "dan", "ben", "ma", "lo", "sol"])

// English contractions whose stem is not the word ("can't" is "ca" + "n't").
const CONTRACTED: Readonly<Record<string, string>> = { ca: "can", wo: "will", sha: "shall" }

const ALL_NEGATIONS: ReadonlySet<string> = new Set(LANGUAGES.flatMap((l) => [...NEGATIONS[l]]))
const ANY_FUNCTION_WORD: ReadonlySet<string> = new Set(LANGUAGES.flatMap((l) => [...FUNCTION_WORDS[l]]))

/**
 * A text read once, before its pair's languages are known: its tokens, its negations, and the words that are
 * function words in some language (kept or dropped once the languages are settled).
 */
interface Part {
  readonly token: Token
  readonly role: "token" | "negation" | "function"
  /** A capital mid-sentence: a name, unless the language capitalises nouns. */
  readonly midCapital: boolean
}
interface Scan {
  readonly parts: ReadonlyArray<Part>
  readonly counts: ReadonlyArray<number>
}

const NEGATION_MARK: Token = { text: "n't", key: "n't", kind: "word", cased: false }

const classifyCore = (core: string): TokenKind | undefined => {
  // most chunks are plain lowercase words: one test instead of seven
  if (PLAIN.test(core)) return "word"
  if (!HAS_ALNUM.test(core)) return undefined
  if (URL.test(core)) return "url"
  if (EMAIL.test(core)) return "identifier"
  if (VERSION.test(core)) return "version"
  if (NUMBER.test(core)) return "number"
  if (PATHLIKE.test(core)) return "path"
  if (WORD.test(core)) return "word"
  // snake_case, kebab-case, dotted.names, hashes, db1, C++, .env, @handle, #123
  return "identifier"
}

const tokenKey = (kind: TokenKind, core: string): string => {
  if (kind === "url")
    return core.normalize("NFC").replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*|^www\.[^/]*/iu, (m) => m.toLowerCase())
  // a path's case is part of it on most file systems
  if (kind === "path") return core.normalize("NFC")
  if (kind === "version") return keyOf(core).replace(/^v/u, "")
  return keyOf(core)
}

const scanText = (text: string): Scan => {
  const parts: Array<Part> = []
  const counts = LANGUAGES.map(() => 0)
  let sentenceStart = true
  for (const chunk of text.replace(UNSPACED, " $1 ").split(/\s+/u)) {
    const core = chunk.replace(LEADING, "").replace(TRAILING, "")
    const kind = classifyCore(core)
    if (kind !== undefined) {
      if (kind !== "word")
        parts.push({
          token: { text: core, key: tokenKey(kind, core), kind, cased: UPPER_FIRST.test(core) },
          role: "token",
          midCapital: false
        })
      else scanWord(core, sentenceStart, parts, counts)
      sentenceStart = false
    }
    if (SENTENCE_END.test(chunk)) sentenceStart = true
  }
  return { parts, counts }
}

// A fact file's entries are read again by every add's merge gate: each is scanned once.
const scans = bounded<string, Scan>()
const scan = (text: string): Scan => scans(text, () => scanText(text))

const scanWord = (word: string, sentenceStart: boolean, out: Array<Part>, counts: Array<number>): void => {
  let stem = word
  if (NOT_SUFFIX.test(word)) {
    out.push({ token: NEGATION_MARK, role: "negation", midCapital: false })
    stem = word.slice(0, -3)
    stem = CONTRACTED[keyOf(stem)] ?? stem
  }
  // elisions and clitics ("l'éditeur", "dell'utente", "user's") split into their words
  for (const part of stem.split(APOSTROPHE)) {
    if (!LETTERS.test(part)) continue
    const key = keyOf(part)
    LANGUAGES.forEach((l, i) => {
      if (FUNCTION_WORDS[l].has(key) || NEGATIONS[l].has(key)) counts[i]!++
    })
    const cased = UPPER_FIRST.test(part)
    const acronym = part.length >= 2 && part === part.toUpperCase() && part !== part.toLowerCase()
    const midCapital = cased && !sentenceStart
    const name = acronym || INNER_CAPS.test(part) || midCapital
    const token: Token = { text: part, key, kind: name ? "name" : "word", cased }
    // a capital mid-sentence is a name or a noun ("Mai", the month), not an Italian "never"
    if (ALL_NEGATIONS.has(key) && !acronym && !midCapital) out.push({ token, role: "negation", midCapital })
    // "Will", "May", "Dan", "Ben" opening a fact are far more often a person than a function word
    else if (ANY_FUNCTION_WORD.has(key) && !acronym && !(cased && NAME_LIKE.has(key)))
      out.push({ token, role: "function", midCapital })
    else out.push({ token, role: "token", midCapital })
  }
}

const pickLanguages = (scans: ReadonlyArray<Scan>): ReadonlyArray<Language> => {
  const totals = LANGUAGES.map((_, i) => scans.reduce((n, s) => n + s.counts[i]!, 0))
  const best = Math.max(0, ...totals)
  return best === 0 ? [] : LANGUAGES.filter((_, i) => totals[i] === best)
}

/** The languages whose function words `texts` use most; none when they use none (then nothing is noise). */
export const detectLanguages = (texts: ReadonlyArray<string>): ReadonlyArray<Language> => pickLanguages(texts.map(scan))

/** The scanned text with its function words read in `languages`. */
const finish = (scanned: Scan, languages: ReadonlyArray<Language>): Analysis => {
  // German capitalises nouns and its formal pronouns ("Sie", "Ihr"): a capital mid-sentence is no sign of a name there.
  const capitalisesNouns = languages.includes("de")
  const tokens: Array<Token> = []
  const negations: Array<number> = []
  for (const p of scanned.parts) {
    if (p.role === "negation") negations.push(tokens.length)
    else if (
      p.role === "token" ||
      (p.midCapital && !capitalisesNouns) ||
      !languages.some((l) => FUNCTION_WORDS[l].has(p.token.key))
    )
      tokens.push(p.token)
  }
  return { tokens, negations }
}

/** The text's distinguishing tokens in order, and where it negates; function words are read in `languages`. */
export const analyse = (text: string, languages?: ReadonlyArray<Language>): Analysis => {
  const scanned = scan(text)
  return finish(scanned, languages ?? pickLanguages([scanned]))
}

const commonPrefix = (a: string, b: string) => {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a[i] === b[i]) i++
  return i
}

/**
 * Whether two tokens are the same: equal keys, or two inflections of one plain word ("prefers"/"prefer",
 * "themes"/"theme"). Names, numbers and identifiers must be equal: "Mark" is not "Marko", "db1" is not "db10".
 */
export const sameToken = (a: Token, b: Token): boolean => {
  if (a.key === b.key) return true
  // cheapest refusals first: this runs for every pair of tokens of two texts
  if (a.kind !== "word" || b.kind !== "word" || a.key.length < 4 || b.key.length < 4 || a.key[0] !== b.key[0])
    return false
  if (!LETTERS.test(a.key) || !LETTERS.test(b.key)) return false
  const [short, long] = a.key.length <= b.key.length ? [a.key, b.key] : [b.key, a.key]
  // two capitalised sentence openers may be names ("Mark", "Marko"): only a plain verb or plural ending joins them
  if (a.cased && b.cased) return long.startsWith(short) && OPENER_ENDINGS.has(long.slice(short.length))
  return commonPrefix(a.key, b.key) >= Math.max(4, Math.ceil(0.75 * long.length))
}

const dedupe = (tokens: ReadonlyArray<Token>) => {
  const seen = new Set<string>()
  return tokens.filter((t) => (seen.has(t.key) ? false : (seen.add(t.key), true)))
}

/**
 * The first token of `existing` that `incoming` holds only before something said after it. A token `existing`
 * repeats is followed as often as `incoming` has it: "on the call … call over X" and "on the call … X over call"
 * are reordered, while "vim … vim" read as just "vim" is not.
 */
const firstReordered = (existing: ReadonlyArray<Token>, incoming: ReadonlyArray<Token>): Token | undefined => {
  const seen = new Map<string, number>()
  let cursor = 0
  for (const t of existing) {
    const nth = (seen.get(t.key) ?? 0) + 1
    seen.set(t.key, nth)
    if (incoming.filter((u) => sameToken(t, u)).length < nth) continue
    const at = incoming.findIndex((u, i) => i >= cursor && sameToken(t, u))
    if (at < 0) return t
    cursor = at + 1
  }
  return undefined
}

/**
 * Pairs each token of `a` with one token of `b` (equal keys first, then inflections), each used once: "maps 8080 to
 * 8080" and "maps 8080 to 9090" share one 8080, not two. Returns the unpaired tokens of each side.
 */
const unpaired = (a: ReadonlyArray<Token>, b: ReadonlyArray<Token>) => {
  const used = Array.from({ length: b.length }, () => false)
  const own = Array.from({ length: a.length }, () => false)
  for (const [k, t] of a.entries()) {
    const i = b.findIndex((u, j) => !used[j] && u.key === t.key)
    if (i >= 0) used[i] = own[k] = true
  }
  for (const [k, t] of a.entries()) {
    if (own[k]) continue
    const i = b.findIndex((u, j) => !used[j] && sameToken(t, u))
    if (i >= 0) used[i] = own[k] = true
  }
  const left = a.filter((_, k) => !own[k])
  return { removed: left, added: b.filter((_, j) => !used[j]), pairedA: own, pairedB: used }
}

/** Whether a negation of the text reaches a token the other text also holds ("not spaces" after "tabs" does not). */
const negatesShared = (negations: ReadonlyArray<number>, shared: ReadonlyArray<boolean>) =>
  negations.some((from) => shared.some((s, i) => s && i >= from))

/** How `b` departs from `a` in distinguishing terms, both read with the same function words. */
const compare = (a: Analysis, b: Analysis): Change | undefined => {
  const { removed, added, pairedA, pairedB } = unpaired(a.tokens, b.tokens)
  // "Likes tabs" / "Doesn't like tabs" flip a fact; "Likes tabs" / "Likes tabs, not spaces" extend it
  if (negatesShared(a.negations, pairedA) !== negatesShared(b.negations, pairedB)) return { _tag: "Negated" }
  // Something of the entry gone and something new in its place: a different fact, not a restatement.
  if (removed.length > 0 && added.length > 0)
    return { _tag: "Replaced", removed: dedupe(removed), added: dedupe(added) }
  const reordered = firstReordered(a.tokens, b.tokens)
  return reordered === undefined ? undefined : { _tag: "Reordered", tokens: [reordered] }
}

/**
 * Why `incoming` must not be folded into a given existing text automatically, or undefined when it restates or
 * extends it (or says less of it) without changing any distinguishing token. The incoming text is read once for
 * every entry it is compared with.
 */
export const changeFrom = (incoming: string): ((existing: string) => Change | undefined) => {
  const inc = scan(incoming)
  const read = new Map<string, Analysis>()
  return (existing) => {
    const ex = scan(existing)
    const languages = pickLanguages([ex, inc])
    const key = languages.join(",")
    let b = read.get(key)
    if (b === undefined) read.set(key, (b = finish(inc, languages)))
    return compare(finish(ex, languages), b)
  }
}

/** `changeFrom(incoming)(existing)`: the change one pair makes. */
export const factChange = (existing: string, incoming: string): Change | undefined => changeFrom(incoming)(existing)

const STRONG: ReadonlySet<TokenKind> = new Set(["url", "path", "version", "number", "identifier", "name"])

/**
 * Why two episode summaries are not copies of one session, or undefined when their distinguishing tokens agree:
 * the same numbers, versions, paths, URLs, identifiers and names on both sides, and no word of one replaced in the
 * other.
 */
export const summariesDiffer = (a: string, b: string): Change | undefined => {
  const sa = scan(a)
  const sb = scan(b)
  const languages = pickLanguages([sa, sb])
  const x = finish(sa, languages)
  const y = finish(sb, languages)
  const change = compare(x, y)
  if (change !== undefined) return change
  const strong = unpaired(
    x.tokens.filter((t) => STRONG.has(t.kind)),
    y.tokens.filter((t) => STRONG.has(t.kind))
  )
  const removed = dedupe(strong.removed)
  const added = dedupe(strong.added)
  return removed.length + added.length > 0 ? { _tag: "Replaced", removed, added } : undefined
}

const quoteList = (tokens: ReadonlyArray<Token>, max = 4) => {
  const shown = tokens.slice(0, max).map((t) => JSON.stringify(t.text))
  return tokens.length > max ? `${shown.join(", ")} …` : shown.join(", ")
}

/** One line for events and logs: what makes the two texts different facts. */
export const describeChange = (change: Change): string => {
  switch (change._tag) {
    case "Replaced":
      if (change.removed.length === 0) return `the new text adds ${quoteList(change.added)}`
      if (change.added.length === 0) return `the new text drops ${quoteList(change.removed)}`
      return `${quoteList(change.removed)} would become ${quoteList(change.added)}`
    case "Negated":
      return "one text negates what the other states"
    case "Reordered":
      return `${quoteList(change.tokens)} stands in a different order`
  }
}
