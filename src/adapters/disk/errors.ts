import { printable } from "../../domain/text/printable.js"
import { StoreError, type StoreFailure } from "../../ports/EventStore.js"

const codeOf = (e: unknown): string | undefined => {
  const direct = (e as { code?: unknown } | undefined)?.code
  if (typeof direct === "string") return direct
  const cause = (e as { cause?: { code?: unknown } } | undefined)?.cause
  return cause && typeof cause.code === "string" ? cause.code : undefined
}

/** What each common error means for a person, and what to do about it. */
const REASONS: Record<string, string> = {
  EACCES: "permission denied; fix the permissions or choose another --dir",
  EPERM: "operation not permitted; fix the permissions or choose another --dir",
  EROFS: "the file system is read-only; choose another --dir",
  ENOTDIR: "a part of the path is a regular file, not a directory; choose another --dir",
  ENOSPC: "the disk is full; free space and retry",
  EDQUOT: "the disk quota is exhausted; free space and retry",
  EISDIR: "it is a directory where a file belongs; move it aside and retry",
  ELOOP: "it is a symbolic link, which tmem does not follow; replace it with the file itself"
}

/** What kind of failure each error code is, for callers that act on it (StoreFailure). */
const FAILURES: Record<string, StoreFailure> = {
  EACCES: "permission",
  EPERM: "permission",
  EROFS: "permission",
  ENOTDIR: "invalid",
  EISDIR: "invalid",
  ELOOP: "invalid",
  ENOENT: "notFound",
  ENOSPC: "unavailable",
  EDQUOT: "unavailable",
  EMFILE: "unavailable",
  ENFILE: "unavailable",
  EAGAIN: "unavailable",
  EBUSY: "unavailable",
  EIO: "unavailable"
}

/** A storage failure as one line: what could not be done to which path, why, and what to do about it. */
export const storeError = (stream: string, path: string, verb: string, e: unknown): StoreError => {
  const code = codeOf(e)
  const why = code !== undefined && REASONS[code] !== undefined ? `${REASONS[code]} (${code})` : oneLine(e)
  return new StoreError({
    stream,
    text: `memory: cannot ${verb} ${path}: ${why}`,
    reason: (code !== undefined ? FAILURES[code] : undefined) ?? "other"
  })
}

/**
 * An error's message on one printable line. JSON.parse quotes the text it choked on, which in a damaged journal line
 * or config file may be a NUL, an escape sequence or another control character: those are shown escaped (issue 15).
 */
export const oneLine = (e: unknown): string => {
  const m =
    e instanceof Error
      ? e.message
      : typeof e === "object" && e !== null && "message" in e
        ? String((e as { message: unknown }).message)
        : String(e)
  return printable(m.replace(/\s+/g, " ").trim())
}
