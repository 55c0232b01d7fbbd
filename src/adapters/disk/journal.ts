import { Either, Schema } from "effect"
import { createHash } from "node:crypto"
import { oneLine } from "./errors.js"

/**
 * The journal's line format (docs/FORMATS.md): one batch per line, `{version, at, events, projectionHash?,
 * checksum}`, the checksum being the SHA-256 of the line's bytes with that key left out. Pure: reading and writing
 * files is the store's.
 */

export const JournalLine = Schema.Struct({
  version: Schema.Int,
  at: Schema.String,
  events: Schema.Array(Schema.Unknown),
  /**
   * On a compacted journal's first line only: the stream's state at `version` (the codec's snapshot schema, encoded),
   * standing for every batch up to it; `events` is then empty.
   */
  base: Schema.optionalWith(Schema.Unknown, { exact: true }),
  projectionHash: Schema.optionalWith(Schema.String, { exact: true }),
  checksum: Schema.optionalWith(Schema.String, { exact: true })
})
export type JournalLine = typeof JournalLine.Type
const decodeLine = Schema.decodeUnknownEither(JournalLine)

export const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex")
export const EMPTY_HASH = sha256("")
export const utf8 = new TextEncoder()
export const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
export const lossyUtf8 = new TextDecoder("utf-8", { ignoreBOM: true })

// The checksum is the line's last key: SHA-256 (hex) of the line's bytes with that key left out.
const CHECKSUM_KEY = ',"checksum":"'
const CHECKSUM_TAIL = /^,"checksum":"([0-9a-f]{64})"}$/
const CHECKSUM_TAIL_BYTES = CHECKSUM_KEY.length + 64 + 2

/** One journal line, newline included, with the checksum of its bytes as the last key. */
export const encodeLine = (line: JournalLine): Uint8Array => {
  const json = JSON.stringify(line)
  return utf8.encode(`${json.slice(0, -1)}${CHECKSUM_KEY}${sha256(json)}"}\n`)
}

/** Whether a line's checksum matches its bytes; lines written before checksums existed have none. */
export const checksumOf = (bytes: Uint8Array): "none" | "valid" | "invalid" => {
  if (bytes.length < CHECKSUM_TAIL_BYTES + 2) return "none"
  const end = bytes.length - CHECKSUM_TAIL_BYTES
  const m = CHECKSUM_TAIL.exec(
    Buffer.from(bytes.buffer, bytes.byteOffset + end, CHECKSUM_TAIL_BYTES).toString("latin1")
  )
  if (m === null) return "none"
  return createHash("sha256").update(bytes.subarray(0, end)).update("}").digest("hex") === m[1] ? "valid" : "invalid"
}

/** What the end of a journal tells about a batch: its version and the hash of the projection it left. */
export interface LineHead {
  readonly version: number
  readonly projectionHash: string | undefined
}

/** The end of a journal: its last two complete batches, and where the last complete line ends. */
export interface Tail {
  readonly exists: boolean
  readonly size: number
  /** Offset just past the last complete line; less than `size` when a crash left a partial line. */
  readonly complete: number
  readonly last: LineHead | undefined
  readonly prev: LineHead | undefined
  readonly mtimeMs: number
  /** The change time: every write, rename or timestamp change moves it, and nothing sets it back. */
  readonly ctimeMs: number
}

/** The lines of `bytes` (split on LF, which never occurs inside a UTF-8 sequence), as views of it. */
export const splitLines = (bytes: Buffer): Array<Buffer> => {
  const lines: Array<Buffer> = []
  let start = 0
  for (let nl = bytes.indexOf(10); nl >= 0; nl = bytes.indexOf(10, start)) {
    lines.push(bytes.subarray(start, nl))
    start = nl + 1
  }
  lines.push(bytes.subarray(start))
  return lines
}

/** A journal line's bytes as a batch: strictly UTF-8, checksum matching when present, JSON of the right shape. */
export const verifyLine = (bytes: Uint8Array): Either.Either<JournalLine, string> => {
  let text: string
  try {
    text = strictUtf8.decode(bytes)
  } catch {
    return Either.left("not valid UTF-8")
  }
  const checksum = checksumOf(bytes)
  if (checksum === "invalid") return Either.left("its checksum does not match its bytes")
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    return Either.left(`invalid JSON: ${oneLine(e)}`)
  }
  return Either.flatMap(
    Either.mapLeft(decodeLine(json), () => "not a batch: it needs version, at and events"),
    (line) =>
      line.checksum !== undefined && checksum === "none"
        ? Either.left("its checksum is not where a writer puts it")
        : Either.right(line)
  )
}

/** The complete lines of `bytes` (a journal read whole): a last line without its newline is left out. */
export const completeLines = (bytes: Buffer | undefined): Array<Buffer> => {
  if (bytes === undefined) return []
  const end = bytes.lastIndexOf(10)
  return end < 0 ? [] : splitLines(bytes.subarray(0, end))
}

/** The checksum a line carries (the 64 hex digits before its closing `"}` and newline), as the feed names it. */
export const lineChecksum = (line: Uint8Array): string =>
  Buffer.from(line.buffer, line.byteOffset + line.length - 67, 64).toString("latin1")
