import { Either, Schema } from "effect"
import * as fs from "node:fs"
import type { StreamCodec } from "../../domain/kernel/Stream.js"
import * as Files from "./files.js"
import { sha256, utf8 } from "./journal.js"

/**
 * A stream's snapshot (`journal/<stream>.snapshot.json`, ADR 0008 §12): `{version, offset, prefixHash, state}`, the
 * state after the journal's first `offset` bytes, whose SHA-256 is `prefixHash`. It only ever saves a reader the fold
 * of that prefix: it is used while the journal starts with exactly those bytes, and the journal alone decides
 * otherwise.
 */

/**
 * The state the snapshot at `file` holds, when it was taken of this very journal and its state decodes; otherwise
 * undefined (no snapshot, another prefix, a journal cut back, a damaged file).
 */
export const read = <S, E>(
  file: string,
  codec: StreamCodec<S, E>,
  journal: Buffer
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
  const { version, offset, prefixHash, state } = (json ?? {}) as Record<string, unknown>
  if (
    !Number.isSafeInteger(version) ||
    !Number.isSafeInteger(offset) ||
    (offset as number) <= 0 ||
    (offset as number) > journal.length ||
    journal[(offset as number) - 1] !== 10 ||
    sha256(journal.subarray(0, offset as number)) !== prefixHash
  )
    return undefined
  const decoded = Schema.decodeUnknownEither(codec.snapshot)(state)
  return Either.isRight(decoded)
    ? { state: decoded.right, version: version as number, offset: offset as number }
    : undefined
}

/**
 * Keeps `state` (the fold of the journal's complete lines, up to `version`) at `file` for the next reader. A cache:
 * written without fsync (one lost to a crash is taken again), and a failure (a read-only directory, a full disk) is
 * silent.
 */
export const write = <S, E>(file: string, codec: StreamCodec<S, E>, state: S, version: number, journal: Buffer) => {
  try {
    const offset = journal.lastIndexOf(10) + 1
    const encoded = Schema.encodeSync(codec.snapshot!)(state)
    const text = JSON.stringify({ version, offset, prefixHash: sha256(journal.subarray(0, offset)), state: encoded })
    const temp = Files.writeTemp(file, utf8.encode(text))
    fs.closeSync(temp.fd)
    fs.renameSync(temp.path, file)
  } catch {
    // the next reader folds the journal
  }
}
