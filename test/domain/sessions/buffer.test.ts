import { describe, expect, it } from "vitest"
import { bufferLine, pushLine, restoreLines, summariseForBuffer } from "../../../src/domain/sessions/buffer.js"
import { hasLoneSurrogate, runeCount } from "../../../src/domain/text/utf8.js"

const summarise = summariseForBuffer
const words = (n: number, word = "word") => Array.from({ length: n }, () => word).join(" ")

describe("summariseForBuffer — step 1: fenced code blocks", () => {
  it("removes a fence spanning lines, language tag and blank lines included", () => {
    expect(summarise("Before\n```ts\nconst x = 1\n\nreturn x\n```\nAfter")).toBe("Before After")
  })

  it("pairs fences lazily, so text between two blocks survives", () => {
    expect(summarise("a\n```\nx\n```\nb\n```\ny\n```\nc")).toBe("a b c")
  })

  it("a message that is only a fence becomes [code]", () => {
    expect(summarise("```\nrm -rf build\n```")).toBe("[code]")
    expect(summarise("  \n```js\nx()\n```\n\n```\ny\n```\n")).toBe("[code]")
  })

  it("a fence with only markup around it still becomes [code]", () => {
    expect(summarise("- ```sh\nls\n```")).toBe("[code]")
  })

  it("without a fence, an empty result stays empty", () => {
    expect(summarise("")).toBe("")
    expect(summarise(" \n\t\r\n ")).toBe("")
    expect(summarise("``")).toBe("")
  })

  it("removes a fence inside a line without leaving a space", () => {
    expect(summarise("a```x```b")).toBe("ab")
  })

  it("leaves an unclosed fence's text, dropping only its backticks", () => {
    expect(summarise("see ```code here")).toBe("see code here")
  })
})

describe("summariseForBuffer — step 2: inline code", () => {
  it("keeps the inner text of inline code", () => {
    expect(summarise("Run `npm test` then `git push`")).toBe("Run npm test then git push")
  })

  it("drops leftover backticks", () => {
    expect(summarise("a ` stray and a `` double")).toBe("a stray and a double")
  })
})

describe("summariseForBuffer — step 3: images and links", () => {
  it("![alt](url) → alt", () => {
    expect(summarise("See ![the diagram](http://x.test/d.png) here")).toBe("See the diagram here")
  })

  it("[text](url) → text", () => {
    expect(summarise("Read [the docs](https://e.test/a_b?q=1) first")).toBe("Read the docs first")
  })

  it("replaces images before links, so no `!` is left over", () => {
    expect(summarise("![alt](u)")).toBe("alt")
    expect(summarise("[![logo](l.png)](https://e.test)")).toBe("logo")
  })

  it("leaves brackets that are not a link", () => {
    expect(summarise("[x] done and [y] (later)")).toBe("[x] done and [y] (later)")
  })

  it("inline code inside link text is unwrapped first", () => {
    expect(summarise("[`Effect.gen`](https://effect.website)")).toBe("Effect.gen")
  })
})

describe("summariseForBuffer — step 4: line markers and bold", () => {
  it.each([
    ["# Title", "Title"],
    ["## Sub", "Sub"],
    ["###### Six", "Six"],
    ["> quoted", "quoted"],
    ["- item", "item"],
    ["* item", "item"],
    ["+ item", "item"],
    ["3. third", "third"],
    ["12. twelfth", "twelfth"],
    ["#\ttabbed heading", "tabbed heading"],
    ["-\ttabbed item", "tabbed item"],
    ["7.\ttabbed number", "tabbed number"],
    ["  - indented item", "indented item"]
  ])("strips %j", (input, expected) => {
    expect(summarise(input)).toBe(expected)
  })

  it.each([
    ["####### seven hashes", "####### seven hashes"],
    ["#hashtag", "#hashtag"],
    ["-5 degrees", "-5 degrees"],
    ["1.5 litres", "1.5 litres"],
    ["*emphasis* first", "*emphasis* first"],
    [">quote without space", ">quote without space"],
    ["a - b # c > d", "a - b # c > d"]
  ])("keeps %j (no marker followed by a space or tab at line start)", (input, expected) => {
    expect(summarise(input)).toBe(expected)
  })

  it("strips a marker on every line", () => {
    expect(summarise("Steps:\n1. one\n2. two\n- three\n\t* four\n> five\n### six")).toBe(
      "Steps: one two three four five six"
    )
  })

  it("strips one marker per line", () => {
    expect(summarise("> - nested")).toBe("- nested")
  })

  it("unwraps **bold** and __bold__", () => {
    expect(summarise("**Bold** and __strong__ text")).toBe("Bold and strong text")
    expect(summarise("* **Note**: read __this__")).toBe("Note: read this")
  })

  it("keeps single * and _", () => {
    expect(summarise("*em* and _em_ and snake_case and 2*3")).toBe("*em* and _em_ and snake_case and 2*3")
  })

  it("does not pair bold markers across lines", () => {
    expect(summarise("a**\nb**")).toBe("a** b**")
  })
})

