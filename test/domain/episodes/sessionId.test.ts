import { describe, expect, it } from "vitest"
import { SESSION_ID_HINT, validSessionId } from "../../../src/domain/episodes/sessionId.js"

describe("validSessionId (§1.7)", () => {
  it("accepts real and unusual but harmless IDs", () => {
    for (const id of ["20260722-0f3c9a1b2c3d4e5f60718293a4b5c6d7", "abc", "a.b", ".hidden", "x.", "日本-1", "a b"])
      expect(validSessionId(id)).toBe(true)
  })

  it("rejects anything that could name another path", () => {
    for (const id of ["", ".", "..", "a/b", "/etc", "a\\b", "..\\x", "a..b", "x..", "..x", "a\0b", "\0"])
      expect(validSessionId(id)).toBe(false)
  })

  it("has a short hint naming the rules", () => {
    expect(SESSION_ID_HINT).toContain("..")
    expect(SESSION_ID_HINT.length).toBeLessThan(120)
  })
})
