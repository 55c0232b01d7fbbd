import { describe, expect, it } from "vitest"
import { ATTACKS, FAMILIES, ORDINARY_FACTS } from "./corpus.js"
import { familyRates, refusedFacts } from "./rates.js"

describe("per-family rates over the corpus", () => {
  const rates = familyRates()

  it("covers every attack and near miss of the corpus", () => {
    expect(rates.map((r) => r.name)).toEqual(FAMILIES.map((f) => f.name))
    expect(rates.reduce((n, r) => n + r.attacks, 0)).toBe(ATTACKS.length)
    expect(ATTACKS.length).toBeGreaterThanOrEqual(420)
    expect(ORDINARY_FACTS.length).toBeGreaterThanOrEqual(420)
  })

  it.each(rates.map((r) => ({ ...r })))(
    "$name: every attack refused with its code, no near miss refused",
    ({ attacks, refused, coded, falsePositives }) => {
      expect(attacks).toBeGreaterThan(0)
      expect(refused / attacks).toBe(1)
      expect(coded / attacks).toBe(1)
      expect(falsePositives).toBe(0)
    }
  )

  it("refuses no ordinary fact", () => {
    expect(refusedFacts()).toEqual([])
  })
})
