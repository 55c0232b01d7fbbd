/**
 * Write-time security scanning (spec §7): the content scan every write path and the prompt banner use, and
 * the download-and-execute filter. Pure and deterministic; patterns are compiled once at module load.
 */
import { credentialCodes } from "./credentials.js"
import { hasMixedConfusableWord } from "./confusable.js"
import type { Finding } from "./finding.js"
import { decodedBase64 } from "./families/encoded.js"
import { INJECTION_PATTERNS, patternMatches } from "./injection.js"
import { foldForm, hasHiddenUnicode, normForm } from "./text.js"
import { factLooksUnsafe } from "./unsafe.js"

export type { Finding, ScanFamily } from "./finding.js"
export { factLooksUnsafe } from "./unsafe.js"

const HIDDEN: Finding = { family: "invisible", code: "hidden-unicode", label: "hidden unicode characters" }
const CONFUSABLE: Finding = { family: "confusable", code: "mixed-confusable-script", label: "mixed confusable script" }
const UNSAFE: Finding = { family: "unsafe", code: "remote-fetch-piped-to-shell", label: "remote fetch piped to shell" }
const CREDENTIAL_LABEL = "potential credential material"
// A base64 blob that decodes to an order is reported as the spec's encoded-payload row would report it.
const BASE64_PAYLOAD = "base64-payload"
const ENCODED: Finding = { family: "injection", code: BASE64_PAYLOAD, label: "base64-encoded payload" }

const isInjection = (text: string): boolean => {
  const norm = normForm(text)
  const fold = foldForm(norm)
  return INJECTION_PATTERNS.some((p) => patternMatches(p, norm, fold))
}

// Lazy so that a write path, which needs only the first finding, skips the later (costlier) steps.
function* findings(text: string): Generator<Finding> {
  if (hasHiddenUnicode(text)) yield HIDDEN
  if (hasMixedConfusableWord(text)) yield CONFUSABLE
  const norm = normForm(text)
  const fold = foldForm(norm)
  // A family may split one code over several rows, each behind its own gate; a code is reported once.
  const reported = new Set<string>()
  for (const pattern of INJECTION_PATTERNS) {
    if (reported.has(pattern.code) || !patternMatches(pattern, norm, fold)) continue
    reported.add(pattern.code)
    yield { family: "injection", code: pattern.code, label: pattern.label }
  }
  // After the table: decoding is the costliest check, and a blob without a marker is the rarer attack.
  if (!reported.has(BASE64_PAYLOAD) && decodedBase64(text).some(isInjection)) yield ENCODED
  for (const code of credentialCodes(text)) yield { family: "credential", code, label: CREDENTIAL_LABEL }
}

/**
 * Every finding of the content scan (spec §7.1 steps 1-4, in that order; de-duplicated by code). Empty = clean. Does
 * NOT include the §7.2 unsafe filter.
 */
export const scanContent = (text: string): ReadonlyArray<Finding> => [...findings(text)]

/**
 * The check every write path applies: first finding of scanContent, else the unsafe finding (family "unsafe", code
 * "remote-fetch-piped-to-shell", label "remote fetch piped to shell"), else undefined.
 */
export const scanForWrite = (text: string): Finding | undefined => {
  const first = findings(text).next()
  if (!first.done) return first.value
  return factLooksUnsafe(text) ? UNSAFE : undefined
}

/**
 * One-line error: `memory: content contains <label>` for content findings,
 * `memory: fact looks unsafe (remote fetch piped to shell)` for the unsafe family.
 */
export const rejectionMessage = (finding: Finding): string =>
  finding.family === "unsafe"
    ? `memory: fact looks unsafe (${finding.label})`
    : `memory: content contains ${finding.label}`
