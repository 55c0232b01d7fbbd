import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { FNV64_OFFSET, fnv1a64Units, fnv64Hex } from "../../../src/domain/text/fnv.js"

const stamp = (s: string) => fnv64Hex(fnv1a64Units(FNV64_OFFSET, s))

describe("the code-unit hash behind the lexical index's stamps", () => {
  it("is the same for the same text and changes with any one code unit, outside ASCII too", () => {
    expect(stamp("Caroline painted the lake")).toBe(stamp("Caroline painted the lake"))
    for (const [a, b] of [
      ["café", "cafè"],
      ["東京の天気", "東京の天氣"],
      ["a\u0100", "a\u0000"],
      ["", " "]
    ] as const)
      expect(stamp(a)).not.toBe(stamp(b))
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 200 }),
        fc.nat(),
        fc.integer({ min: 1, max: 0xffff }),
        (s, at, by) => {
          if (s.length === 0) return
          const i = at % s.length
          const changed = `${s.slice(0, i)}${String.fromCharCode((s.charCodeAt(i) + by) % 0x10000)}${s.slice(i + 1)}`
          expect(stamp(changed)).not.toBe(stamp(s))
        }
      ),
      { numRuns: 500 }
    )
  })
})
