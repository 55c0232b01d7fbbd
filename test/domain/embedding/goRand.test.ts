import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { goRand } from "../../../src/domain/embedding/goRand.js"
import { RNG_LEN, rngCookedHi, rngCookedLo } from "../../../src/domain/embedding/rngCooked.js"

const MASK63 = (1n << 63n) - 1n
const INT32_MAX = 2 ** 31 - 1

/** Go's algorithm transcribed literally with BigInt: the reference the 32-bit-halves implementation must match. */
const referenceInt63s = (seed: number, count: number): Array<bigint> => {
  const seedrand = (x: number) => {
    const next = 48271 * (x % 44488) - 3399 * Math.trunc(x / 44488)
    return next < 0 ? next + INT32_MAX : next
  }
  const cooked = Array.from(
    { length: RNG_LEN },
    (_, i) => (BigInt(rngCookedHi[i]!) << 32n) | BigInt(rngCookedLo[i]! >>> 0)
  )
  const vec: Array<bigint> = []
  let s = seed % INT32_MAX
  if (s < 0) s += INT32_MAX
  if (s === 0) s = 89482311
  let x = s
  for (let i = -20; i < RNG_LEN; i++) {
    x = seedrand(x)
    if (i >= 0) {
      let u = BigInt.asUintN(64, BigInt(x) << 40n)
      x = seedrand(x)
      u ^= BigInt(x) << 20n
      x = seedrand(x)
      u ^= BigInt(x)
      vec[i] = (u ^ cooked[i]!) & MASK63
    }
  }
  let tap = 0
  let feed = RNG_LEN - 273
  return Array.from({ length: count }, () => {
    tap = (tap - 1 + RNG_LEN) % RNG_LEN
    feed = (feed - 1 + RNG_LEN) % RNG_LEN
    const v = (vec[feed]! + vec[tap]!) & MASK63
    vec[feed] = v
    return v
  })
}

describe("goRand (Go math/rand legacy source)", () => {
  it("reproduces Go's first Int63 values for seed 42 (spec §5.5.3)", () => {
    const r = goRand(42)
    expect([r.int63(), r.int63(), r.int63(), r.int63()]).toStrictEqual([
      3440579354231278675n,
      608747136543856411n,
      5571782338101878760n,
      1926012586526624009n
    ])
  })

  it("reproduces Go's first Float64 values for seed 42 (spec §5.5.3)", () => {
    const r = goRand(42)
    expect(Array.from({ length: 8 }, () => r.float64())).toStrictEqual([
      0.3730283610466326, 0.06600049679351791, 0.604093851558642, 0.20881870305465913, 0.043818458599374305,
      0.38319329992238566, 0.8128771359243787, 0.38444584994446157
    ])
  })

  it("keeps the whole table: 607 values below 2⁶³", () => {
    expect(rngCookedHi.length).toBe(607)
    expect(rngCookedHi.every((h) => h >= 0)).toBe(true)
    // first and last constants of Go's table, as a transcription guard
    expect((BigInt(rngCookedHi[0]!) << 32n) | BigInt(rngCookedLo[0]! >>> 0)).toBe(5041579894721019882n)
    expect((BigInt(rngCookedHi[606]!) << 32n) | BigInt(rngCookedLo[606]! >>> 0)).toBe(4152330101494654406n)
  })

  // several laps of the 607-entry ring, so carries between the 32-bit halves and index wrap-around are exercised
  it.prop(
    "matches a literal BigInt transcription of Go's algorithm",
    [FastCheck.integer({ min: -(2 ** 40), max: 2 ** 40 })],
    ([seed]) => {
      const r = goRand(seed)
      const mine = Array.from({ length: 3 * RNG_LEN }, () => r.int63())
      expect(mine).toStrictEqual(referenceInt63s(seed, 3 * RNG_LEN))
    },
    { fastCheck: { numRuns: 25 } }
  )

  it.prop(
    "Float64 is Int63 / 2⁶³ and lies in [0, 1)",
    [FastCheck.integer()],
    ([seed]) => {
      const a = goRand(seed)
      const b = goRand(seed)
      for (let i = 0; i < 2000; i++) {
        const f = a.float64()
        expect(f).toBe(Number(b.int63()) / 2 ** 63)
        expect(f >= 0 && f < 1).toBe(true)
      }
    },
    { fastCheck: { numRuns: 10 } }
  )

  it("reduces seeds modulo 2³¹−1 and maps 0 to 89482311, as Go does", () => {
    const first = (seed: number) => goRand(seed).int63()
    expect(first(0)).toBe(first(89482311))
    expect(first(INT32_MAX)).toBe(first(89482311))
    expect(first(-1)).toBe(first(INT32_MAX - 1))
    expect(first(42 + INT32_MAX)).toBe(first(42))
  })
})
