import { Either, FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { DEFAULT_FACT_POLICY, decideFact, mergeBlocker } from "../../../src/domain/facts/decider.js"
import { differentPair, restatementPair } from "../text/distinguishingArbitraries.js"
import { validEntry } from "./arbitraries.js"

const at = "2026-01-01T00:00:00.000Z"
const decide = decideFact({ ...DEFAULT_FACT_POLICY, caps: { user: 100_000, env: 100_000 } })

// Any similarity at all, with its edges drawn often: the gate must hold even for a pair the embedder calls identical.
const similarity = fc.oneof(fc.constantFrom(1, 0.999, 0.71, 0.7, 0.5, 0.3), fc.double({ min: 0, max: 1, noNaN: true }))
const judgement = fc.constantFrom<"merge" | "add" | undefined>("merge", "merge", "add", undefined)

describe("merge gate (issue 10: merges never fold different facts)", () => {
  it(
    "property: a different-fact pair from one template is never merged, " +
      "whatever the similarity or the model's word",
    () => {
      const seen = new Map<string, number>()
      fc.assert(
        fc.property(
          differentPair(),
          fc.array(validEntry, { maxLength: 3 }),
          fc.boolean(),
          similarity,
          judgement,
          (pair, others, swap, sim, judged) => {
            const [old, nu] = swap ? [pair.incoming, pair.existing] : [pair.existing, pair.incoming]
            const entries = [...others.filter((o) => o !== old && o !== nu), old]
            const probe = {
              index: entries.length - 1,
              similarity: sim,
              ...(judged === undefined ? {} : { judgement: judged })
            }
            const events = Either.getOrThrow(
              decide({ _tag: "AddFact", target: "user", content: nu, at, probe }, { entries })
            )
            expect(events.map((e) => e._tag)).toEqual(["FactAdded"])
            // the refusal is explained whenever the pair was close enough to be considered
            if (sim >= DEFAULT_FACT_POLICY.addThreshold) expect(events[0]).toMatchObject({ keptApart: { entry: old } })
            pair.slots.forEach((slot, i) => {
              if (pair.a[i] !== pair.b[i]) seen.set(slot, (seen.get(slot) ?? 0) + 1)
            })
            if (pair.b.every((v) => pair.a.includes(v))) seen.set("swap", (seen.get("swap") ?? 0) + 1)
            if (new Set(pair.a).size < pair.a.length) seen.set("echo", (seen.get("echo") ?? 0) + 1)
            if (pair.a.some((v, i) => pair.b[i] === `${v}o`)) seen.set("near", (seen.get("near") ?? 0) + 1)
          }
        ),
        { numRuns: 3000 }
      )
      // the generator must reach every kind of distinguishing token, and every template language
      for (const slot of [
        "name",
        "word",
        "number",
        "port",
        "version",
        "path",
        "url",
        "ident",
        "date",
        "swap",
        "echo",
        "near"
      ])
        expect(seen.get(slot) ?? 0, slot).toBeGreaterThan(50)
    }
  )

  it("property: a restatement that extends the entry passes the gate and merges above the threshold", () => {
    fc.assert(
      fc.property(restatementPair(), fc.double({ min: 0.71, max: 1, noNaN: true }), (pair, sim) => {
        expect(mergeBlocker(pair.existing, pair.incoming)).toBeUndefined()
        const events = Either.getOrThrow(
          decide(
            { _tag: "AddFact", target: "user", content: pair.incoming, at, probe: { index: 0, similarity: sim } },
            { entries: [pair.existing] }
          )
        )
        if (pair.incoming !== pair.existing) expect(events.map((e) => e._tag)).toEqual(["FactMerged"])
      }),
      { numRuns: 1000 }
    )
  })
})
