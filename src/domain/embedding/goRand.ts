/**
 * Go's legacy seeded `math/rand` source (`rand.NewSource(seed)`), bit-compatible so that the `rp/<D>` embedding space
 * is the one Go odek writes (spec embedding.md §5.5). The 63-bit state lives in two Int32Arrays (high 31 bits, low 32
 * bits) instead of BigInt: fitting a vocabulary draws D values per token and BigInt arithmetic is far too slow for
 * that.
 */
import { RNG_LEN, rngCookedHi, rngCookedLo } from "./rngCooked.js"

const TAP = 273
const INT32_MAX = 0x7fffffff
const TWO_POW_32 = 4294967296
const TWO_POW_63 = 9223372036854775808

/** x ← 48271·x mod (2³¹−1) by Schrage's method, exactly as Go's `seedrand` (no intermediate exceeds 2⁵³). */
const seedrand = (x: number): number => {
  const hi = Math.trunc(x / 44488)
  const lo = x % 44488
  const next = 48271 * lo - 3399 * hi
  return next < 0 ? next + INT32_MAX : next
}

/** A mutable PRNG stream; one instance must not be shared by independent consumers. */
export interface GoRand {
  /** Go's `Int63()`: a uniform non-negative 63-bit integer. BigInt because it exceeds 2⁵³; tests and tools only. */
  readonly int63: () => bigint
  /** Go's `Float64()`: uniform in [0, 1). */
  readonly float64: () => number
}

/** Go's `rand.NewSource(seed)`. */
export const goRand = (seed: number): GoRand => {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`goRand: seed must be a safe integer, got ${seed}`)
  const hi = new Int32Array(RNG_LEN)
  const lo = new Uint32Array(RNG_LEN)
  let s = seed % INT32_MAX
  if (s < 0) s += INT32_MAX
  if (s === 0) s = 89482311
  let x = s
  for (let i = -20; i < RNG_LEN; i++) {
    x = seedrand(x)
    if (i >= 0) {
      // u = x<<40 ^ x'<<20 ^ x'' in 64 bits; x < 2³¹ so each shifted term splits cleanly into halves
      let uHi = x << 8
      x = seedrand(x)
      uHi ^= x >>> 12
      let uLo = x << 20
      x = seedrand(x)
      uLo ^= x
      hi[i] = (uHi ^ rngCookedHi[i]!) & INT32_MAX
      lo[i] = uLo ^ rngCookedLo[i]!
    }
  }

  // Closure locals rather than class fields: V8 keeps them in registers, which halves the cost per draw.
  let tap = 0
  let feed = RNG_LEN - TAP
  /** Advances the generator; returns the new value's low 32 bits, its high 31 bits are then `hi[feed]`. */
  const step = (): number => {
    if (--tap < 0) tap += RNG_LEN
    if (--feed < 0) feed += RNG_LEN
    const sum = lo[feed]! + lo[tap]! // up to 2³³: the Uint32Array store drops the carry bit, which goes to `hi`
    hi[feed] = (hi[feed]! + hi[tap]! + (sum > 0xffffffff ? 1 : 0)) & INT32_MAX
    lo[feed] = sum
    return sum >>> 0
  }
  return {
    int63: () => {
      const low = step()
      return (BigInt(hi[feed]!) << 32n) | BigInt(low)
    },
    float64: () => {
      for (;;) {
        const low = step()
        // hi·2³² is exact, so the one addition performs Go's round-to-nearest-even int64 → float64 conversion
        const f = (hi[feed]! * TWO_POW_32 + low) / TWO_POW_63
        if (f !== 1) return f
      }
    }
  }
}
