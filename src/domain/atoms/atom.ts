/**
 * The atom of Extended Memory (spec extended §2, §3, §7.2, §11.1): its persisted shape, the trust of its source,
 * normalisation on write, retention for eviction and ranking, and the byte rules for its text.
 */
import { Either, Schema } from "effect"
import { Instant } from "../kernel/Instant.js"
import { goQuote, trimSpace, truncateBytes, utf8Bytes } from "../text/utf8.js"

const opt = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })

/** The nine types an atom is written with (§2.2), in the extraction prompt's order. */
export const ATOM_TYPES = [
  "fact",
  "preference",
  "intent",
  "decision",
  "goal",
  "convention",
  "file",
  "error",
  "question"
] as const

/** The nine types plus legacy `observation`, the fallback for unknown types, still accepted wherever a type is. */
export const AtomType = Schema.Literal(...ATOM_TYPES, "observation")
export type AtomType = typeof AtomType.Type

export const isAtomType = Schema.is(AtomType)

/** Where an atom came from (§3.1). Only `user_said` and `user_approved` are the user's own words. */
export const SourceClass = Schema.Literal(
  "user_said",
  "user_approved",
  "inferred",
  "tool_output",
  "file_read",
  "web",
  "mcp",
  "subagent",
  "agent_generated"
)
export type SourceClass = typeof SourceClass.Type

/**
 * Whether atoms of this class may live in the store and be recalled. Anything else, an unknown class included, is
 * tainted: v1.15 lets an unknown class into the live store, which would let a typo or a forged class bypass
 * quarantine (§3.4 Rec: fail closed).
 */
export const isTrustedClass = (cls: string): boolean => cls === "user_said" || cls === "user_approved"

// Our own rule, stricter than §2.1's path safety (non-empty, not `.`/`..`, no `/`, `\`, `..`, NUL), which it implies:
// an id names a chunk file and appears in messages and CLI arguments, so it stays a short plain word.
const ATOM_ID = /^[A-Za-z0-9_-]{1,64}$/

/** Why `id` cannot name an atom, or undefined when it can. */
export const atomIdProblem = (id: string): string | undefined =>
  ATOM_ID.test(id) ? undefined : `${goQuote(id)} is not a valid id: use 1-64 letters, digits, - and _`

export const validAtomId = (id: string): boolean => atomIdProblem(id) === undefined

export const AtomId = Schema.String.pipe(Schema.filter((id) => atomIdProblem(id), { identifier: "AtomId" }))

/** Provenance of an atom (§2.1); every member is omitted when empty, as odek writes it. */
export const AtomContext = Schema.Struct({
  session_id: opt(Schema.String),
  turn: opt(Schema.Number.pipe(Schema.int())),
  project: opt(Schema.String),
  related_atom_ids: opt(Schema.Array(Schema.String))
})
export type AtomContext = typeof AtomContext.Type

/**
 * An atom with its JSON names as odek persists them (§2.1; its vector lives in the index only). `source_class` is
 * any string, because a store may hold classes this build does not know; they are tainted (`isTrustedClass`).
 * `created_at` stays the string it was written as, so odek's nanosecond timestamps survive a round trip.
 */
export const Atom = Schema.Struct({
  id: AtomId,
  text: Schema.String,
  source_class: Schema.String,
  type: AtomType,
  created_at: Instant,
  context: AtomContext,
  pin: opt(Schema.Boolean),
  confidence: opt(Schema.Number)
})
export type Atom = typeof Atom.Type

/** An atom as a caller hands it to the write path, before normalisation. */
export interface AtomInput {
  readonly id?: string
  readonly text: string
  readonly source_class?: string
  readonly type?: string
  readonly created_at?: string
  readonly context?: AtomContext
  readonly pin?: boolean
  readonly confidence?: number
}

/** Why an atom cannot be written: its text is empty, or the id it came with cannot name a file. */
export class InvalidAtom extends Schema.TaggedError<InvalidAtom>()("InvalidAtom", {
  reason: Schema.Literal("empty text", "invalid id"),
  id: Schema.String
}) {
  override get message() {
    return this.reason === "empty text"
      ? "extended memory: empty atom text"
      : `invalid atom_id: ${atomIdProblem(this.id)}`
  }
}

