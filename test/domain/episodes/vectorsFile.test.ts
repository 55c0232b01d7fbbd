import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import {
  buildVectorIndex,
  searchVectorIndex,
  searchVectorIndexPortable,
  type VectorIndex
} from "../../../src/domain/embedding/vector.js"
import { decodeVectors, encodeVectors, type PersistedVectors } from "../../../src/domain/episodes/vectorsFile.js"

/** The format as first written, float by float through a DataView: the bulk copy must give the same bytes. */
const referenceEncode = (v: PersistedVectors): Uint8Array => {
  const magic = new TextEncoder().encode("tmem-episode-vectors 1\n")
  const header = new TextEncoder().encode(JSON.stringify({ dims: v.index.dims, ids: v.ids }))
  const out = new Uint8Array(magic.length + 4 + header.length + v.index.rows.length * 4)
  out.set(magic, 0)
  const view = new DataView(out.buffer)
  view.setUint32(magic.length, header.length, true)
  out.set(header, magic.length + 4)
  const start = magic.length + 4 + header.length
  v.index.rows.forEach((x, i) => view.setFloat32(start + i * 4, x, true))
  return out
}

// any float32 but NaN (whose payload a DataView may not keep): ±0, ±Inf, subnormals, ids of any text
const persisted = fc
  .tuple(fc.integer({ min: 0, max: 9 }), fc.array(fc.string(), { maxLength: 30 }))
  .chain(([dims, ids]) =>
    fc
      .array(fc.float({ noNaN: true }), { minLength: dims * ids.length, maxLength: dims * ids.length })
      .map((xs): PersistedVectors => ({
        ids,
        index: { dims, size: ids.length, rows: Float32Array.from(xs) } satisfies VectorIndex
      }))
  )

describe("the vectors file", () => {
  it("property: encodes byte for byte as the DataView writer did, and decodes back to the same rows", () => {
    fc.assert(
      fc.property(persisted, (v) => {
        const bytes = encodeVectors(v)
        expect(bytes).toStrictEqual(referenceEncode(v))
        const back = decodeVectors(bytes)
        expect(back?.ids).toEqual(v.ids)
        expect(back?.index.dims).toBe(v.index.dims)
        expect(back?.index.size).toBe(v.index.size)
        expect(Array.from(back!.index.rows)).toEqual(Array.from(v.index.rows))
      }),
      { numRuns: 300 }
    )
  })

  it("decodes from any offset of a larger buffer (the rows need not be 4-byte aligned)", () => {
    const index = buildVectorIndex([Float32Array.of(3, 4, 0), Float32Array.of(0, 0, 0), Float32Array.of(-1, 2, 2)])
    const bytes = encodeVectors({ ids: ["a", "bb", "ccc"], index })
    for (const offset of [1, 2, 3, 5]) {
      const big = new Uint8Array(bytes.length + offset + 3)
      big.set(bytes, offset)
      const back = decodeVectors(big.subarray(offset, offset + bytes.length))
      expect(back?.ids).toEqual(["a", "bb", "ccc"])
      expect(Array.from(back!.index.rows)).toEqual(Array.from(index.rows))
    }
  })

  it("a loaded index searches as the saved one did, on the fast path and the fallback alike", () => {
    const vectors = Array.from({ length: 60 }, (_, r) =>
      Float32Array.from({ length: 21 }, (_, i) => Math.sin(r + i * r))
    )
    const index = buildVectorIndex(vectors)
    const back = decodeVectors(encodeVectors({ ids: vectors.map((_, r) => `e${r}`), index }))!
    const query = Float32Array.from({ length: 21 }, (_, i) => Math.cos(i))
    expect(searchVectorIndex(back.index, query, 10)).toStrictEqual(searchVectorIndex(index, query, 10))
    expect(searchVectorIndexPortable(back.index, query, 10)).toStrictEqual(searchVectorIndexPortable(index, query, 10))
    // the loaded rows are its own: writing them changes the next search, the saved index is untouched
    back.index.rows.fill(0)
    expect(searchVectorIndex(back.index, query, 3).map((m) => m.score)).toEqual([0, 0, 0])
    expect(searchVectorIndex(index, query, 3)[0]!.score).toBeGreaterThan(0)
  })

  it("anything malformed is no file", () => {
    const bytes = encodeVectors({ ids: ["a"], index: buildVectorIndex([Float32Array.of(1, 2)]) })
    expect(decodeVectors(bytes.subarray(0, bytes.length - 1))).toBeUndefined()
    expect(decodeVectors(Uint8Array.from([...bytes, 0, 0, 0, 0]))).toBeUndefined()
    expect(decodeVectors(new TextEncoder().encode("gob"))).toBeUndefined()
  })
})
