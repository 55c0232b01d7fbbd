import { allocateVectorIndex, type VectorIndex } from "../embedding/vector.js"

/**
 * The persisted episode vectors (spec episodes §9.1 lets the port choose the encoding): a magic line, a
 * length-prefixed JSON header with the ids and the dimensionality, then the unit rows as little-endian float32.
 * Anything that does not decode exactly is "no file": the index is rebuilt.
 */
const MAGIC = new TextEncoder().encode("tmem-episode-vectors 1\n")

/** Whether float32 arrays are little-endian in memory here, so rows and file bytes can be copied as they are. */
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1

const bytesOf = (rows: Float32Array) => new Uint8Array(rows.buffer, rows.byteOffset, rows.byteLength)

export interface PersistedVectors {
  readonly ids: ReadonlyArray<string>
  readonly index: VectorIndex
}

export const encodeVectors = (v: PersistedVectors): Uint8Array => {
  const header = new TextEncoder().encode(JSON.stringify({ dims: v.index.dims, ids: v.ids }))
  const out = new Uint8Array(MAGIC.length + 4 + header.length + v.index.rows.length * 4)
  out.set(MAGIC, 0)
  const view = new DataView(out.buffer)
  view.setUint32(MAGIC.length, header.length, true)
  out.set(header, MAGIC.length + 4)
  const start = MAGIC.length + 4 + header.length
  const rows = v.index.rows
  if (LITTLE_ENDIAN) out.set(bytesOf(rows), start)
  else for (let i = 0; i < rows.length; i++) view.setFloat32(start + i * 4, rows[i]!, true)
  return out
}

export const decodeVectors = (bytes: Uint8Array): PersistedVectors | undefined => {
  if (bytes.length < MAGIC.length + 4 || !MAGIC.every((b, i) => bytes[i] === b)) return undefined
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const headerLength = view.getUint32(MAGIC.length, true)
  const start = MAGIC.length + 4 + headerLength
  if (start > bytes.length) return undefined
  let header: unknown
  try {
    header = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(MAGIC.length + 4, start)))
  } catch {
    return undefined
  }
  const h = header as { dims?: unknown; ids?: unknown }
  if (
    typeof h.dims !== "number" ||
    !Number.isInteger(h.dims) ||
    h.dims < 0 ||
    !Array.isArray(h.ids) ||
    !h.ids.every((x) => typeof x === "string")
  )
    return undefined
  const ids = h.ids as ReadonlyArray<string>
  const count = ids.length * h.dims
  if (bytes.length - start !== count * 4) return undefined
  // rows in WebAssembly memory, so the loaded index is searched in place
  const index = allocateVectorIndex(h.dims, ids.length)
  const rows = index.rows
  if (LITTLE_ENDIAN) bytesOf(rows).set(bytes.subarray(start, start + count * 4))
  else for (let i = 0; i < count; i++) rows[i] = view.getFloat32(start + i * 4, true)
  return { ids, index }
}
