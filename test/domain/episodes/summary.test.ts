import { describe, expect, it } from "vitest"
import {
  capSummary,
  CONVERSATIONAL_OPENINGS,
  DECLINE_OPENINGS,
  indexPreview,
  isDecline,
  looksLikeEpisode
} from "../../../src/domain/episodes/summary.js"
import { utf8Bytes } from "../../../src/domain/text/utf8.js"

const filler = (bytes: number) => "x".repeat(bytes)

describe("capSummary (§4.3)", () => {
  it("keeps a summary of at most 2,048 bytes unchanged", () => {
    const exact = "€".repeat(682) + "ab"
    expect(utf8Bytes(exact)).toBe(2048)
    expect(capSummary(exact)).toBe(exact)
    expect(capSummary("  The user asked.  ")).toBe("  The user asked.  ")
  })

  it("cuts after the last sentence end in the second half of the window", () => {
    const first = `The user asked to fix the parser. ${"The agent changed lexer.go and more. ".repeat(40)}`
    const text = `${first}${"Then it wrote a long tail without end ".repeat(40)}`
    const out = capSummary(text)
    expect(out.endsWith("and more.")).toBe(true)
    expect(text.startsWith(out)).toBe(true)
    expect(utf8Bytes(out)).toBeGreaterThan(1024)
    expect(utf8Bytes(out)).toBeLessThanOrEqual(2048)
  })

  it("accepts `!` and `?` as sentence ends, and one followed by the end of the full text", () => {
    const a = `${filler(1500)} done! ${filler(1000)}`
    expect(capSummary(a)).toBe(`${filler(1500)} done!`)
    const b = `${filler(1500)} why? ${filler(1000)}`
    expect(capSummary(b)).toBe(`${filler(1500)} why?`)
  })

  it("takes a terminator on the window's last byte only when whitespace follows it in the full text", () => {
    const base = `${filler(1500)} ${filler(546)}.` // terminator is byte 2048
    expect(utf8Bytes(base)).toBe(2048)
    expect(capSummary(`${base} more text`)).toBe(base)
    // followed by a letter it is no sentence end: fall back to the word break at byte 1500
    expect(capSummary(`${base}x more`)).toBe(`${filler(1500)}…`)
  })

  it("needs the sentence end strictly beyond 1,024 bytes", () => {
    const at1024 = `${filler(1023)}. ${"y".repeat(1500)}`
    expect(capSummary(at1024)).toBe(`${filler(1023)}. ${"y".repeat(2045 - 1025)}…`)
    const at1025 = `${filler(1024)}. ${"y".repeat(1500)}`
    expect(capSummary(at1025)).toBe(`${filler(1024)}.`)
  })

  it("does not collapse on early sentence ends such as e.g. and v1.2", () => {
    const text = `The agent upgraded e.g. the v1.2 parser. ${"and then changed many more files ".repeat(100)}`
    const out = capSummary(text)
    expect(out.endsWith("…")).toBe(true)
    expect(utf8Bytes(out)).toBeGreaterThan(1024)
    expect(utf8Bytes(out)).toBeLessThanOrEqual(2048)
    // cut at the last word break: the kept text ends on a whole word
    expect(out).toMatch(/ (and|then|changed|many|more|files)…$/)
    expect(text.startsWith(out.slice(0, -1))).toBe(true)
  })

  it("hard-cuts at a rune boundary when the only sentence end is early and no word break follows", () => {
    const text = `Done. ${filler(3000)}`
    expect(capSummary(text)).toBe(`Done. ${filler(2039)}…`)
    expect(utf8Bytes(capSummary(text))).toBe(2048)
  })

  it("never splits a multi-byte character", () => {
    const euro = capSummary(`Done. ${"€".repeat(1000)}`)
    expect(euro).toBe(`Done. ${"€".repeat(679)}…`)
    expect(utf8Bytes(euro)).toBe(2046)
    const emoji = capSummary(`${"😀".repeat(600)}`)
    expect(emoji).toBe(`${"😀".repeat(511)}…`)
    expect(utf8Bytes(emoji)).toBe(2047)
  })

  it("replaces lone surrogates, which UTF-8 cannot hold", () => {
    expect(capSummary("a\ud800b")).toBe("a\ufffdb")
  })
})

describe("indexPreview (§4.4)", () => {
  it("keeps a summary of exactly 120 bytes", () => {
    const s = `${"é".repeat(59)}ab`
    expect(utf8Bytes(s)).toBe(120)
    expect(indexPreview(s)).toBe(s)
  })

  it("cuts 121 bytes to 117 + `...`", () => {
    const s = `${"a".repeat(117)}bcde`
    expect(indexPreview(s)).toBe(`${"a".repeat(117)}...`)
    expect(utf8Bytes(indexPreview(s))).toBe(120)
  })

  it("never splits a multi-byte character at the cut", () => {
    expect(indexPreview(`${"a".repeat(116)}€${"b".repeat(10)}`)).toBe(`${"a".repeat(116)}...`)
    expect(indexPreview(`${"a".repeat(115)}😀${"b".repeat(10)}`)).toBe(`${"a".repeat(115)}...`)
    expect(indexPreview(`${"a".repeat(114)}€${"b".repeat(10)}`)).toBe(`${"a".repeat(114)}€...`)
    expect(indexPreview("é".repeat(61))).toBe(`${"é".repeat(58)}...`)
  })
})