describe("summariseForBuffer — step 5: whitespace", () => {
  it("collapses every run of whitespace, Unicode spaces included, and trims", () => {
    expect(summarise("  a \t\n\n  b\r\nc\u00a0d\u3000e\u2028f  ")).toBe("a b c d e f")
  })
})

describe("summariseForBuffer — step 7: filler clause", () => {
  it.each([
    ["Sure! Here it is.", "Here it is."],
    ["okay. Done", "Done"],
    ["OK, I updated the file. Tests pass.", "Tests pass."],
    ["Got it. Next step", "Next step"],
    ["Certainly! X", "X"],
    ["Of course. X", "X"],
    ["Alright? X", "X"],
    ["No problem! X", "X"],
    ["Sounds good. X", "X"],
    ["Absolutely. X", "X"],
    ["Great question! X", "X"],
    ["Happy to help. X", "X"],
    ["Glad to help! X", "X"],
    ["I'll help with that. X", "X"],
    ["Ill help. X", "X"],
    ["I can help with this! X", "X"],
    ["SURE. X", "X"],
    ["gOt It? X", "X"],
    ["Sure, the plan: step one. Then two.", "Then two."],
    ["Sure.Next", "Next"]
  ])("drops the clause of %j", (input, expected) => {
    expect(summarise(input)).toBe(expected)
  })

  it.each([
    "Surely this works. Yes",
    "Okayish. X",
    "Oklahoma is big. X",
    "Greatest hits. X",
    "Certainlyy. X",
    "I'll helpfully note. X",
    "Ill-advised. X",
    "Yes, sure. X",
    "Sure thing, here it is"
  ])("keeps %j (no opener at a word boundary, not leading, or no sentence end)", (input) => {
    expect(summarise(input)).toBe(input)
  })

  it("keeps a filler clause that is the whole message", () => {
    expect(summarise("Sure.")).toBe("Sure.")
    expect(summarise("  Okay!  \n")).toBe("Okay!")
    expect(summarise("Sure!\n```\ncode\n```")).toBe("Sure!")
  })

  it("drops only the first clause, so summarising is not idempotent", () => {
    expect(summarise("Sure. Okay. Text")).toBe("Okay. Text")
    expect(summarise(summarise("Sure. Okay. Text"))).toBe("Text")
  })

  it("sees the clause once markup is gone", () => {
    expect(summarise("**Sure!** Here")).toBe("Here")
  })
})

describe("summariseForBuffer — step 8: 200-rune cut", () => {
  it("keeps exactly 200 runes uncut", () => {
    expect(summarise("a".repeat(200))).toBe("a".repeat(200))
  })

  it("measures after the filler clause is dropped", () => {
    expect(summarise(`Sure! ${"a".repeat(200)}`)).toBe("a".repeat(200))
  })

  it("hard-cuts at 200 when there is no space", () => {
    expect(summarise("a".repeat(201))).toBe(`${"a".repeat(200)}…`)
  })

  it("cuts after the last sentence end when that keeps at least 100 runes", () => {
    const first = `${"x".repeat(119)}.`
    expect(summarise(`${first} ${words(40)}`)).toBe(`${first}…`)
  })

  it("accepts a sentence end that keeps exactly 100 runes, and ! or ? as well", () => {
    expect(summarise(`${"x".repeat(99)}! ${words(40)}`)).toBe(`${"x".repeat(99)}!…`)
    expect(summarise(`${"x".repeat(149)}? ${words(40)}`)).toBe(`${"x".repeat(149)}?…`)
  })

  it("takes the last sentence end among the first 200 runes", () => {
    const text = `${"x".repeat(110)}. ${"y".repeat(40)}. ${"z".repeat(100)}`
    expect(summarise(text)).toBe(`${"x".repeat(110)}. ${"y".repeat(40)}.…`)
  })

  it("falls back to the last space when the sentence end would keep fewer than 100 runes", () => {
    // "Hi. " + 196 runes of "word word …": the last space in the first 200 runes is at index 198
    expect(summarise(`Hi. ${words(60)}`)).toBe(`Hi. ${words(39)}…`)
    expect(summarise(`${"x".repeat(98)}. ${words(40)}`)).toBe(`${"x".repeat(98)}. ${words(20)}…`)
  })

  it("cuts at the last space even when a word ends exactly at rune 200", () => {
    const group = "🎉🎉🎉"
    expect(summarise(`${group} `.repeat(80))).toBe(`${`${group} `.repeat(49)}${group}…`)
  })

  it("ignores sentence ends past rune 200", () => {
    expect(summarise(`${words(50)}. More`)).toBe(`${words(40)}…`)
  })

  it("counts runes, not UTF-16 units, and never splits a code point", () => {
    expect(summarise("😀".repeat(150))).toBe("😀".repeat(150))
    const cut = summarise("😀".repeat(250))
    expect(cut).toBe(`${"😀".repeat(200)}…`)
    expect(hasLoneSurrogate(cut)).toBe(false)
    expect(summarise(`a${"😀".repeat(300)}`)).toBe(`a${"😀".repeat(199)}…`)
    expect(summarise("é".repeat(250))).toBe(`${"é".repeat(200)}…`)
    expect(summarise("漢字".repeat(150))).toBe(`${"漢字".repeat(100)}…`)
  })

  it("may split a grapheme cluster but not a rune", () => {
    const family = "👨‍👩‍👧" // 5 runes: man, ZWJ, woman, ZWJ, girl
    const out = summarise(family.repeat(41)) // 205 runes, 200 = 40 families
    expect(out).toBe(`${family.repeat(40)}…`)
    const offset = summarise(`ab${family.repeat(41)}`)
    expect(offset).toBe(`ab${family.repeat(39)}👨‍👩…`)
    expect(hasLoneSurrogate(offset)).toBe(false)
  })

  it("is at most 201 runes", () => {
    for (const text of [
      "a".repeat(5000),
      `${words(999)}.`,
      "😀 ".repeat(400),
      `${"x".repeat(150)}. ${"y".repeat(300)}`
    ]) {
      expect(runeCount(summarise(text))).toBeLessThanOrEqual(201)
    }
  })
})

