/**
 * A recall-quality dataset in the neutral format (docs/CLI.md `eval recall`): conversations between two speakers
 * over numbered sessions, and questions whose evidence sessions are known. Decoded at the edge; every reference
 * inside a conversation (a turn's speaker, a question's evidence session) is checked with the path that names it.
 */
import { ParseResult, Schema } from "effect"

/** Text with something besides white space in it. */
const Text = Schema.String.pipe(Schema.filter((s) => s.trim() !== "" || "must not be empty"))

export const Turn = Schema.Struct({
  speaker: Schema.String,
  text: Schema.String,
  /** The source's own turn id (LoCoMo's `D1:3`); kept for the reader, unused by the protocol. */
  dia: Schema.optionalWith(Schema.String, { exact: true })
}).annotations({ identifier: "Turn" })
export type Turn = typeof Turn.Type

export const DatasetSession = Schema.Struct({
  n: Schema.Int.pipe(Schema.positive()),
  date: Schema.String,
  turns: Schema.Array(Turn)
}).annotations({ identifier: "Session" })
export type DatasetSession = typeof DatasetSession.Type

export const Question = Schema.Struct({
  q: Text,
  // a year or a count is sometimes written as a JSON number; the protocol compares text
  answer: Schema.Union(
    Schema.String,
    Schema.transform(Schema.Number, Schema.String, { strict: true, decode: (n) => String(n), encode: (s) => Number(s) })
  ),
  category: Schema.optionalWith(Schema.Union(Schema.Int, Schema.String), { exact: true }),
  /** The sessions holding the evidence; empty: an unrelated query, for which nothing should be recalled. */
  sessions: Schema.Array(Schema.Int)
}).annotations({ identifier: "Question" })
export type Question = typeof Question.Type

const ConversationFields = Schema.Struct({
  id: Schema.Union(
    Schema.String,
    Schema.transform(Schema.Int, Schema.String, { strict: true, decode: (n) => String(n), encode: (s) => Number(s) })
  ),
  speakers: Schema.Tuple(Text, Text).annotations({ identifier: "[speaker A, speaker B]" }),
  sessions: Schema.Array(DatasetSession)
    .annotations({ identifier: "an array of sessions" })
    .pipe(Schema.minItems(1, { message: () => "a conversation needs at least one session" })),
  questions: Schema.Array(Question)
}).annotations({ identifier: "Conversation" })

/** The first reference in a conversation that points nowhere, with the path from the conversation to it. */
const danglingReference = (c: typeof ConversationFields.Type): Schema.FilterIssue | undefined => {
  const fail = (path: ReadonlyArray<PropertyKey>, message: string): Schema.FilterIssue => ({ path, message })
  if (c.speakers[0] === c.speakers[1])
    return fail(["speakers"], `the two speakers must differ (both are ${JSON.stringify(c.speakers[0])})`)
  const seen = new Set<number>()
  for (const [i, s] of c.sessions.entries()) {
    if (seen.has(s.n)) return fail(["sessions", i, "n"], `session ${s.n} appears twice in this conversation`)
    seen.add(s.n)
    for (const [j, t] of s.turns.entries())
      if (!c.speakers.includes(t.speaker))
        return fail(
          ["sessions", i, "turns", j, "speaker"],
          `${JSON.stringify(t.speaker)} is not one of the conversation's speakers ` +
            `(${c.speakers.map((x) => JSON.stringify(x)).join(", ")})`
        )
  }
  for (const [i, q] of c.questions.entries())
    for (const [j, n] of q.sessions.entries())
      if (!seen.has(n)) return fail(["questions", i, "sessions", j], `session ${n} is not in this conversation`)
  return undefined
}

export const Conversation = ConversationFields.pipe(Schema.filter((c) => danglingReference(c) ?? true)).annotations({
  identifier: "Conversation"
})
export type Conversation = typeof Conversation.Type

export const Dataset = Schema.Struct({
  conversations: Schema.Array(Conversation)
    .annotations({ identifier: "an array of conversations" })
    .pipe(Schema.minItems(1, { message: () => "the dataset needs at least one conversation" }))
}).annotations({ identifier: "{ conversations: [...] }" })
export type Dataset = typeof Dataset.Type

/** The dataset in `json`, or the first thing wrong with it as `$.conversations[0].sessions[2].turns[5].speaker: …`. */
export const decodeDataset = (json: unknown) => Schema.decodeUnknownEither(Dataset, { errors: "first" })(json)

/** One line naming where the first problem of a parse error is and what it is. */
export const describeParseError = (e: ParseResult.ParseError): string => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(e)[0]
  const where =
    issue === undefined || issue.path.length === 0
      ? "(top level)"
      : `$${issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")}`
  return `${where}: ${(issue?.message ?? e.message).replace(/\s+/g, " ")}`
}
