/**
 * Shared corpora for the scanner tests: attacks that must be refused and ordinary facts that must pass, one module
 * per family under corpus/.
 */
import { AUTHORITY } from "./corpus/authority.js"
import { BEACONS } from "./corpus/beacons.js"
import { C2 } from "./corpus/c2.js"
import { CONCEALMENT } from "./corpus/concealment.js"
import { CONFUSABLE } from "./corpus/confusable.js"
import { CONTROL_TOKENS } from "./corpus/controlTokens.js"
import { CREDENTIALS } from "./corpus/credentials.js"
import { ENCODED } from "./corpus/encoded.js"
import { EXECUTION } from "./corpus/execution.js"
import { EXFILTRATION } from "./corpus/exfiltration.js"
import { GENERAL_FACTS } from "./corpus/general.js"
import { INVISIBLE } from "./corpus/invisible.js"
import { LEAKS } from "./corpus/leaks.js"
import { MARKUP } from "./corpus/markup.js"
import { NON_ENGLISH } from "./corpus/nonEnglish.js"
import { OBFUSCATION } from "./corpus/obfuscation.js"
import { OVERRIDES } from "./corpus/overrides.js"
import { SAFETY_BYPASS } from "./corpus/safetyBypass.js"
import { SOCIAL_ENGINEERING } from "./corpus/socialEngineering.js"
import { SUBVERSION } from "./corpus/subversion.js"
import type { Attack, Family } from "./corpus/types.js"
import { UNSAFE } from "./corpus/unsafe.js"

export type { Attack, Family } from "./corpus/types.js"
export { INVISIBLE_CHARACTERS, MORE_INVISIBLE_CHARACTERS } from "./corpus/invisible.js"

/** Every family, in the order of the scan's steps and of the injection table. */
export const FAMILIES: ReadonlyArray<Family> = [
  INVISIBLE,
  CONFUSABLE,
  OVERRIDES,
  EXFILTRATION,
  ENCODED,
  MARKUP,
  SOCIAL_ENGINEERING,
  AUTHORITY,
  SAFETY_BYPASS,
  CONCEALMENT,
  CONTROL_TOKENS,
  BEACONS,
  EXECUTION,
  C2,
  NON_ENGLISH,
  OBFUSCATION,
  SUBVERSION,
  LEAKS,
  CREDENTIALS,
  UNSAFE
]

/** Labels by reason code: user-visible, so a test pins each one. */
export const LABELS: Readonly<Record<string, string>> = {
  "hidden-unicode": "hidden unicode characters",
  "mixed-confusable-script": "mixed confusable script",
  "ignore-previous-instructions": "ignore previous instructions",
  "disregard-instructions": "disregard instructions",
  "disregard-everything": "disregard everything",
  "follow-new-instructions": "follow new instructions",
  "identity-replacement": "identity replacement",
  "new-system-prompt": "new system prompt",
  "overriding-directive": "overriding directive",
  "authority-override": "authority override",
  "system-prompt-exfiltration": "system prompt exfiltration",
  "transmit-secrets-or-prompt": "transmit secrets or prompt",
  "prompt-interrogation": "prompt interrogation",
  "paraphrased-exfiltration": "paraphrased exfiltration",
  "base64-payload": "base64-encoded payload",
  "encoded-instruction": "encoded instruction",
  "html-comment-injection": "HTML comment injection",
  "html-tag-injection": "HTML tag injection",
  gaslighting: "gaslighting",
  "user-impersonation": "user impersonation",
  "permanent-override": "permanent override",
  "markdown-header-injection": "markdown header injection",
  "concealment-instruction": "concealment instruction",
  "covert-action-instruction": "covert action instruction",
  "chat-control-token": "chat control-token injection",
  "instruction-marker": "instruction-marker injection",
  "forged-role-tag": "forged role tag",
  "markdown-image-exfiltration": "markdown image exfiltration",
  "templated-exfiltration-request": "templated exfiltration request",
  "command-exfiltration": "secret exfiltration command",
  "secret-file-disclosure": "secret file disclosure",
  "translate-and-run": "translate-and-run instruction",
  "c2-enrolment": "command-and-control enrolment",
  "forged-authority-marker": "forged authority marker",
  "instruction-override": "instruction override",
  "safety-bypass": "safety bypass",
  "non-english-ignore-instructions": "non-english: ignore previous instructions",
  "non-english-disregard-instructions": "non-english: disregard instructions",
  // added with the per-family split (issue 12)
  "secret-disclosure": "secret disclosure",
  "markdown-link-exfiltration": "markdown link exfiltration",
  "hidden-html-instruction": "hidden HTML instruction",
  "forged-authorization": "forged authorization",
  "false-pretext": "false pretext",
  "deception-instruction": "deception instruction",
  "letter-spaced-instruction": "letter-spaced instruction",
  "assistant-address": "order addressed to the assistant",
  "non-english-identity-replacement": "non-english: identity replacement",
  "non-english-new-instructions": "non-english: follow new instructions",
  "non-english-prompt-exfiltration": "non-english: system prompt exfiltration",
  "non-english-secret-exfiltration": "non-english: transmit secrets",
  "non-english-concealment": "non-english: concealment instruction",
  // added after a blind red-team pass (issue 12)
  "against-the-user": "instruction against the user",
  "rules-declared-void": "instructions declared void",
  "new-directive": "new directive for the assistant",
  "behind-the-users-back": "work hidden from the user",
  "credential-exfiltration": "credential exfiltration",
  "forged-standing-approval": "forged standing approval",
  "remote-fetch-piped-to-shell": "remote fetch piped to shell",
  "openai-key": "potential credential material",
  "anthropic-key": "potential credential material",
  "aws-access-key-id": "potential credential material",
  "aws-secret-access-key": "potential credential material",
  "github-token": "potential credential material",
  "gitlab-token": "potential credential material",
  "slack-token": "potential credential material",
  "stripe-key": "potential credential material",
  "google-api-key": "potential credential material",
  jwt: "potential credential material",
  "private-key": "potential credential material",
  "bearer-token": "potential credential material",
  "url-password": "potential credential material"
}

/** Every attack of every family. */
export const ATTACKS: ReadonlyArray<Attack> = FAMILIES.flatMap((f) => f.attacks)

/** Ordinary facts in many languages and scripts, near misses of every family first; each must pass. */
export const ORDINARY_FACTS: ReadonlyArray<string> = [
  ...new Set([...FAMILIES.flatMap((f) => f.nearMisses), ...GENERAL_FACTS])
]
