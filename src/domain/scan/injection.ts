/**
 * Step 3 of the content scan: text shaped like an instruction addressed to the model (spec §7.1 table).
 *
 * Every pattern reads the lower-cased `norm` and `fold` forms, where inter-word space is one `\s`. The spec's
 * families and labels are kept; its patterns are narrowed where odek refuses ordinary facts (DESIGN §5.8): a
 * match needs the shape of an order to the assistant (an imperative, "you …", "your …", a payload after a
 * marker), not just the vocabulary. Quantifiers are bounded wherever two of them could read the same characters,
 * so an 8 KB text never backtracks badly.
 *
 * Each family is a module of its own under families/, which says what it refuses and why its rows are narrowed.
 * The table's order is the order findings are reported in: the spec's families first, in the spec's order, then
 * those issue 12 added.
 */
import { AUTHORITY_ROWS } from "./families/authority.js"
import { BEACONS } from "./families/beacons.js"
import { C2 } from "./families/c2.js"
import { CONCEALMENT } from "./families/concealment.js"
import { CONTROL_TOKENS } from "./families/controlTokens.js"
import { ENCODED } from "./families/encoded.js"
import { EXECUTION } from "./families/execution.js"
import { EXFILTRATION, SECRET_EXFILTRATION } from "./families/exfiltration.js"
import { LEAKS } from "./families/leaks.js"
import { LETTER_SPACING } from "./families/letterSpacing.js"
import { MARKUP } from "./families/markup.js"
import { NON_ENGLISH } from "./families/nonEnglish.js"
import { OVERRIDES } from "./families/overrides.js"
import { SAFETY_BYPASS } from "./families/safetyBypass.js"
import type { InjectionPattern } from "./families/shared.js"
import { SOCIAL_ENGINEERING } from "./families/socialEngineering.js"
import { SUBVERSION } from "./families/subversion.js"

export type { InjectionPattern } from "./families/shared.js"

/** Every injection row, in reporting order. */
export const INJECTION_PATTERNS: ReadonlyArray<InjectionPattern> = [
  ...OVERRIDES,
  ...EXFILTRATION,
  ...ENCODED,
  ...MARKUP,
  ...SOCIAL_ENGINEERING,
  ...AUTHORITY_ROWS,
  ...SAFETY_BYPASS,
  ...CONCEALMENT,
  ...CONTROL_TOKENS,
  ...BEACONS,
  ...SECRET_EXFILTRATION,
  ...EXECUTION,
  ...C2,
  ...NON_ENGLISH,
  ...LETTER_SPACING,
  ...SUBVERSION,
  ...LEAKS
]

/** Whether `pattern` matches the text whose two forms are `norm` and `fold` (fold === norm when nothing folds). */
export const patternMatches = ({ regexes, gate }: InjectionPattern, norm: string, fold: string): boolean => {
  if (gate !== undefined && !gate.test(norm) && (fold === norm || !gate.test(fold))) return false
  return regexes.some((regex) => regex.test(norm) || (fold !== norm && regex.test(fold)))
}