describe("summariseForBuffer — line sanitisation", () => {
  it("leaves no line breaks or tabs", () => {
    expect(summarise("line one\nline two\r\n\tthree")).toBe("line one line two three")
  })
})

describe("bufferLine", () => {
  it("formats HH:MM, two spaces, role, two spaces, summary", () => {
    expect(bufferLine({ hours: 9, minutes: 5 }, "user", "Hello")).toBe("09:05  user  Hello")
    expect(bufferLine({ hours: 23, minutes: 59 }, "agent", "**Done**: see `x`")).toBe("23:59  agent  Done: see x")
  })

  it("zero-pads midnight and keeps the separator when the summary is empty", () => {
    expect(bufferLine({ hours: 0, minutes: 0 }, "user", "")).toBe("00:00  user  ")
  })

  it("summarises the message", () => {
    expect(bufferLine({ hours: 12, minutes: 30 }, "agent", "```\nx\n```")).toBe("12:30  agent  [code]")
    expect(bufferLine({ hours: 7, minutes: 0 }, "agent", "a".repeat(300))).toBe(`07:00  agent  ${"a".repeat(200)}…`)
  })
})

describe("pushLine", () => {
  it("appends below capacity", () => {
    expect(pushLine([], "a", 3)).toEqual(["a"])
    expect(pushLine(["a"], "b", 3)).toEqual(["a", "b"])
  })

  it("evicts the oldest line when full", () => {
    expect(pushLine(["a", "b", "c"], "d", 3)).toEqual(["b", "c", "d"])
  })

  it("does not change the given lines", () => {
    const lines = ["a", "b"]
    pushLine(lines, "c", 2)
    expect(lines).toEqual(["a", "b"])
  })

  it("keeps the newest when the capacity shrank", () => {
    expect(pushLine(["a", "b", "c"], "d", 2)).toEqual(["c", "d"])
  })

  it("discards every append at capacity 0 or less", () => {
    expect(pushLine([], "a", 0)).toEqual([])
    expect(pushLine([], "a", -1)).toEqual([])
    expect(pushLine(["a"], "b", 0)).toEqual([])
  })

  it("replaces line breaks and tabs with one space each", () => {
    expect(pushLine([], "a\r\nb\tc", 5)).toEqual(["a  b c"])
  })

  it("keeps the default 20 lines after 25 appends", () => {
    const lines = Array.from({ length: 25 }, (_, i) => `l${i + 1}`).reduce<ReadonlyArray<string>>(
      (acc, l) => pushLine(acc, l, 20),
      []
    )
    expect(lines).toEqual(Array.from({ length: 20 }, (_, i) => `l${i + 6}`))
  })
})

describe("restoreLines", () => {
  const saved = Array.from({ length: 25 }, (_, i) => `${String(i).padStart(2, "0")}:00  user  line ${i + 1}`)

  it("restoring 25 lines into 20 keeps the last 20", () => {
    expect(restoreLines(saved, 20)).toEqual(saved.slice(5))
  })

  it("keeps all lines under capacity", () => {
    expect(restoreLines(saved.slice(0, 3), 20)).toEqual(saved.slice(0, 3))
    expect(restoreLines([], 20)).toEqual([])
  })

  it("restores verbatim, without summarising again", () => {
    const raw = [
      "10:00  user  **bold** `code` [t](u)",
      `10:01  agent  ${"a".repeat(400)}`,
      "Sure. free text   with  spaces"
    ]
    expect(restoreLines(raw, 20)).toEqual(raw)
  })

  it("replaces line breaks and tabs with one space each, without collapsing", () => {
    expect(restoreLines(["a\r\nb\tc\n\nd"], 20)).toEqual(["a  b c  d"])
  })

  it("restores nothing at capacity 0 or less", () => {
    expect(restoreLines(saved, 0)).toEqual([])
    expect(restoreLines(saved, -3)).toEqual([])
  })

  it("equals clearing and appending each saved line", () => {
    const withBreaks = [...saved, "x\ny", "p\tq"]
    expect(restoreLines(withBreaks, 20)).toEqual(
      withBreaks.reduce<ReadonlyArray<string>>((acc, l) => pushLine(acc, l, 20), [])
    )
  })
})
