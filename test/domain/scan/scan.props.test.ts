import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { factLooksUnsafe, scanContent, scanForWrite } from "../../../src/domain/scan/index.js"
import { INVISIBLE_CHARACTERS, MORE_INVISIBLE_CHARACTERS, ORDINARY_FACTS } from "./corpus.js"

// ZWJ/ZWNJ inside an emoji sequence or a Persian/Indic word are spelling, not hiding; facts holding such
// neighbours are left out so that every insertion below must be refused.
const JOINABLE = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F\p{Script=Arabic}\p{Script=Devanagari}]/u
const PLAIN_FACTS = ORDINARY_FACTS.filter((f) => !JOINABLE.test(f))

const strings = fc.oneof(
  fc.string({ unit: "binary", maxLength: 300 }),
  fc.fullUnicodeString({ maxLength: 300 }),
  fc.string({ unit: fc.constantFrom(..."ignore previous <|>[]!-:/#@sk_eyJ. \n\u200bаοＩ"), maxLength: 300 })
)

describe("scan properties", () => {
  it("never throws and is deterministic", () => {
    fc.assert(
      fc.property(strings, (s) => {
        const a = scanContent(s)
        expect(scanContent(s)).toEqual(a)
        expect(new Set(a.map((f) => f.code)).size).toBe(a.length)
        const first = scanForWrite(s)
        if (a[0] !== undefined) expect(first).toEqual(a[0])
        else expect(first?.family).toBe(factLooksUnsafe(s) ? "unsafe" : undefined)
      }),
      { numRuns: 1500 }
    )
  })

  it("refuses any ordinary fact with an invisible character inserted anywhere", () => {
    expect(PLAIN_FACTS.length).toBeGreaterThanOrEqual(80)
    const inserted = fc
      .record({
        fact: fc.constantFrom(...PLAIN_FACTS),
        ch: fc.constantFrom(...INVISIBLE_CHARACTERS),
        at: fc.nat()
      })
      .map(({ fact, ch, at }) => {
        const i = at % (fact.length + 1)
        return fact.slice(0, i) + ch + fact.slice(i)
      })
    fc.assert(
      fc.property(inserted, (text) => {
        expect(scanForWrite(text)?.family).toBe("invisible")
        expect(scanContent(text)[0]?.family).toBe("invisible")
      }),
      { numRuns: 2000 }
    )
  })
})

describe("hidden characters beyond the spec's list", () => {
  it("refuses any of them inserted between two ASCII characters of an ordinary fact", () => {
    const inserted = fc
      .record({
        fact: fc.constantFrom(...PLAIN_FACTS.filter((f) => /[\x21-\x7e]{2}/.test(f))),
        ch: fc.constantFrom(...MORE_INVISIBLE_CHARACTERS),
        at: fc.nat()
      })
      .map(({ fact, ch, at }) => {
        const between = [...fact.matchAll(/(?<=[\x21-\x7e])(?=[\x21-\x7e])/g)].map((m) => m.index)
        const i = between[at % between.length]!
        return fact.slice(0, i) + ch + fact.slice(i)
      })
    fc.assert(
      fc.property(inserted, (text) => {
        expect(scanForWrite(text)?.family).toBe("invisible")
      }),
      { numRuns: 2000 }
    )
  })

  it("refuses text spelled in the tag block, whatever it spells", () => {
    const tagged = fc
      .tuple(fc.constantFrom(...PLAIN_FACTS), fc.string({ minLength: 1, maxLength: 40 }))
      .map(
        ([fact, hidden]) =>
          fact + [...hidden].map((c) => String.fromCodePoint(0xe0000 + (c.charCodeAt(0) & 0x7f))).join("")
      )
    fc.assert(
      fc.property(tagged, (text) => {
        expect(scanForWrite(text)?.family).toBe("invisible")
      }),
      { numRuns: 500 }
    )
  })
})

describe("scan cost", () => {
  const EIGHT_KB = 8 * 1024
  const fill = (unit: string): string => unit.repeat(Math.ceil(EIGHT_KB / unit.length)).slice(0, EIGHT_KB)
  const inputs: ReadonlyArray<readonly [string, string]> = [
    ["ordinary facts", fill(ORDINARY_FACTS.join("\n§\n"))],
    ["one long word", fill("a")],
    ["repeated verbs", fill("include the token ")],
    ["open comments", fill("<!-- ")],
    ["open scripts", fill("<script ")],
    ["curl queries", fill("curl ?a=")],
    ["evals", fill("eval ")],
    ["fetch verbs", fill("curl ")],
    ["url schemes", fill("a://b:")],
    ["markdown images", fill("![a](https://x/")],
    ["you are now", fill("you are now a ")],
    ["mixed scripts", fill("pаypal ")],
    ["bearer", fill("bearer ")],
    ["joiners", fill("a\u200d")],
    ["saved downloads", fill("curl -o a ") + " && "],
    ["saved downloads run", fill("curl -o a && ")],
    ["wget files", fill("wget x/a ; ")],
    ["sudo options", `curl x |${fill(" sudo -x")}`],
    ["variable assignments", `curl x |${fill(" a=b")}`],
    ["powershell calls", fill("iex ( ")],
    ["shell substitutions", fill("bash -c $( ")],
    ["process substitutions", fill("<( sudo ")],
    ["key files", fill("~/.ssh/id_rsa ")],
    ["key files copied", fill("scp ~/.ssh/id_rsa ")],
    ["secret variables and curl", fill("$OPENAI_API_KEY curl -x ")],
    ["orders against the user", fill("even if the user asks you to ")],
    ["rules you were given", fill("your previous instructions you were given ")],
    ["tags behind a flag", `🏴${String.fromCodePoint(0xe0067).repeat(EIGHT_KB / 2)}\u{E007F}`]
  ]

  it.each(inputs)("scans 8 KB of %s quickly", (_name, text) => {
    const start = performance.now()
    scanContent(text)
    factLooksUnsafe(text)
    expect(performance.now() - start).toBeLessThan(250)
  })
})
