/**
 * The episode written when no model is available (DESIGN §4): the session's most informative sentences, extracted
 * verbatim and kept in session order within the summary cap, after a short line saying who took part and when.
 * Salience is judged against the session itself: what it mentions rarely, names, numbers and dates, and words that
 * mark decisions, errors and outcomes, in several languages; greetings, fillers and one-word turns weigh nothing.
 * Only user and assistant text is read: system content (the prompt, injected memory) and tool output could steer
 * the summary, as in the model's transcript (transcript.ts). A pure function of the messages: no clock, no state.
 */
import type { ChatMessage } from "../sessions/message.js"
import { utf8Bytes } from "../text/utf8.js"
import { looksLikeEpisode, SUMMARY_CAP_BYTES } from "./summary.js"

/**
 * One extracted sentence: `text` stands at `start` in the flattened content (`flattenContent`) of `messages[message]`.
 */
export interface ExtractedSentence {
  readonly message: number
  readonly start: number
  readonly text: string
  /** Who said it: the session's own speaker tag (`[Name] …`) or the role (`User`, `Agent`). */
  readonly speaker: string
}

/**
 * What the summary is made of: an opening (the tagged participants and the session's date, when it has them), the
 * sentences in session order, and a closing naming the tools the agent called. Opening and closing may be empty.
 */
export interface ExtractiveParts {
  readonly opening: string
  readonly sentences: ReadonlyArray<ExtractedSentence>
  readonly closing: string
}

// --- reading the session ------------------------------------------------------------------------------------------

// Control characters and whitespace other than one plain space, in runs: each run becomes one space. A lone plain
// space is left alone (not replaced by itself), which keeps flattening a 10 MB message cheap.
const BLANK = "\\s\\u0000-\\u001f\\u007f-\\u009f\\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
const BLANK_RUN = new RegExp(`[${BLANK}]{2,}|[^\\S ]|[\\u0000-\\u001f\\u007f-\\u009f]`, "gu")

/**
 * A message's content as one line: lone surrogates as U+FFFD (what UTF-8 would store anyway), control characters
 * and whitespace runs as one space, trimmed. Extracted sentences are substrings of this.
 */
export const flattenContent = (content: string): string =>
  content
    .replace(/\p{Surrogate}/gu, "\uFFFD")
    .replace(BLANK_RUN, " ")
    .trim()

