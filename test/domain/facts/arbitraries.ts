import { FastCheck as fc } from "effect"
import { entryProblem } from "../../../src/domain/facts/codec.js"
import { trimSpace } from "../../../src/domain/text/utf8.js"

/** Words from several scripts and byte widths, so byte caps and rune previews are exercised, not just ASCII. */
export const WORDS = [
  "uses",
  "postgres",
  "dark",
  "mode",
  "editor",
  "node",
  "pnpm",
  "prefers",
  "terse",
  "answers",
  "port",
  "5433",
  "café",
  "naïve",
  "Größe",
  "日本語",
  "中文",
  "Ελληνικά",
  "русский",
  "😀",
  "§",
  "—",
  "test",
  "deploy",
  "build",
  "vim",
  "emacs",
  "kubernetes",
  "staging",
  "release"
]

const word = fc.constantFrom(...WORDS)
const joiner = fc.constantFrom(" ", " ", " ", ", ", "\n", "\t")

/** A trimmed text that passes the codec's rules (it may still be refused by the scanner, rarely). */
export const validEntry = fc
  .tuple(fc.array(fc.tuple(word, joiner), { minLength: 1, maxLength: 40 }), word)
  .map(([parts, last]) => trimSpace(parts.map(([w, j]) => w + j).join("") + last))
  .filter((t) => t !== "" && entryProblem(t) === undefined)

/** Long entries (up to ~2 KB) so a few adds fill a cap. */
export const longEntry = fc
  .array(word, { minLength: 20, maxLength: 300 })
  .map((ws) => trimSpace(ws.join(" ")))
  .filter((t) => t !== "" && entryProblem(t) === undefined)
