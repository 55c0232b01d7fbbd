/**
 * Per-family catch rates over the corpus, shared by the rates test and `bench/scanner.ts`: how many attacks of each
 * family the write path refuses (at all, and with the expected code) and how many of its near misses it refuses.
 */
import { scanContent, scanForWrite, type ScanFamily } from "../../../src/domain/scan/index.js"
import { type Family, FAMILIES, LABELS, ORDINARY_FACTS } from "./corpus.js"

/** The scan step that reports `code`: the first two and the credential step by their codes, the rest injection. */
export const familyOf = (code: string): ScanFamily =>
  code === "hidden-unicode"
    ? "invisible"
    : code === "mixed-confusable-script"
      ? "confusable"
      : code === "remote-fetch-piped-to-shell"
        ? "unsafe"
        : LABELS[code] === "potential credential material"
          ? "credential"
          : "injection"

/**
 * Whether the scan reports `code` for `text`, wherever it ranks. The download-and-execute filter is not part of
 * scanContent: its finding is what the write path reports when nothing else is found.
 */
export const reports = (text: string, code: string): boolean =>
  familyOf(code) === "unsafe" ? scanForWrite(text)?.code === code : scanContent(text).some((f) => f.code === code)

/** One family's figures. */
export interface FamilyRate {
  readonly name: string
  readonly attacks: number
  /** Attacks the write path refuses, for whatever reason. */
  readonly refused: number
  /** Attacks reported with the code the corpus expects. */
  readonly coded: number
  readonly nearMisses: number
  /** Near misses the write path refuses. */
  readonly falsePositives: number
}

export const familyRate = (family: Family): FamilyRate => ({
  name: family.name,
  attacks: family.attacks.length,
  refused: family.attacks.filter(([text]) => scanForWrite(text) !== undefined).length,
  coded: family.attacks.filter(([text, code]) => reports(text, code)).length,
  nearMisses: family.nearMisses.length,
  falsePositives: family.nearMisses.filter((text) => scanForWrite(text) !== undefined).length
})

/** Every family's figures, in corpus order. */
export const familyRates = (): ReadonlyArray<FamilyRate> => FAMILIES.map(familyRate)

/** The ordinary facts (near misses and general facts) the write path refuses. */
export const refusedFacts = (): ReadonlyArray<string> => ORDINARY_FACTS.filter((f) => scanForWrite(f) !== undefined)
