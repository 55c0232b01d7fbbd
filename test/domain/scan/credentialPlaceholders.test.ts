import { describe, expect, it } from "vitest"
import { credentialCodes } from "../../../src/domain/scan/credentials.js"

/**
 * The placeholder rules pass documentation ("postgres://app:${PGPASSWORD}@db", "sk-your-openai-api-key-here")
 * only when the whole secret is a placeholder: a real password or key that merely contains one is still refused.
 */
describe("credential placeholders are whole placeholders, never part of a secret", () => {
  it("a URL password made only of a placeholder passes", () => {
    for (const placeholder of [
      "${PGPASSWORD}",
      "$PGPASSWORD",
      "$(pass show db)",
      "{{password}}",
      "%PASS%",
      "****",
      "xxxx",
      "XXXX",
      "...",
      "…"
    ])
      expect(credentialCodes(`postgres://app:${placeholder}@db.internal:5432/app`), placeholder).toEqual([])
  })

  it("a real URL password that starts, ends or is padded with a placeholder's shape is refused", () => {
    for (const password of [
      "hunter2${X}",
      "${X}hunter2",
      "s3cr3t****",
      "****s3cr3t",
      "xxxxTr0ub4dor",
      "Tr0ub4dor...",
      "{{a}}Zq9pw",
      "%P%Zq9pw"
    ])
      expect(credentialCodes(`postgres://app:${password}@db.internal:5432/app`), password).toEqual(["url-password"])
  })

  it("a wordy key placeholder passes; a random key with wordy parts in it is refused", () => {
    expect(credentialCodes("export OPENAI_API_KEY=sk-your-openai-api-key-here")).toEqual([])
    expect(credentialCodes("Authorization: Bearer YOUR_ACCESS_TOKEN_HERE")).toEqual([])
    for (const key of [
      "sk-Zq9fT2xLm4Rb7Kp1Wc8Vd3-your-key-here",
      "sk-your-openai-api-key-here-Zq9fT2xLm4Rb7Kp1",
      "sk-proj-Zq9fT2xLm4Rb7Kp1Wc8Vd3Ns6"
    ])
      expect(credentialCodes(`export OPENAI_API_KEY=${key}`), key).toEqual(["openai-key"])
    expect(credentialCodes("Authorization: Bearer YOUR_TOKEN_Zq9fT2xLm4Rb7Kp1Wc8")).toEqual(["bearer-token"])
  })
})
