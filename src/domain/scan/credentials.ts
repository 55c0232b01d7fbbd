/**
 * Step 4 of the content scan: secrets pasted into memory (raw text). Goes beyond the spec's three patterns to
 * the common provider formats (DESIGN §5.8); every kind shares the label `potential credential material`.
 */

/** One credential format. `accept` vets a candidate match (placeholders are not secrets). */
interface CredentialPattern {
  readonly code: string
  readonly regex: RegExp
  readonly accept?: (match: RegExpExecArray) => boolean
}

// "sk-your-openai-api-key-here", "Bearer YOUR_ACCESS_TOKEN_HERE": documentation placeholders are short words
// joined by separators and carry no randomness; generated keys never look like that.
const WORDY_PLACEHOLDER = /^(?:[a-z]{1,12}(?:[-_.][a-z]{1,12}){2,}|[A-Z]{1,12}(?:[-_.][A-Z]{1,12}){2,})$/
const notWordy = (body: string | undefined): boolean => body !== undefined && !WORDY_PLACEHOLDER.test(body)

// "postgres://app:${PGPASSWORD}@db" and "redis://:****@cache" show where a password goes without holding one.
const PASSWORD_PLACEHOLDER = /^(?:\$\{?\w+\}?|\$\(.*\)|\{\{?[^}]*\}?\}|%\w+%|\*+|x+|X+|\.{3}|…)$/

/** In reporting order; the spec's three come first. */
const CREDENTIAL_PATTERNS: ReadonlyArray<CredentialPattern> = [
  { code: "anthropic-key", regex: /\bsk-ant-([A-Za-z0-9_-]{20,})/g, accept: (m) => notWordy(m[1]) },
  // Spec: `sk-` + 20 body characters; 19 pass, and so does "/sk-verify".
  { code: "openai-key", regex: /\bsk-(?!ant-)([A-Za-z0-9_-]{20,})/g, accept: (m) => notWordy(m[1]) },
  // Spec: PEM private keys of any kind (PKCS#8 "PRIVATE KEY", "ENCRYPTED PRIVATE KEY", PGP blocks);
  // certificates and public keys are meant to be shared.
  { code: "private-key", regex: /-----BEGIN\s+(?:[A-Z0-9]+\s+){0,4}PRIVATE\s+KEY(?:\s+BLOCK)?-----/g },
  // Spec: "Bearer token goes in the Authorization header" names the scheme and passes.
  { code: "bearer-token", regex: /\bbearer\s+([a-zA-Z0-9._-]{20,})/gi, accept: (m) => notWordy(m[1]) },
  { code: "aws-access-key-id", regex: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g },
  {
    code: "aws-secret-access-key",
    regex: /\b(?:aws[_-]?)?secret[_-]?access[_-]?key["']?\s*[:=]\s*["']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/gi
  },
  { code: "github-token", regex: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { code: "gitlab-token", regex: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { code: "slack-token", regex: /\bxox[baprs]-(?=[A-Za-z0-9-]*\d)[A-Za-z0-9-]{10,}/g },
  { code: "stripe-key", regex: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { code: "google-api-key", regex: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  { code: "jwt", regex: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  // scheme://user:password@host; "https://user@host" and "postgres://localhost:5432/db" hold no password.
  {
    code: "url-password",
    regex: /\b[a-z][a-z0-9+.-]{1,30}:\/\/[^\s:/?#@'"<>]{0,100}:([^\s/?#@'"<>]{1,200})@(?=[A-Za-z0-9[])/gi,
    accept: (m) => m[1] !== undefined && !PASSWORD_PLACEHOLDER.test(m[1])
  }
]

/** Codes of every credential kind found in the raw text, in reporting order. */
export const credentialCodes = (text: string): ReadonlyArray<string> =>
  CREDENTIAL_PATTERNS.filter(({ regex, accept }) => {
    for (const m of text.matchAll(regex)) if (accept === undefined || accept(m)) return true
    return false
  }).map((p) => p.code)
