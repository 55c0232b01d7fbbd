/**
 * `[text, code, first?]`: the scan must report `code` (with its label); `first`, when given, is the code of the
 * first finding (what a write path reports). Without `first`, `code` itself must come first.
 */
export type Attack = readonly [text: string, code: string, first?: string]

/**
 * One family of the scanner: the attacks it must refuse, and the ordinary facts written closest to them (the same
 * vocabulary, no order to the assistant), which must pass.
 */
export interface Family {
  readonly name: string
  readonly attacks: ReadonlyArray<Attack>
  readonly nearMisses: ReadonlyArray<string>
}