describe("isDecline (§3.5.2)", () => {
  it("declines NONE in any case with an optional single period", () => {
    for (const r of ["NONE", "none", "None", "nOnE", "NONE.", "none.", "  NONE \n", "None."])
      expect(isDecline(r)).toBe(true)
  })

  it("declines a reply opening with the upper-case word NONE", () => {
    for (const r of [
      "NONE - nothing worth remembering",
      "NONE: trivial session",
      "NONE\nThe session was empty.",
      "NONE, just chat",
      "NONE!",
      "NONE…"
    ])
      expect(isDecline(r)).toBe(true)
  })

  it("does not decline other replies", () => {
    for (const r of [
      "NONEXISTENT files were removed.",
      "none - nothing",
      "None of the tests failed.",
      "none..",
      "NONE2",
      "",
      "The user asked."
    ])
      expect(isDecline(r)).toBe(false)
  })
})

describe("looksLikeEpisode (§3.5.3)", () => {
  it("accepts a third-person past-tense record", () => {
    expect(
      looksLikeEpisode(
        "The user asked to fix the tokenizer crash; the agent patched lexer.go and added regression tests."
      )
    ).toBe(true)
  })

  it("rejects empty replies and declines", () => {
    for (const r of ["", "  \n", "NONE", "none.", "NONE - nothing"]) expect(looksLikeEpisode(r)).toBe(false)
  })

  it("rejects every refusal opening, in any case", () => {
    expect(DECLINE_OPENINGS).toHaveLength(15)
    for (const p of DECLINE_OPENINGS) {
      expect(looksLikeEpisode(`${p} summarize this session.`)).toBe(false)
      expect(looksLikeEpisode(`${p.toUpperCase()}, sadly.`)).toBe(false)
      expect(looksLikeEpisode(`${p.toLowerCase()}`)).toBe(false)
    }
  })

  it("rejects every conversational opening, in any case", () => {
    expect(CONVERSATIONAL_OPENINGS).toHaveLength(27)
    for (const p of CONVERSATIONAL_OPENINGS) {
      expect(looksLikeEpisode(`${p} the session went well.`)).toBe(false)
      expect(looksLikeEpisode(`${p.toLowerCase()}! The agent fixed it.`)).toBe(false)
    }
    expect(looksLikeEpisode("Picking this back up, the parser now works.")).toBe(false)
    expect(looksLikeEpisode("Let me know if anything else breaks.")).toBe(false)
    expect(looksLikeEpisode("OK, the agent fixed the parser.")).toBe(false)
  })

  it("matches curly apostrophes like straight ones", () => {
    expect(looksLikeEpisode("I’m sorry, I can’t help with that.")).toBe(false)
    expect(looksLikeEpisode("Here’s what happened in the session.")).toBe(false)
  })

  it("needs each phrase to end a word", () => {
    for (const r of [
      "Surefire reports were added to the build.",
      "Hibernate mappings were fixed by the agent.",
      "Heyday of the parser: the agent rewrote it.",
      "Greatly simplified the lexer; tests passed.",
      "Okayama office config was updated.",
      "Thanksgiving dates were added to the calendar module.",
      "Hiring data was migrated by the agent.",
      "Nothingness.go was deleted by the agent.",
      "OK the agent fixed the build.",
      "Sorrys were removed from the strings file."
    ])
      expect(looksLikeEpisode(r)).toBe(true)
  })

  it("rejects an opening that addresses the reader", () => {
    for (const r of [
      "The fix you asked for was merged.",
      "The agent fixed your parser.",
      "The agent noted you're on Go 1.22.",
      "The agent checked what you've changed.",
      "The agent said you'll need to rerun tests.",
      "The agent asked to do it yourself.",
      "The agent fixed the bug for YOU!",
      "The agent fixed it for you"
    ])
      expect(looksLikeEpisode(r)).toBe(false)
  })

  it("ignores `you` after the first sentence, inside other words, or beyond 200 bytes", () => {
    expect(looksLikeEpisode("The user asked to fix the layout. The agent said you can now rebuild.")).toBe(true)
    expect(looksLikeEpisode("The user asked about layout! Then you can rebuild.")).toBe(true)
    expect(looksLikeEpisode("The youth module and bayou.go were renamed; yours.txt was kept.")).toBe(true)
    expect(looksLikeEpisode(`The agent ${"reworked the parser and ".repeat(9)}then you reviewed it`)).toBe(true)
    // a period not followed by whitespace (v1.2, e.g.x) does not end the opening
    expect(looksLikeEpisode("The agent bumped v1.2 so you can upgrade.")).toBe(false)
  })
})
