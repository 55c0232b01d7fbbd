import { Either, Schema } from "effect"
import * as fs from "node:fs"
import type { StreamCodec } from "../../domain/kernel/Stream.js"
import * as Files from "./files.js"
import { sha256, utf8 } from "./journal.js"

/**
 * A stream's snapshot (`journal/<stream>.snapshot.json`, ADR 0008 §12): `{version, offset, tailHash, state}`, the
 * state after the journal's first `offset` bytes, the last TAIL_BYTES of which (all of them, when fewer) have the
 * SHA-256 `tailHash`. It only ever saves a reader the fold of that prefix: it is used while the journal still holds
 * those bytes there, and the journal alone decides otherwise.
 *
 * Only the prefix's tail is hashed, so a reader reads what follows the snapshot and one window before it, never the
 * whole journal: hashing the whole prefix (as the first snapshots did, `prefixHash`) had a new process read and hash
 * 24 MB to fold the 500 episodes of a store that had seen 10,000 sessions. A journal cut back and appended again, or
 * replaced by another, differs in its length or in the lines just before the offset (every line holds its batch's
 * time). Damage deeper in the prefix is not this reader's to find: a full read checks every line's checksum.
 */

/**
 * The state is kept as the fold holds it (the schema's type side, checked on the way in and out), not in the events'
 * encoded form: decoding that form again (null-or-absent fields, refined strings) took a new process 137 ms for a
 * 10,000-episode state, checking the state as it is 13 ms. A snapshot kept in another form does not decode, and is
 * taken again.
 */
const stateSchema = <S>(schema: Schema.Schema<S, any>) => {
  let known = typeSides.get(schema)
  if (known === undefined) {
    known = Schema.typeSchema(schema)
    typeSides.set(schema, known)
  }
  return known as Schema.Schema<S>
}
const typeSides = new WeakMap<object, Schema.Schema<any>>()

/** How much of the prefix, counted back from the offset, the snapshot's hash covers. */
export const TAIL_BYTES = 64 * 1024

/** Where the hashed window before `offset` starts. */
export const windowStart = (offset: number) => Math.max(0, offset - TAIL_BYTES)

/**
 * The state the snapshot at `file` holds, when it was taken of this very journal (of `size` bytes; `bytesOf(from,
 * to)` reads a part of it) and its state decodes; otherwise undefined (no snapshot, another prefix, a journal cut
 * back, a damaged file, one of the first snapshots).
 */
export const read = <S, E>(
  file: string,
  codec: StreamCodec<S, E>,
  size: number,
  bytesOf: (from: number, to: number) => Buffer
): { readonly state: S; readonly version: number; readonly offset: number } | undefined => {
  if (codec.snapshot === undefined) return undefined
  let json: unknown
  try {
    const bytes = Files.readNoFollow(file)
    if (bytes === undefined) return undefined
    json = JSON.parse(bytes.toString("utf8"))
  } catch {
    return undefined
  }
  const { version, offset, tailHash, state } = (json ?? {}) as Record<string, unknown>
  if (!Number.isSafeInteger(version) || !Number.isSafeInteger(offset) || typeof tailHash !== "string") return undefined
  const end = offset as number
  if (end <= 0 || end > size) return undefined
  const window = bytesOf(windowStart(end), end)
  if (window.length !== end - windowStart(end) || window[window.length - 1] !== 10 || sha256(window) !== tailHash)
    return undefined
  const decoded = Schema.decodeUnknownEither(stateSchema(codec.snapshot))(state)
  return Either.isRight(decoded) ? { state: decoded.right, version: version as number, offset: end } : undefined
}

/**
 * Keeps `state` (the fold of the journal's complete lines up to byte `offset`, version `version`) at `file` for the
 * next reader; `window` is the journal's bytes from windowStart(offset) to offset. A cache: written without fsync (one
 * lost to a crash is taken again), and a failure (a read-only directory, a full disk) is silent.
 */
export const write = <S, E>(
  file: string,
  codec: StreamCodec<S, E>,
  state: S,
  version: number,
  offset: number,
  window: Buffer
) => {
  try {
    const encoded = Schema.encodeSync(stateSchema(codec.snapshot!))(state)
    const text = JSON.stringify({ version, offset, tailHash: sha256(window), state: encoded })
    const temp = Files.writeTemp(file, utf8.encode(text))
    fs.closeSync(temp.fd)
    fs.renameSync(temp.path, file)
  } catch {
    // the next reader folds the journal
  }
}
