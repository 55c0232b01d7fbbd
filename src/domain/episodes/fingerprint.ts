/**
 * The corpus fingerprint stored beside the persisted episode vectors (spec episodes §9.2, embedding §10.2): it
 * changes whenever an episode is added, removed or rewritten, so stale vectors are rebuilt instead of recalled.
 */
import { trimSpace } from "../text/utf8.js"

const TWO_32 = 4294967296

const encoder = new TextEncoder()

// UTF-8 byte order is code point order; JS `<` compares UTF-16 units, which disagrees above U+FFFF.
const compareBytes = (a: Uint8Array, b: Uint8Array): number => {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!
  return a.length - b.length
}

/**
 * 64-bit FNV-1a in two 32-bit halves (BigInt per byte made a 500-episode corpus take ~100 ms). The prime is
 * 2⁴⁰ + 0x1b3, so h·prime mod 2⁶⁴ = h·0x1b3 + (lo << 40); every partial product stays below 2⁵³.
 */
interface Fnv {
  hi: number
  lo: number
}
const fnv1a = (h: Fnv, bytes: Uint8Array): Fnv => {
  let { hi, lo } = h
  for (let i = 0; i < bytes.length; i++) {
    lo = (lo ^ bytes[i]!) >>> 0
    // lo·0x1b3 split at 2³²: its low half is the new lo, the carry goes to hi with hi·0x1b3 and lo·2⁸ (the 2⁴⁰ term)
    const t = lo * 0x1b3
    const carry = (t / TWO_32) >>> 0
    hi = (Math.imul(hi, 0x1b3) + carry + Math.imul(lo, 256)) >>> 0
    lo = t >>> 0
  }
  return { hi, lo }
}

const SEPARATOR = new Uint8Array([0])

/**
 * `<count>:<16 lower-case hex>`: 64-bit FNV-1a over, per entry in ascending session-ID byte order, the ID's UTF-8,
 * 0x00, the trimmed summary's UTF-8, 0x00. The caller passes exactly the entries it embedded.
 */
export const corpusFingerprint = (entries: ReadonlyArray<{ readonly sessionId: string; readonly summary: string }>): string => {
  const encoded = entries
    .map((e) => ({ id: encoder.encode(e.sessionId), summary: encoder.encode(trimSpace(e.summary)) }))
    // IDs are unique in a real index; the summary tie-break only keeps the result independent of input order
    .sort((a, b) => compareBytes(a.id, b.id) || compareBytes(a.summary, b.summary))
  let h: Fnv = { hi: 0xcbf29ce4, lo: 0x84222325 }
  for (const e of encoded) h = fnv1a(fnv1a(fnv1a(fnv1a(h, e.id), SEPARATOR), e.summary), SEPARATOR)
  return `${entries.length}:${h.hi.toString(16).padStart(8, "0")}${h.lo.toString(16).padStart(8, "0")}`
}
