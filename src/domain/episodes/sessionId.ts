/**
 * Session-ID validation (spec episodes §1.7). An ID becomes a file name (`<id>.md`) in a directory the agent can
 * write to, and index.json is untrusted input, so an ID must never be able to name a path outside that directory.
 */

/** Shown in errors about a rejected session ID. */
export const SESSION_ID_HINT = 'a session ID must be non-empty, not "." or "..", and contain no "/", "\\", ".." or NUL'

/**
 * True when the ID is safe to use as a file stem. The real shape (`YYYYMMDD-<32 hex>`) is deliberately not required.
 */
export const validSessionId = (id: string): boolean =>
  id !== "" && id !== "." && !id.includes("..") && !id.includes("/") && !id.includes("\\") && !id.includes("\0")
