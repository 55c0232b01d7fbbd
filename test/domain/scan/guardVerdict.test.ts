import fc from "fast-check"
import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  DEFAULT_GUARD_LABEL,
  GUARD_LABEL_MAX,
  GuardRecord,
  GuardVerdict,
  guardLabel,
  guardOutcome,
  injectionDetectedMessage,
  sidecarUnavailableMessage
} from "../../../src/domain/scan/guardVerdict.js"

const withFallback = { provider: "http", fallbackToLocal: true } as const
const strict = { provider: "http", fallbackToLocal: false } as const
const down = Either.left({ reason: "cannot reach http://127.0.0.1:9/v1/scan: connection refused" })

describe("guardOutcome (spec facts §7.1 step 5)", () => {
  it("an injected verdict refuses with the label and the score to three decimals, fallback or not", () => {
    const injected = Either.right({ verdict: "injected", label: "INJECTION", score: 0.99 } as const)
    for (const policy of [withFallback, strict]) {
      expect(guardOutcome(injected, policy)).toStrictEqual({
        _tag: "GuardRefused",
        code: "guard-injection",
        label: "INJECTION",
        message: "memory: injection detected (INJECTION, score 0.990)",
        record: { provider: "http", verdict: "injected", label: "INJECTION", score: 0.99 }
      })
    }
    const rounded = guardOutcome(Either.right({ verdict: "injected", label: "jailbreak", score: 0.12345 }), strict)
    expect(rounded._tag === "GuardRefused" && rounded.message).toBe(
      "memory: injection detected (jailbreak, score 0.123)"
    )
  })

  it("a clean verdict accepts and records the score when there is one", () => {
    expect(guardOutcome(Either.right({ verdict: "clean", score: 0.02 }), strict)).toStrictEqual({
      _tag: "GuardAccepted",
      record: { provider: "http", verdict: "clean", score: 0.02 }
    })
    expect(guardOutcome(Either.right({ verdict: "clean" }), { provider: "llm", fallbackToLocal: true })).toStrictEqual({
      _tag: "GuardAccepted",
      record: { provider: "llm", verdict: "clean" }
    })
  })

  it("a failed guard accepts with fallback_to_local and says so in the record", () => {
    expect(guardOutcome(down, withFallback)).toStrictEqual({
      _tag: "GuardAccepted",
      record: { provider: "http", verdict: "unavailable", fallback: true }
    })
  })

  it("a failed guard without fallback_to_local refuses with `memory: sidecar unavailable: <err>`", () => {
    expect(guardOutcome(down, strict)).toStrictEqual({
      _tag: "GuardRefused",
      code: "guard-unavailable",
      label: "sidecar unavailable",
      message: "memory: sidecar unavailable: cannot reach http://127.0.0.1:9/v1/scan: connection refused",
      record: { provider: "http", verdict: "unavailable" }
    })
  })

  it("a label that would break the one-line message is cleaned, never turned into a pass", () => {
    const outcome = guardOutcome(
      Either.right({ verdict: "injected", label: "evil\nlabel\u200b\u0007 " + "x".repeat(200), score: 1 }),
      withFallback
    )
    expect(outcome._tag).toBe("GuardRefused")
    expect(outcome._tag === "GuardRefused" && outcome.message).toMatch(
      /^memory: injection detected \(evil label x+, score 1\.000\)$/
    )
    expect(guardOutcome(Either.right({ verdict: "injected", label: " \n", score: 0.5 }), strict)).toMatchObject({
      message: `memory: injection detected (${DEFAULT_GUARD_LABEL}, score 0.500)`
    })
  })

  it("message helpers match the spec's wording", () => {
    expect(injectionDetectedMessage("INJECTION", 0)).toBe("memory: injection detected (INJECTION, score 0.000)")
    expect(injectionDetectedMessage("INJECTION", 0.9995)).toBe("memory: injection detected (INJECTION, score 1.000)")
    expect(sidecarUnavailableMessage("timeout")).toBe("memory: sidecar unavailable: timeout")
  })

  it("records survive a JSON round-trip and refuse what the schema does not allow", () => {
    const Json = Schema.parseJson(GuardRecord)
    const record = { provider: "llm", verdict: "unavailable", fallback: true } as const
    expect(Schema.decodeSync(Json)(Schema.encodeSync(Json)(record))).toStrictEqual(record)
    expect(Schema.decodeUnknownEither(GuardRecord)({ provider: "http", verdict: "maybe" })._tag).toBe("Left")
    expect(Schema.decodeUnknownEither(GuardVerdict)({ verdict: "injected", label: "x", score: 1.5 })._tag).toBe("Left")
    expect(Schema.decodeUnknownEither(GuardVerdict)({ verdict: "injected", label: "a\nb", score: 0.5 })._tag).toBe(
      "Left"
    )
  })
})

describe("guardLabel", () => {
  it("always yields a label the verdict schema accepts", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary" }), fc.fullUnicodeString()), (raw) => {
        const label = guardLabel(raw)
        expect(Schema.decodeUnknownEither(GuardVerdict)({ verdict: "injected", label, score: 0.5 })._tag).toBe("Right")
        expect([...label].length).toBeLessThanOrEqual(GUARD_LABEL_MAX)
      }),
      { numRuns: 1000 }
    )
  })
})