// A transcript's speaker tag, `[Caroline] …`: a name of letters, marks, spaces, dots, apostrophes or hyphens.
const TAG = /^\[(\p{L}[\p{L}\p{M} .'\u2019-]{0,39})\] ?/u

// A sentence ends after . ! ? … (then a space) or after a full-width terminator (no space needed in CJK text).
const SENTENCE_END = /[.!?…](?= )|[。！？]/gu
// Longer sentences are cut into pieces at word breaks: one run-on turn must not take the whole budget.
const PIECE_BYTES = 280

/** Splits `s` at word breaks into pieces of at most `max` bytes (a piece with no break is cut on a rune boundary). */
const pieces = (s: string, offset: number, max: number, out: Array<[number, string]>): void => {
  let at = 0
  while (at < s.length) {
    let end = at
    let bytes = 0
    let lastSpace = -1
    while (end < s.length) {
      const cp = s.codePointAt(end)!
      const b = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4
      if (bytes + b > max) break
      if (cp === 32) lastSpace = end
      bytes += b
      end += cp > 0xffff ? 2 : 1
    }
    if (end < s.length && lastSpace > at) end = lastSpace
    // `s` is trimmed and `at` skips spaces, so a piece starts on a non-space
    const piece = s.slice(at, end).trimEnd()
    if (piece !== "") out.push([offset + at, piece])
    at = end
    while (s[at] === " ") at++
  }
}

/** The sentences of a flattened text from `from` on, each with its start; long ones cut at word breaks. */
const sentencesOf = (text: string, from: number): Array<[number, string]> => {
  const out: Array<[number, string]> = []
  let start = from
  const push = (end: number) => {
    const raw = text.slice(start, end)
    const lead = raw.length - raw.trimStart().length
    const s = raw.trim()
    if (s !== "") {
      if (utf8Bytes(s) <= PIECE_BYTES) out.push([start + lead, s])
      else pieces(s, start + lead, PIECE_BYTES, out)
    }
  }
  SENTENCE_END.lastIndex = from
  for (let m = SENTENCE_END.exec(text); m !== null; m = SENTENCE_END.exec(text)) {
    const end = m.index + m[0].length
    push(end)
    start = end
  }
  push(text.length)
  return out
}

// --- what makes a sentence informative -----------------------------------------------------------------------------

// Function words of English, French, German, Spanish, Italian, Portuguese and Dutch: they say nothing about the
// session.
const STOP = new Set(
  (
    "a an the and or but if then so of to in on at by for with from as is are was were be been being am do " +
    "does did done have has had i me my mine we us our you your yours he him his she her it its they them " +
    "their this that these those there here what which who whom when where why how not no yes can could will " +
    "would shall should may might must just also very too really about into over than all any some more most " +
    "much many such only own same other up down out off again once each both few nor now ever even still " +
    "anything something everything nothing someone anyone everyone thing things lot lots get got go going gonna new " +
    "le la les un une des du de et ou mais donc en dans sur pour par avec sans est " +
    "sont été être avoir ai as a ont je tu il elle nous vous ils elles " +
    "ce cette ces mon ma mes ton ta tes son sa ses que qui quoi ne pas plus se au aux y " +
    "der die das den dem des ein eine einen einem einer und oder aber wenn dann " +
    "von zu im in auf mit für ist sind war waren sein haben hat " +
    "ich du er sie es wir ihr nicht kein keine auch noch schon nur sehr wie was wer wo dass " +
    "el los las uno una unos unas y o pero si de del al en con por para es son fue " +
    "ser estar está yo tú él ella nosotros ellos que qué no muy " +
    "il lo gli uno una e o ma se di da con per è sono era essere avere ho hai io lui lei noi voi loro che non " +
    "o os um uma e ou mas se do da dos das em no na com por para é são foi ser eu ele ela nós eles que não " +
    "het een en of maar als van te op met voor is zijn was ik jij hij zij wij niet"
  ).split(" ")
)

// Talk that carries no content: greetings, thanks, fillers, interjections, in the same languages.
const FILLER = new Set(
  (
    "hi hey hello hiya yo bye goodbye thanks thank thx ty welcome please sorry ok okay okey sure yeah yep yup " +
    "nope oh ah wow cool great awesome nice good glad happy lol haha hahaha hmm um uh well right totally " +
    "absolutely definitely cheers hope see talk soon later " +
    "bonjour salut merci oui non bien hallo danke bitte ja nein gut hola gracias sí bueno " +
    "ciao grazie sì bene olá obrigado sim bom dag bedankt"
  ).split(" ")
)

// Words that mark what a session decided, broke or achieved.
const CUE = new Set(
  (
    "decided decide decision agreed agree chose choose chosen plan planned deadline scheduled " +
    "error errors failed fail fails failure crash crashed bug broken exception timeout denied refused " +
    "fixed fix fixes resolved " +
    "solved works worked finished completed deployed released shipped merged installed configured changed moved " +
    "started began bought sold won lost became joined married born adopted visited found learned " +
    "décidé décision erreur échec corrigé résolu terminé entschieden entscheidung fehler behoben gelöst fertig " +
    "decidido decisión error fallo arreglado resuelto terminado " +
    "deciso errore risolto finito decidiu erro corrigido resolvido"
  ).split(" ")
)

// Apostrophes split words: "what's" is "what" + "s" (a lone Latin letter says nothing and is skipped).
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}_-]*/gu
const DIGIT = /\p{N}/u
const UPPER = /^\p{Lu}/u
const MONTH = new RegExp(
  "^(?:jan|january|feb|february|mar|march|apr|april|may|jun|june|jul|july|aug|august|sep|sept|september" +
    "|oct|october|nov|november|dec|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday" +
    "|yesterday|tomorrow|today|tonight|weekend|week|month|year)$"
)

interface Candidate {
  readonly message: number
  readonly start: number
  readonly text: string
  readonly speaker: string
  readonly bytes: number
  /** Distinct content terms, as ids into the session's term table. */
  readonly terms: ReadonlyArray<number>
  bonus: number
  score: number
}

const IGNORED = new Set([...STOP, ...FILLER])

/** The session's term table: ids for distinct terms, and a stamp per id to dedupe a sentence's terms without a Set. */
class Terms {
  readonly ids = new Map<string, number>()
  private stamps: Array<number> = []
  private sentence = 0
  /** A sentence's distinct content terms, their salience bonus (numbers, dates, names, cue words) and word count. */
  read(text: string): { terms: Array<number>; bonus: number; words: number; numeric: boolean } {
    const terms: Array<number> = []
    const stamp = ++this.sentence
    let bonus = 0
    let words = 0
    let numeric = false
    let first = true
    WORD.lastIndex = 0
    for (let m = WORD.exec(text); m !== null; m = WORD.exec(text)) {
      const w = m[0]
      const lower = w.toLowerCase()
      words++
      const skip = IGNORED.has(lower) || (lower.length === 1 && lower >= "a" && lower <= "z")
      const wasFirst = first
      first = false
      if (skip) continue
      let id = this.ids.get(lower)
      if (id === undefined) {
        id = this.ids.size
        this.ids.set(lower, id)
        this.stamps.push(0)
      }
      if (this.stamps[id] === stamp) continue
      this.stamps[id] = stamp
      terms.push(id)
      if (DIGIT.test(w)) {
        bonus += 2
        numeric = true
      } else if (MONTH.test(lower)) bonus += 1.5
      // a capitalised word inside a sentence is most often a name
      else if (!wasFirst && UPPER.test(w)) bonus += 1.5
      if (CUE.has(lower)) bonus += 1
    }
    return { terms, bonus, words, numeric }
  }
}

// --- opening and closing
// ----------------------------------------------------------------------------------------------

const MONTHS =
  "(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?" +
  "|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
const DATE = new RegExp(
  [
    "\\b\\d{4}-\\d{2}-\\d{2}\\b",
    `\\b\\d{1,2}(?:st|nd|rd|th)? ${MONTHS}\\.?,? \\d{4}\\b`,
    `\\b${MONTHS}\\.? \\d{1,2}(?:st|nd|rd|th)?,? \\d{4}\\b`,
    "\\b\\d{1,2}[/.]\\d{1,2}[/.]\\d{4}\\b"
  ].join("|"),
  "i"
)
// The session's date is stated at its start (the first messages); a date further in is something talked about.
const DATE_MESSAGES = 3
const HEADER_BYTES = 80
// What a date line may say besides its date: a label, a time of day, a weekday.
const DATE_LINE_WORD = new RegExp(
  String.raw`^(?:\d+|session|conversation|chat|meeting|date|time|day|on|at|am|pm|the|of|this|it|was|took|place` +
    String.raw`|held|started|recorded|utc|gmt|z)$`
)

/** The date a short line states when it says nothing else (a label, a time, a weekday aside); else undefined. */
const dateLine = (text: string): string | undefined => {
  if (utf8Bytes(text) > HEADER_BYTES) return undefined
  const m = DATE.exec(text)
  if (m === null) return undefined
  const rest = `${text.slice(0, m.index)} ${text.slice(m.index + m[0].length)}`.toLowerCase().match(WORD) ?? []
  return rest.every((w) => DATE_LINE_WORD.test(w) || MONTH.test(w)) ? m[0] : undefined
}
const MAX_NAMES = 6
const MAX_TOOLS = 5
const TOOL_NAME = /^[\p{L}\p{N}_.:-]{1,40}$/u

const listOf = (names: ReadonlyArray<string>): string =>
  names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`

// Opens the summary only when it would not otherwise read as a record: an opening sentence addressing "you", a
// speaker tagged "Hi", or nothing at all to say.
const SAFE_OPENING = "Session notes."

// --- selection -----------------------------------------------------------------------------------------------------

// A sentence already covered this much by chosen ones adds too little to be worth its bytes.
const MIN_NOVELTY = 0.7
// Very short turns ("Totally!", "Same here.") rarely hold anything a question would ask about.
const SHORT_WORDS = 4
// Score per byte^LENGTH_EXP: between favouring short sentences (1) and ignoring their cost (0).
const LENGTH_EXP = 0.25

/**
 * The parts of the extractive summary: an opening naming the tagged speakers and the session's date when one of its
 * first messages states it, the most salient sentences of user and assistant messages that fit the cap in session
 * order, and a closing naming the tools the agent called. When the result would not read as a record (its first
 * sentence addresses "you", a speaker is tagged `Hi`, it is empty), it opens with `Session notes.` and the
 * sentences make room for it. Pure; linear in the session apart from one sort of its sentences.
 */
export const extractiveParts = (messages: ReadonlyArray<ChatMessage>): ExtractiveParts => {
  const parts = selectParts(messages, 0)
  if (looksLikeEpisode(renderExtractive(parts))) return parts
  const safe = selectParts(messages, utf8Bytes(SAFE_OPENING) + 1)
  return { ...safe, opening: safe.opening === "" ? SAFE_OPENING : `${SAFE_OPENING} ${safe.opening}` }
}

const selectParts = (messages: ReadonlyArray<ChatMessage>, reserve: number): ExtractiveParts => {
  // who spoke: a tag counts as a speaker when it opens at least two messages (a one-off `[Session date]` does not)
  const flat: Array<{ index: number; text: string; tag: string | undefined; role: "user" | "assistant" }> = []
  const tagCount = new Map<string, number>()
  const tools: Array<string> = []
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!
    for (const call of m.role === "assistant" ? (m.toolCalls ?? []) : []) {
      if (TOOL_NAME.test(call.name) && !tools.includes(call.name) && tools.length < MAX_TOOLS) tools.push(call.name)
    }
    if (m.role !== "user" && m.role !== "assistant") continue
    const text = flattenContent(m.content)
    if (text === "") continue
    const tag = TAG.exec(text)?.[1]?.trim()
    if (tag !== undefined) tagCount.set(tag, (tagCount.get(tag) ?? 0) + 1)
    flat.push({ index: i, text, tag, role: m.role })
  }
  const speakers = [...tagCount].filter(([, n]) => n >= 2).map(([t]) => t)
  const isSpeaker = new Set(speakers)

  // the session's date is the one a header line at its start states ("[Session date] 1:56 pm on 8 May, 2023"); the
  // opening says it, so that line is not repeated. A date inside a sentence is content, left where it stands.
  let date: string | undefined
  let header = -1
  for (const f of flat.slice(0, DATE_MESSAGES)) {
    const found = dateLine(f.text)
    if (found === undefined) continue
    date = found
    header = f.index
    break
  }
  // no names without tags: the `User:`/`Agent:` labels say who spoke, and the preview's bytes go to content
  const who = listOf(speakers.slice(0, MAX_NAMES))
  const opening =
    who === "" ? (date === undefined ? "" : `${date}.`) : `${who}${date === undefined ? "" : ` on ${date}`}.`
  const closing = tools.length === 0 ? "" : `Tools: ${tools.join(", ")}.`
  const table = new Terms()
  const framingTerms = new Set(table.read(opening).terms)

  const candidates: Array<Candidate> = []
  for (const f of flat) {
    if (f.index === header) continue
    const tagged = f.tag !== undefined && isSpeaker.has(f.tag)
    const from = tagged ? TAG.exec(f.text)![0].length : 0
    const speaker = tagged ? f.tag! : f.role === "user" ? "User" : "Agent"
    const first = candidates.length
    let turnWords = 0
    for (const [start, text] of sentencesOf(f.text, from)) {
      const { terms, bonus, words, numeric } = table.read(text)
      turnWords += words
      const fresh = terms.filter((t) => !framingTerms.has(t))
      // "Hey Mel!", "What's up?": a sentence needs two content words, or a number, to be worth a place
      if (fresh.length < 2 && !numeric) continue
      candidates.push({ message: f.index, start, text, speaker, bytes: utf8Bytes(text), terms: fresh, bonus, score: 0 })
    }
    if (turnWords < SHORT_WORDS) for (let i = first; i < candidates.length; i++) candidates[i]!.bonus /= 2
  }

  // a term's weight is its rarity within the session: what it mentions once says more than what it repeats
  const df = new Float64Array(table.ids.size)
  for (const c of candidates) for (const t of c.terms) df[t]!++
  const weights = df.map((d) => (d === 0 ? 0 : Math.log(1 + candidates.length / d)))
  const weightOf = (terms: ReadonlyArray<number>, skip?: ReadonlySet<number>) => {
    let w = 0
    for (const t of terms) if (skip === undefined || !skip.has(t)) w += weights[t]!
    return w
  }
  for (const c of candidates) c.score = (weightOf(c.terms) + c.bonus) / Math.pow(c.bytes, LENGTH_EXP)

  const order = candidates.map((_, i) => i).sort((a, b) => candidates[b]!.score - candidates[a]!.score || a - b)
  // no sentence is cheaper than its bytes and a separator: below that, nothing more can fit
  const cheapest = candidates.reduce((m, c) => Math.min(m, c.bytes + 1), Infinity)
  const covered = new Set<number>(framingTerms)
  const labelled = new Set<number>()
  const chosen: Array<Candidate> = []
  let room = SUMMARY_CAP_BYTES - reserve - utf8Bytes(opening) - 1 - utf8Bytes(closing) - 1
  const take = (c: Candidate, cost: number) => {
    for (const t of c.terms) covered.add(t)
    labelled.add(c.message)
    chosen.push(c)
    room -= cost
  }
  // a message's first chosen sentence may need its speaker's label (`Name: `) and every sentence a separator
  const costOf = (c: Candidate) => c.bytes + 1 + (labelled.has(c.message) ? 0 : utf8Bytes(c.speaker) + 2)
  const skipped: Array<Candidate> = []
  for (const i of order) {
    if (room < cheapest) break
    const c = candidates[i]!
    const cost = costOf(c)
    if (cost > room) continue
    if (weightOf(c.terms, covered) < MIN_NOVELTY * weightOf(c.terms)) skipped.push(c)
    else take(c, cost)
  }
  // room left once every novel sentence is in goes to the near-repeats, best first: they still say something
  for (const c of skipped) {
    if (room < cheapest) break
    const cost = costOf(c)
    if (cost <= room) take(c, cost)
  }
  chosen.sort((a, b) => a.message - b.message || a.start - b.start)
  return {
    opening,
    sentences: chosen.map(({ message, start, text, speaker }) => ({ message, start, text, speaker })),
    closing
  }
}

/** The summary text of the parts: the opening, each run of one speaker's sentences after `Speaker: `, the closing. */
export const renderExtractive = (parts: ExtractiveParts): string => {
  const out: Array<string> = parts.opening === "" ? [] : [parts.opening]
  let lastSpeaker: string | undefined
  for (const s of parts.sentences) {
    out.push(s.speaker === lastSpeaker ? s.text : `${s.speaker}: ${s.text}`)
    lastSpeaker = s.speaker
  }
  if (parts.closing !== "") out.push(parts.closing)
  return out.join(" ")
}

/**
 * The deterministic summary stored when no LLM is available (DESIGN §4): `extractiveParts` rendered, ≤ 2,048 bytes,
 * well-formed, and always accepted by looksLikeEpisode. Its first bytes — the index preview — are the session's
 * participants, date and first salient sentence; that no model wrote it is recorded in the episode's `source`.
 */
export const extractiveSummary = (messages: ReadonlyArray<ChatMessage>): string =>
  renderExtractive(extractiveParts(messages))
