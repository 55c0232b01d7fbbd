import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { absolutePath, cleanPath, insideRoot } from "../../../src/domain/sessions/paths.js"

describe("cleanPath (Go filepath.Clean on POSIX)", () => {
  // Go's own table for Clean, POSIX rows
  it.each([
    ["", "."],
    ["abc", "abc"],
    ["abc/def", "abc/def"],
    ["a/b/c", "a/b/c"],
    [".", "."],
    ["..", ".."],
    ["../..", "../.."],
    ["../../abc", "../../abc"],
    ["/abc", "/abc"],
    ["/", "/"],
    ["abc/", "abc"],
    ["abc/def/", "abc/def"],
    ["/abc/", "/abc"],
    ["./", "."],
    ["../", ".."],
    ["//abc", "/abc"],
    ["///abc", "/abc"],
    ["//abc//", "/abc"],
    ["abc//def//ghi", "abc/def/ghi"],
    ["abc/./def", "abc/def"],
    ["/./abc/def", "/abc/def"],
    ["abc/.", "abc"],
    ["abc/def/ghi/../jkl", "abc/def/jkl"],
    ["abc/def/../ghi/../jkl", "abc/jkl"],
    ["abc/def/..", "abc"],
    ["abc/def/../..", "."],
    ["/abc/def/../..", "/"],
    ["abc/def/../../..", ".."],
    ["/abc/def/../../..", "/"],
    ["abc/def/../../../ghi/jkl/../../../mno", "../../mno"],
    ["/../abc", "/abc"],
    ["abc/./../def", "def"],
    ["abc//./../def", "def"],
    ["abc/../../././../def", "../../def"]
  ])("%j → %j", (p, want) => {
    expect(cleanPath(p)).toBe(want)
  })

  it("is idempotent and never leaves empty, `.` or rooted `..` elements", () => {
    const segment = fc.constantFrom("", ".", "..", "a", "b", "~", "x.go")
    fc.assert(
      fc.property(fc.boolean(), fc.array(segment, { minLength: 1, maxLength: 12 }), (rooted, parts) => {
        const input = (rooted ? "/" : "") + parts.join("/")
        const cleaned = cleanPath(input)
        expect(cleanPath(cleaned)).toBe(cleaned)
        expect(cleaned.startsWith("/")).toBe(input.startsWith("/"))
        if (cleaned !== "/") expect(cleaned.split("/").slice(input.startsWith("/") ? 1 : 0)).not.toContain("")
        if (cleaned !== ".") expect(cleaned.split("/")).not.toContain(".")
        if (input.startsWith("/")) expect(cleaned.split("/")).not.toContain("..")
      }),
      { numRuns: 1000 }
    )
  })
})

describe("absolutePath", () => {
  it.each([
    ["internal/x.go", "/home/u/proj", "/home/u/proj/internal/x.go"],
    ["./README.md", "/home/u/proj", "/home/u/proj/README.md"],
    ["../other/x", "/home/u/proj", "/home/u/other/x"],
    ["~/x", "/home/u/proj", "/home/u/proj/~/x"],
    ["/etc/../etc/hosts", "/home/u/proj", "/etc/hosts"],
    ["", "/home/u/proj/", "/home/u/proj"],
    ["a", "/", "/a"]
  ])("%j against %j → %j", (p, cwd, want) => {
    expect(absolutePath(p, cwd)).toBe(want)
  })
})

describe("insideRoot", () => {
  it.each([
    ["/home/u/proj", "/home/u/proj", true],
    ["/home/u/proj/a.go", "/home/u/proj", true],
    ["/home/u/project/a.go", "/home/u/proj", false],
    ["/home/u", "/home/u/proj", false],
    ["/etc/hosts", "/", true],
    ["/", "/", true],
    ["relative", "/", false]
  ])("%j in %j → %j", (path, root, want) => {
    expect(insideRoot(path, root)).toBe(want)
  })

  it("a path without `..` made absolute against a root stays inside it", () => {
    const name = fc.stringMatching(/^[a-z.~_-]{1,6}$/).filter((s) => s !== "..")
    fc.assert(
      fc.property(fc.array(name, { minLength: 1, maxLength: 4 }), fc.array(name, { maxLength: 5 }), (root, rel) => {
        const r = cleanPath(`/${root.join("/")}`)
        expect(insideRoot(absolutePath(rel.join("/"), r), r)).toBe(true)
      }),
      { numRuns: 500 }
    )
  })
})
