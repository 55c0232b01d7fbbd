import type { PlatformError } from "@effect/platform/Error"
import { StoreError } from "../../ports/EventStore.js"

const codeOf = (e: unknown): string | undefined => {
  const cause = (e as { cause?: { code?: unknown } } | undefined)?.cause
  if (cause && typeof cause.code === "string") return cause.code
  const code = (e as { code?: unknown } | undefined)?.code
  return typeof code === "string" ? code : undefined
}

const HINTS: Record<string, string> = {
  EACCES: "is not writable by this user; fix its permissions or choose another --dir",
  EPERM: "is not writable by this user; fix its permissions or choose another --dir",
  EROFS: "is on a read-only file system; choose another --dir",
  ENOTDIR: "is not a directory (a path component is a regular file); choose another --dir",
  ENOSPC: "cannot be written: the disk is full; free space and retry",
  EDQUOT: "cannot be written: disk quota exceeded; free space and retry",
  EISDIR: "is a directory where a file was expected; move it aside and retry",
  ELOCKED: "is locked by another tmem process that did not finish in time; retry"
}

/** A storage failure as one line naming the path, the cause and what to do about it. */
export const storeError = (stream: string, path: string, action: string, e: unknown): StoreError => {
  const code = codeOf(e)
  const hint = code !== undefined ? HINTS[code] : undefined
  const detail = hint ?? `could not be ${action}: ${oneLine(e)}`
  return new StoreError({ stream, text: `memory: ${path} ${detail}${code !== undefined && hint !== undefined ? ` (${code})` : ""}` })
}

export const oneLine = (e: unknown): string => {
  const m = e instanceof Error ? e.message : typeof e === "object" && e !== null && "message" in e ? String((e as PlatformError).message) : String(e)
  return m.replace(/\s+/g, " ").trim()
}
