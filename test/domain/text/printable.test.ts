import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { printable, printableLines } from "../../../src/domain/text/printable.js"

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u
const controls = ["\n", "\r", "\t", "\u001b", "\u0000", "\u007f", "\u009b", "\u2028", "\u202e", "\u2066"]
// half the characters are the troublesome ones, so most strings carry several
const text = fc.string({
  unit: fc.oneof(fc.constantFrom(...controls), fc.constantFrom("a", " ", "é", "王", "[", "3", "m", "u")),
  minLength: 1,
  maxLength: 40
})

describe("printable (what the CLI lets reach a terminal)", () => {
  it("escapes escape sequences and line breaks, visibly", () => {
    expect(printable("a\nb")).toBe("a\\nb")
    expect(printable("\u001b[31mred\u001b[0m")).toBe("\\u001b[31mred\\u001b[0m")
    expect(printable("x\r\ty\u202e")).toBe("x\\r\\ty\\u202e")
    expect(printable("Prefers 王伟 — é")).toBe("Prefers 王伟 — é")
    expect(printableLines("one\ntwo\u001b")).toBe("one\ntwo\\u001b")
  })

  it("leaves no control character, keeps every other one, and is one line", () => {
    let withControls = 0
    fc.assert(
      fc.property(text, (s) => {
        if (CONTROL.test(s)) withControls++
        const out = printable(s)
        expect(CONTROL.test(out)).toBe(false)
        // with the escapes taken out, exactly the printable characters remain, in order
        expect(out.replace(/\\(n|r|t|u[0-9a-f]{4})/g, "")).toBe([...s].filter((c) => !CONTROL.test(c)).join(""))
        const lines = printableLines(s).split("\n")
        expect(lines.length).toBe(s.split("\n").length)
        for (const l of lines) expect(CONTROL.test(l)).toBe(false)
      }),
      { numRuns: 500 }
    )
    expect(withControls).toBeGreaterThan(400)
  })
})
