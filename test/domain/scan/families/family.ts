/** What every family's test file runs: its attacks, its near misses, and adversarial inputs for its rows. */
import { describe, expect, it } from "vitest"
import { factLooksUnsafe, scanContent, scanForWrite } from "../../../../src/domain/scan/index.js"
import { type Family, LABELS } from "../corpus.js"
import { familyOf } from "../rates.js"

/** Each attack refused with its code (and first finding), each near miss passed. */
export const describeFamily = (family: Family): void => {
  describe(`${family.name}: attacks`, () => {
    const cases = family.attacks.map(([text, code, first]) => ({ text, code, first }))
    it.each(cases)("refuses $text ($code)", ({ text, code, first }) => {
      const finding = { family: familyOf(code), code, label: LABELS[code] }
      if (finding.family === "unsafe") {
        expect(factLooksUnsafe(text)).toBe(true)
        expect(scanForWrite(text)).toEqual(finding)
      } else {
        expect(scanContent(text)).toContainEqual(finding)
        expect(scanForWrite(text)?.code).toBe(first ?? code)
      }
    })
  })

  describe(`${family.name}: near misses`, () => {
    it.each(family.nearMisses)("passes %j", (text) => {
      expect(scanContent(text)).toEqual([])
      expect(scanForWrite(text)).toBeUndefined()
    })
  })
}

const EIGHT_KB = 8 * 1024
/** `unit` repeated to 8 KB. */
export const fill = (unit: string): string => unit.repeat(Math.ceil(EIGHT_KB / unit.length)).slice(0, EIGHT_KB)

/**
 * Each `[name, unit]` repeated to 8 KB and scanned (content scan and unsafe filter) in under 250 ms: a row whose
 * quantifiers could read the same characters twice would take seconds on such input.
 */
export const scansQuickly = (family: string, units: ReadonlyArray<readonly [string, string]>): void => {
  describe(`${family}: cost`, () => {
    it.each(units)("scans 8 KB of %s quickly", (_name, unit) => {
      const text = fill(unit)
      const start = performance.now()
      scanContent(text)
      factLooksUnsafe(text)
      expect(performance.now() - start).toBeLessThan(250)
    })
  })
}
