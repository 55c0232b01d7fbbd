import { Either, FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { parseEntries, renderEntries, usedBytes } from "../../../src/domain/facts/codec.js"
import {
  DEFAULT_FACT_POLICY,
  decideFact,
  evolveFact,
  initialFactFile,
  selectEntry
} from "../../../src/domain/facts/decider.js"
import type { FactCommand, FactFileState, Target } from "../../../src/domain/facts/schema.js"
import { utf8Bytes } from "../../../src/domain/text/utf8.js"
import { longEntry, validEntry, WORDS } from "./arbitraries.js"

const at = "2026-01-01T00:00:00.000Z"

/** An operation resolved against the state it meets, so selectors actually hit entries. */
const op = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("add" as const),
      content: fc.oneof(validEntry, longEntry),
      sim: fc.double({ min: 0, max: 1, noNaN: true }),
      pick: fc.nat(),
      restate: fc.boolean()
    })
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("replace" as const),
      content: fc.oneof(validEntry, longEntry),
      pick: fc.nat(),
      how: fc.constantFrom<"whole" | "slice" | "word">("whole", "slice", "word")
    })
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("remove" as const),
      pick: fc.nat(),
      how: fc.constantFrom<"whole" | "slice" | "word">("whole", "slice", "word")
    })
  }
)
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never

const selector = (state: FactFileState, pick: number, how: "whole" | "slice" | "word") => {
  if (how === "word" || state.entries.length === 0) return WORDS[pick % WORDS.length]!
  const entry = state.entries[pick % state.entries.length]!
  if (how === "whole") return entry
  const runes = Array.from(entry)
  const from = pick % Math.max(1, runes.length)
  return runes.slice(from, from + 1 + (pick % 12)).join("")
}

/**
 * The entry said again: extended by a word, or only its first words (which a merge keeps whole: no growth at the cap).
 */
const restatement = (entry: string, other: string, pick: number) => {
  const words = entry.split(/\s+/u)
  return pick % 2 === 0
    ? `${entry} ${other.split(/\s+/u)[0]!}`
    : words.slice(0, Math.max(1, words.length >> 1)).join(" ")
}

const toCommand = (target: Target, state: FactFileState, o: Op): FactCommand => {
  switch (o.kind) {
    case "add":
      return {
        _tag: "AddFact",
        target,
        at,
        // half the adds extend the entry they are compared with: only such an add may merge (a different fact never
        // does)
        content:
          o.restate && state.entries.length > 0
            ? restatement(state.entries[o.pick % state.entries.length]!, o.content, o.pick)
            : o.content,
        probe:
          state.entries.length > 0
            ? {
                index: o.pick % state.entries.length,
                similarity: o.sim,
                ...(o.restate ? { judgement: "merge" as const } : {})
              }
            : undefined
      }
    case "replace":
      return { _tag: "ReplaceFact", target, oldText: selector(state, o.pick, o.how), content: o.content, at }
    case "remove":
      return { _tag: "RemoveFact", target, oldText: selector(state, o.pick, o.how), at }
  }
}

// Small caps keep runs in the interesting region: most runs hit the cap and keep pressing against it.
const policyFor = (cap: number) => ({ ...DEFAULT_FACT_POLICY, caps: { user: cap, env: cap } })

describe("FactFile decider properties", () => {
  it(
    "(a) for any command sequence the file never exceeds its cap in UTF-8 bytes, " + "and used = rendered byte length",
    () => {
      let capRefusals = 0
      let merges = 0
      fc.assert(
        fc.property(
          fc.constantFrom<Target>("user", "env"),
          fc.integer({ min: 200, max: 4000 }),
          fc.array(op, { minLength: 30, maxLength: 120 }),
          (target, cap, ops) => {
            const decide = decideFact(policyFor(cap))
            let state = initialFactFile
            for (const o of ops) {
              const result = decide(toCommand(target, state, o), state)
              if (Either.isLeft(result)) {
                if (result.left._tag === "CapExceeded") capRefusals++
                continue
              }
              for (const e of result.right) {
                if (e._tag === "FactMerged") merges++
                state = evolveFact(state, e)
              }
              const rendered = renderEntries(state.entries)
              expect(utf8Bytes(rendered)).toBeLessThanOrEqual(cap)
              expect(usedBytes(state.entries)).toBe(utf8Bytes(rendered))
              expect(parseEntries(rendered)).toEqual(state.entries)
            }
          }
        ),
        { numRuns: 300 }
      )
      // The generator must actually reach the cap and the merge path, or the property proves little.
      expect(capRefusals).toBeGreaterThan(300)
      // (merges are rarer since issue 10: only restatements merge, and most runs press against the cap)
      expect(merges).toBeGreaterThan(40)
    }
  )

  it(
    "(d) selection: a unique whole-entry match wins; " +
      "otherwise exactly one containing entry, else the exact errors",
    () => {
      fc.assert(
        fc.property(
          fc.array(validEntry, { minLength: 1, maxLength: 8 }),
          fc.nat(),
          fc.constantFrom("whole", "slice", "word"),
          (entries, pick, how) => {
            const state = { entries }
            const oldText = selector(state, pick, how as "whole" | "slice" | "word")
            const exact = entries.filter((e) => e === oldText).length
            const containing = entries.filter((e) => e.includes(oldText)).length
            const r = selectEntry(entries, oldText)
            if (exact === 1) expect(r).toStrictEqual(Either.right(entries.indexOf(oldText)))
            else if (containing === 1) expect(Either.isRight(r) && entries[r.right]!.includes(oldText)).toBe(true)
            else if (containing === 0) expect(Either.isLeft(r) && r.left._tag === "NoMatch").toBe(true)
            else {
              expect(Either.isLeft(r) && r.left._tag === "AmbiguousMatch").toBe(true)
              if (Either.isLeft(r))
                expect(r.left.message).toBe(
                  `memory: ${containing} entries contain ${JSON.stringify(oldText)} — use a more specific old_text`
                )
            }
          }
        ),
        { numRuns: 3000 }
      )
    }
  )

  it("an exact duplicate is a silent no-op, even when it would not fit", () => {
    fc.assert(
      fc.property(fc.array(longEntry, { minLength: 1, maxLength: 6 }), fc.nat(), (entries, pick) => {
        const state = { entries: parseEntries(renderEntries(entries)) }
        const dup = state.entries[pick % state.entries.length]!
        const r = decideFact(policyFor(usedBytes(state.entries)))(
          { _tag: "AddFact", target: "user", content: `  ${dup}\n`, at, probe: { index: 0, similarity: 1 } },
          state
        )
        expect(r).toStrictEqual(Either.right([]))
      })
    )
  })
})
