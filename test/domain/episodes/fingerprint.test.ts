import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { corpusFingerprint } from "../../../src/domain/episodes/fingerprint.js"

// An independent FNV-1a 64 over explicit bytes, to check the ordering and framing rather than the arithmetic.
const fnv = (bytes: ReadonlyArray<number>): string => {
  let h = 0xcbf29ce484222325n
  for (const b of bytes) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n)
  return h.toString(16).padStart(16, "0")
}
const utf8 = (s: string) => [...new TextEncoder().encode(s)]

describe("corpusFingerprint (§9.2, embedding §10.2)", () => {
  it("matches the golden values", () => {
    expect(corpusFingerprint([])).toBe("0:cbf29ce484222325")
    expect(
      corpusFingerprint([
        { sessionId: "20260101-a", summary: "Added retry logic." },
        { sessionId: "20260101-b", summary: "Fixed the parser." }
      ])
    ).toBe("2:f4e6296793f5deca")
  })

  it("sorts by session ID and trims summaries", () => {
    expect(
      corpusFingerprint([
        { sessionId: "20260101-b", summary: "\n Fixed the parser.  \t" },
        { sessionId: "20260101-a", summary: "Added retry logic.\n" }
      ])
    ).toBe("2:f4e6296793f5deca")
  })

  it("frames each field with a 0x00 byte", () => {
    expect(corpusFingerprint([{ sessionId: "ab", summary: "c" }])).toBe(`1:${fnv([...utf8("ab"), 0, ...utf8("c"), 0])}`)
    expect(corpusFingerprint([{ sessionId: "a", summary: "bc" }])).not.toBe(
      corpusFingerprint([{ sessionId: "ab", summary: "c" }])
    )
  })

  it("orders IDs by UTF-8 bytes, not UTF-16 units", () => {
    // U+FFFF encodes as EF BF BF, U+10000 as F0 90 80 80; in UTF-16 the order is the other way round
    const expected = fnv([...utf8("\uffff"), 0, ...utf8("x"), 0, ...utf8("\u{10000}"), 0, ...utf8("y"), 0])
    expect(
      corpusFingerprint([
        { sessionId: "\u{10000}", summary: "y" },
        { sessionId: "\uffff", summary: "x" }
      ])
    ).toBe(`2:${expected}`)
  })

  it("changes when a summary is rewritten, an entry added or removed", () => {
    const base = [
      { sessionId: "a", summary: "one" },
      { sessionId: "b", summary: "two" }
    ]
    const fp = corpusFingerprint(base)
    expect(
      corpusFingerprint([
        { sessionId: "a", summary: "one" },
        { sessionId: "b", summary: "two!" }
      ])
    ).not.toBe(fp)
    expect(corpusFingerprint([...base, { sessionId: "c", summary: "three" }])).not.toBe(fp)
    expect(corpusFingerprint(base.slice(1))).not.toBe(fp)
  })

  it("does not depend on input order", () => {
    const entry = fc.record({
      sessionId: fc.fullUnicodeString({ maxLength: 6 }),
      summary: fc.fullUnicodeString({ maxLength: 12 })
    })
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 8 }), fc.nat(), (entries, seed) => {
        const shuffled = [...entries].sort(
          (a, b) => ((a.sessionId.length * 31 + seed) % 7) - ((b.sessionId.length * 31 + seed) % 7)
        )
        const fp = corpusFingerprint(entries)
        expect(corpusFingerprint(shuffled)).toBe(fp)
        expect(fp).toMatch(new RegExp(`^${entries.length}:[0-9a-f]{16}$`))
      }),
      { numRuns: 1000 }
    )
  })
})
