import type { Family } from "./types.js"

/** A fixed pseudo-random alphanumeric string, so that generated keys look random yet stay the same run to run. */
const alnum = (n: number, seed = 7): string => {
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
  let s = ""
  let x = seed
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648
    s += chars[x % chars.length]
  }
  return s
}

/** Secrets pasted into memory (spec §7.1 step 4 and the common provider formats), all labelled alike. */
export const CREDENTIALS: Family = {
  name: "credentials",
  attacks: [
    [`OPENAI_API_KEY=sk-proj-${alnum(40, 1)}`, "openai-key"],
    [`key: sk-${"a".repeat(20)}`, "openai-key"],
    ["sk-abcdefghij0123456789", "openai-key"],
    [`ANTHROPIC_API_KEY=sk-ant-api03-${alnum(48, 2)}`, "anthropic-key"],
    [`sk-ant-${alnum(30, 3)}`, "anthropic-key"],
    ["aws id AKIAIOSFODNN7EXAMPLE", "aws-access-key-id"],
    ["temporary creds ASIAY34FZKBOKMUTVV7A", "aws-access-key-id"],
    ["aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws-secret-access-key"],
    ['"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"', "aws-secret-access-key"],
    [`GH_TOKEN=ghp_${alnum(36, 4)}`, "github-token"],
    [`gho_${alnum(36, 5)}`, "github-token"],
    [`ghs_${alnum(36, 6)}`, "github-token"],
    [`github_pat_11${alnum(20, 7)}_${alnum(59, 8)}`, "github-token"],
    [`glpat-${alnum(20, 9)}`, "gitlab-token"],
    ["SLACK_BOT_TOKEN=xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp", "slack-token"],
    ["xoxp-2718281828-3141592653-aBcDeFgHiJ", "slack-token"],
    [`sk_live_${alnum(24, 10)}`, "stripe-key"],
    [`rk_live_${alnum(24, 11)}`, "stripe-key"],
    [`sk_test_${alnum(24, 12)}`, "stripe-key"],
    [`maps key AIza${alnum(35, 13)}`, "google-api-key"],
    [
      "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." +
        "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ." +
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
      "jwt"
    ],
    ["-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA", "private-key"],
    ["-----BEGIN PRIVATE KEY-----", "private-key"],
    ["-----BEGIN ENCRYPTED PRIVATE KEY-----", "private-key"],
    ["-----BEGIN OPENSSH PRIVATE KEY-----", "private-key"],
    ["-----BEGIN EC PRIVATE KEY-----", "private-key"],
    ["-----BEGIN PGP PRIVATE KEY BLOCK-----", "private-key"],
    ["Authorization: Bearer abcdef0123456789ABCDEF.xyz", "bearer-token"],
    [`curl -H "Authorization: Bearer ${alnum(32, 14)}"`, "bearer-token"],
    ["bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0", "bearer-token"],
    ["DATABASE_URL=postgres://admin:s3cr3t-P4ss@db.internal:5432/app", "url-password"],
    ["https://deploy:hunter2@git.example.com/repo.git", "url-password"],
    ["redis://:p4ssw0rd@cache:6379", "url-password"]
  ],
  nearMisses: [
    "Bearer token goes in the Authorization header",
    "sk- prefixed keys are OpenAI's",
    "the /sk-verify endpoint checks signatures",
    `sk-${"a".repeat(19)}`,
    "postgres://localhost:5432/db",
    "https://user@host",
    "Authorization: Bearer YOUR_ACCESS_TOKEN_HERE",
    "postgres://app:${PGPASSWORD}@db:5432/app",
    "redis://:****@cache:6379",
    "git@github.com:acme/app.git is the SSH remote.",
    "ssh://git@github.com:22/acme/app.git",
    "pk_live_ keys are publishable and safe in the browser.",
    "-----BEGIN CERTIFICATE----- blocks go in certs/ca.pem",
    "-----BEGIN PUBLIC KEY----- is the header of the verification key.",
    "sk-your-openai-api-key-here is the placeholder in .env.example.",
    "AKIA prefixes mark long-lived AWS access key IDs.",
    "GitHub fine-grained tokens start with github_pat_.",
    "JWTs have three base64url parts separated by dots."
  ]
}
