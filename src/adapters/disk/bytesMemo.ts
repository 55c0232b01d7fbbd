/**
 * What a pure function computed from a few byte strings, found again only for the very same bytes. The store reads
 * the same journal tail and projection several times per write (a lock-free load, the reconcile under the lock, the
 * check before the append); verifying them again (UTF-8, SHA-256, JSON, schema) is pure work on unchanged bytes.
 * Keyed on the whole content, never on a file's stat, so a change of even one byte, at any time, is a miss.
 */
export interface BytesMemo<A> {
  readonly get: (bytes: Uint8Array) => A | undefined
  readonly set: (bytes: Uint8Array, value: A) => void
}

/** Remembers the last `capacity` results (oldest out first). */
export const bytesMemo = <A>(capacity: number): BytesMemo<A> => {
  const entries: Array<{ readonly bytes: Buffer; readonly value: A }> = []
  const view = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)
  return {
    get: (bytes) => {
      const b = view(bytes)
      for (const e of entries) if (e.bytes.length === b.length && e.bytes.equals(b)) return e.value
      return undefined
    },
    set: (bytes, value) => {
      if (entries.length >= capacity) entries.shift()
      // a copy: the caller's buffer may be a view of a larger read that is reused or changed later
      entries.push({ bytes: Buffer.from(bytes), value })
    }
  }
}
