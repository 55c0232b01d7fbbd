import { describe, expect, it } from "@effect/vitest"
import {
  embedRp,
  fitRandomProjections,
  projectionRow,
  rpFingerprint,
  rpModelFromTokens
} from "../../../src/domain/embedding/randomProjections.js"
import { cosine } from "../../../src/domain/embedding/vector.js"

/** Exact float32 equality with Go's printed float32 values — stronger than any tolerance (spec §6.3). */
const expectFloat32 = (actual: Float32Array, expected: ReadonlyArray<number>) => {
  expect(actual.length).toBe(expected.length)
  expect(Array.from(actual, (v, i) => v === Math.fround(expected[i]!))).toStrictEqual(expected.map(() => true))
}

const s8 = 0.61237246

describe("RandomProjections golden data, D = 8 (spec §5.6, Go-verified)", () => {
  const model = fitRandomProjections(["alpha beta", "gamma"], 8)

  it("assigns rows in first-seen order with scale float32(√(3/8))", () => {
    expect(model.tokens).toStrictEqual(["alpha", "beta", "gamma"])
    expect(model.scale).toBe(Math.fround(s8))
    expect(projectionRow(8, 0)).toStrictEqual([
      [1, -model.scale],
      [3, model.scale],
      [4, -model.scale]
    ])
    expect(projectionRow(8, 1)).toStrictEqual([
      [3, model.scale],
      [5, -model.scale]
    ])
    expect(projectionRow(8, 2)).toStrictEqual([
      [4, -model.scale],
      [6, model.scale],
      [7, model.scale]
    ])
  })

  it('embeds "alpha beta" and "beta alpha" identically (both words weigh 2)', () => {
    const expected = [0, -0.37796447, 0, 0.75592893, -0.37796447, -0.37796447, 0, 0]
    expectFloat32(embedRp(model, "alpha beta"), expected)
    expectFloat32(embedRp(model, "beta alpha"), expected)
  })

  it('embeds "gamma"', () => {
    expectFloat32(embedRp(model, "gamma"), [0, 0, 0, 0, -0.57735026, 0, 0.57735026, 0.57735026])
  })

  it('embeds "alpha beta gamma" with weights 2, 3, 2, unlike "beta alpha gamma"', () => {
    const abg = embedRp(model, "alpha beta gamma")
    expectFloat32(abg, [0, -0.25400025, 0, 0.63500065, -0.5080005, -0.3810004, 0.25400025, 0.25400025])
    expect(Array.from(embedRp(model, "beta alpha gamma"))).not.toStrictEqual(Array.from(abg))
  })

  it("gives the zero vector when no token is in the vocabulary", () => {
    expectFloat32(embedRp(model, "zzz qqq"), [0, 0, 0, 0, 0, 0, 0, 0])
    expectFloat32(embedRp(model, "a b"), [0, 0, 0, 0, 0, 0, 0, 0])
    expectFloat32(embedRp(fitRandomProjections(["a b"], 8), "a b"), [0, 0, 0, 0, 0, 0, 0, 0])
    expectFloat32(embedRp(fitRandomProjections(["x²"], 8), "x²"), [0, 0, 0, 0, 0, 0, 0, 0])
    expectFloat32(embedRp(fitRandomProjections([], 8), "alpha"), [0, 0, 0, 0, 0, 0, 0, 0])
  })

  it("depends on corpus order: the reversed corpus gives gamma row 0", () => {
    const reversed = fitRandomProjections(["gamma", "alpha beta"], 8)
    expect(reversed.tokens).toStrictEqual(["gamma", "alpha", "beta"])
    expectFloat32(embedRp(reversed, "gamma"), [0, -0.57735026, 0, 0.57735026, -0.57735026, 0, 0, 0])
  })

  it("restores identical vectors from the persisted token list", () => {
    const restored = rpModelFromTokens(model.tokens, 8)
    for (const text of ["alpha beta", "gamma", "alpha beta gamma", "gamma alpha"]) {
      expect(Array.from(embedRp(restored, text))).toStrictEqual(Array.from(embedRp(model, text)))
    }
  })
})

describe("RandomProjections golden data, D = 256 (spec §5.6, Go-verified)", () => {
  it("has the published scales", () => {
    expect(fitRandomProjections(["x"], 64).scale).toBe(Math.fround(0.21650635))
    expect(fitRandomProjections(["x"], 256).scale).toBe(Math.fround(0.10825317))
  })

  it("row 0 has 93 non-zero entries starting (1,−s) (3,+s) (4,−s) (11,+s)", () => {
    const s = Math.fround(0.10825317)
    const row = projectionRow(256, 0)
    expect(row.length).toBe(93)
    expect(row.slice(0, 4)).toStrictEqual([
      [1, -s],
      [3, s],
      [4, -s],
      [11, s]
    ])
  })

  it("over 1000 rows 33.34 % of entries are non-zero and 50.1 % of those positive", () => {
    let nonZero = 0
    let positive = 0
    for (let i = 0; i < 1000; i++) {
      for (const [, value] of projectionRow(256, i)) {
        nonZero++
        if (value > 0) positive++
      }
    }
    expect(((100 * nonZero) / (1000 * 256)).toFixed(2)).toBe("33.34")
    expect(((100 * positive) / nonZero).toFixed(1)).toBe("50.1")
  })

  it.each([
    ["same text twice", "same text twice", 1],
    ["Refactored the billing module and added tests.", "Refactored the billing module and added unit tests.", 0.929],
    ["refactored the postgres database schema migration", "updated frontend button hover animation styling", -0.0067],
    ["fixed the auth bug", "repaired login issue", 0.0318]
  ])("cosine(%j, %j) ≈ %d with the pair as corpus", (a, b, expected) => {
    const model = fitRandomProjections([a, b], 256)
    expect(Math.abs(cosine(embedRp(model, a), embedRp(model, b)) - expected)).toBeLessThan(1e-4)
  })
})

describe("rpFingerprint / dims (spec §5.8)", () => {
  it("defaults non-positive dims to 256", () => {
    expect(rpFingerprint(0)).toBe("rp/256")
    expect(rpFingerprint(-1)).toBe("rp/256")
    expect(rpFingerprint(128)).toBe("rp/128")
    expect(fitRandomProjections(["alpha"], 0).dims).toBe(256)
    expect(embedRp(fitRandomProjections(["alpha"], -5), "alpha").length).toBe(256)
  })
  it("rejects fractional dims as a caller bug", () => {
    expect(() => rpFingerprint(8.5)).toThrow(RangeError)
  })
})
