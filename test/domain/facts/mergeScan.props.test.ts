import { Either, FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { DEFAULT_FACT_POLICY, decideFact, mergeText } from "../../../src/domain/facts/decider.js"
import { scanForWrite } from "../../../src/domain/scan/index.js"
import { ATTACKS, ORDINARY_FACTS } from "../scan/corpus.js"

const at = "2026-01-01T00:00:00.000Z"
const decide = decideFact(DEFAULT_FACT_POLICY)

/**
 * Two halves that pass the scanner alone but may not together: every attack of the corpus cut at each word
 * boundary and each character position near its middle. This is the region where a careless merge would write an
 * attack nobody ever sent whole.
 */
const halves: ReadonlyArray<readonly [string, string]> = ATTACKS.flatMap(([text]) => {
  const chars = Array.from(text) // code points: a cut never splits a surrogate pair
  const cuts = new Set<number>()
  for (let i = 1; i < chars.length; i++) if (chars[i] === " " || Math.abs(i - chars.length / 2) < 4) cuts.add(i)
  return [...cuts].map((i) => [chars.slice(0, i).join("").trim(), chars.slice(i).join("").trim()] as const)
}).filter(([a, b]) => a !== "" && b !== "" && scanForWrite(a) === undefined && scanForWrite(b) === undefined)

// the halves whose plain join the scanner refuses, drawn often so the fallback path is exercised
const dangerous = halves.filter(
  ([a, b]) => scanForWrite(mergeText(a, b)) !== undefined || scanForWrite(mergeText(b, a)) !== undefined
)

// An ordinary fact and a restatement of it that says the same with other function words: a pair the gate lets merge,
// so the merge path itself is exercised (halves of an attack are different texts, which never merge since issue 10).
const restatement = fc
  .tuple(fc.constantFrom(...ORDINARY_FACTS), fc.constantFrom(" and so on", ", as well", " too"))
  .map(([fact, tail]) => [fact, `${fact.replace(/[.!?]$/u, "")}${tail}`] as const)

const pair = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...dangerous) },
  { weight: 2, arbitrary: fc.constantFrom(...halves) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...ORDINARY_FACTS), fc.constantFrom(...ORDINARY_FACTS)) },
  { weight: 2, arbitrary: restatement }
)

describe("merge-on-write safety", () => {
  it("property: a merge never writes text the scanner refuses; such a merge falls back to adding the new fact", () => {
    let unsafeJoins = 0
    let merges = 0
    fc.assert(
      fc.property(
        pair,
        fc.array(fc.constantFrom(...ORDINARY_FACTS), { maxLength: 3 }),
        fc.boolean(),
        fc.double({ min: 0.3, max: 1, noNaN: true }),
        fc.constantFrom<"merge" | "add" | undefined>("merge", "add", undefined),
        ([existing, incoming], others, swap, similarity, judgement) => {
          const [old, nu] = swap ? [incoming, existing] : [existing, incoming]
          const entries = [...others.filter((o) => o !== old && o !== nu), old]
          const probe = { index: entries.length - 1, similarity, ...(judgement !== undefined ? { judgement } : {}) }
          const result = decide({ _tag: "AddFact", target: "env", content: nu, at, probe }, { entries })
          expect(Either.isRight(result)).toBe(true)
          const events = Either.getOrThrow(result)
          if (scanForWrite(mergeText(old, nu)) !== undefined) unsafeJoins++
          for (const e of events) {
            if (e._tag === "FactMerged") {
              merges++
              expect(scanForWrite(e.content)).toBeUndefined()
            } else expect(e).toMatchObject({ _tag: "FactAdded", content: nu })
          }
        }
      ),
      { numRuns: 3000 }
    )
    // The run must meet joins the scanner refuses, and merges that go through.
    expect(dangerous.length).toBeGreaterThan(50)
    expect(unsafeJoins).toBeGreaterThan(500)
    expect(merges).toBeGreaterThan(300)
  })
})
