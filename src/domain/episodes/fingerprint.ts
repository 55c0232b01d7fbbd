/**
 * The corpus fingerprint stored beside the persisted episode vectors (spec episodes §9.2, embedding §10.2): it
 * changes whenever an episode is added, removed or rewritten, so stale vectors are rebuilt instead of recalled.
 */
import { FNV64_OFFSET, type Fnv64, fnv1a64 as fnv1a, fnv64Hex } from "../text/fnv.js"
import { trimSpace } from "../text/utf8.js"

const encoder = new TextEncoder()

// UTF-8 byte order is code point order; JS `<` compares UTF-16 units, which disagrees above U+FFFF.
const compareBytes = (a: Uint8Array, b: Uint8Array): number => {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!
  return a.length - b.length
}

const SEPARATOR = new Uint8Array([0])

/**
 * `<count>:<16 lower-case hex>`: 64-bit FNV-1a over, per entry in ascending session-ID byte order, the ID's UTF-8,
 * 0x00, the trimmed summary's UTF-8, 0x00. The caller passes exactly the entries it embedded.
 */
export const corpusFingerprint = (
  entries: ReadonlyArray<{ readonly sessionId: string; readonly summary: string }>
): string => {
  const encoded = entries
    .map((e) => ({ id: encoder.encode(e.sessionId), summary: encoder.encode(trimSpace(e.summary)) }))
    // IDs are unique in a real index; the summary tie-break only keeps the result independent of input order
    .sort((a, b) => compareBytes(a.id, b.id) || compareBytes(a.summary, b.summary))
  let h: Fnv64 = FNV64_OFFSET
  for (const e of encoded) h = fnv1a(fnv1a(fnv1a(fnv1a(h, e.id), SEPARATOR), e.summary), SEPARATOR)
  return `${entries.length}:${fnv64Hex(h)}`
}