// Go's zero time.Time, which odek writes for an atom that never had a timestamp.
const GO_ZERO_TIME = Date.parse("0001-01-01T00:00:00Z")
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

/** Whether a timestamp holds a time: not absent, empty, Go's zero time or anything but RFC 3339. */
const usableTime = (t: string | undefined): t is string => {
  if (t === undefined || !RFC3339.test(t)) return false
  const ms = Date.parse(t)
  return !Number.isNaN(ms) && ms !== GO_ZERO_TIME
}

/** A confidence is usable in (0, 1]; anything else (0, negative, above 1, NaN, absent) reads as certain. */
const clampConfidence = (c: number | undefined): number => (c !== undefined && c > 0 && c <= 1 ? c : 1)

/**
 * The write path's normalisation (§2.3, §3.3): empty type → `fact`, unknown type → `observation`; empty source →
 * `user_approved` and `user_said` → `user_approved`; confidence outside (0, 1] → 1.0; no usable `created_at` → `now`;
 * no id → `freshId`. An atom whose text trims to nothing, or whose own id is not a valid one, is refused.
 */
export const normaliseAtom = (input: AtomInput, now: string, freshId: string): Either.Either<Atom, InvalidAtom> => {
  const id = input.id === undefined || input.id === "" ? freshId : input.id
  if (trimSpace(input.text) === "") return Either.left(new InvalidAtom({ reason: "empty text", id }))
  if (!validAtomId(id)) return Either.left(new InvalidAtom({ reason: "invalid id", id }))
  const type =
    input.type === undefined || input.type === "" ? "fact" : isAtomType(input.type) ? input.type : "observation"
  const source = input.source_class ?? ""
  return Either.right({
    id,
    text: input.text,
    source_class: source === "" || source === "user_said" ? "user_approved" : source,
    type,
    created_at: usableTime(input.created_at) ? input.created_at : now,
    context: input.context ?? {},
    // odek omits a false pin
    ...(input.pin === true ? { pin: true } : {}),
    confidence: clampConfidence(input.confidence)
  })
}

const DAY_MS = 86_400_000

/**
 * How much an atom deserves to stay (§7.2): confidence × trust × decay, with `decay = 0.5 ^ (age / half-life)`.
 * Tainted classes score 0; a future or zero age decays nothing; a half-life ≤ 0 is 30 days; a `created_at` that does
 * not parse counts as the oldest possible, as Go's zero time does.
 */
export const retention = (
  atom: Pick<Atom, "source_class" | "created_at" | "confidence">,
  nowMs: number,
  halfLifeDays: number
): number => {
  if (!isTrustedClass(atom.source_class)) return 0
  const confidence = clampConfidence(atom.confidence)
  const age = nowMs - Date.parse(atom.created_at)
  if (age <= 0) return confidence
  const decay = 0.5 ** (age / ((halfLifeDays > 0 ? halfLifeDays : 30) * DAY_MS))
  return Number.isFinite(decay) ? confidence * decay : 0
}

// Go's unicode.IsSpace, which odek's strings.Fields splits on.
const SPACE_RUN = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/g

/** The exact-dedup key (§11.1): lowercase, every whitespace run one space, trimmed. */
export const normalisedText = (text: string): string => trimSpace(text.toLowerCase().replace(SPACE_RUN, " "))

/** The live store's copy of an atom's text (§2.1): at most `maxBytes` UTF-8 bytes, never splitting a rune. */
export const cutAtomText = (text: string, maxBytes: number): string =>
  utf8Bytes(text) <= maxBytes ? text : truncateBytes(text, maxBytes)

/**
 * The tool's `truncate(s, n)` (§17): `s` when it fits in `n` UTF-8 bytes, else its first `n − 3` bytes and `...`.
 * Cut at a rune boundary (odek cuts mid-rune, which can leave invalid UTF-8 in the message).
 */
export const truncate = (s: string, n: number): string =>
  utf8Bytes(s) <= n ? s : `${truncateBytes(s, Math.max(0, n - 3))}...`
