// Fails when a source line is wider than the formatter's 120 columns. Prettier wraps code but never splits a string,
// regex or comment, so without this check long literals crept back in (issue 11 counted lines of over 500).
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"

const WIDTH = 120
const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard", "src", "test", "bench", "scripts"], {
  encoding: "utf8"
})
  .split("\n")
  .filter((f) => /\.(ts|mts|mjs|js)$/.test(f))

const wide = []
for (const file of files) {
  let text
  try {
    text = readFileSync(file, "utf8")
  } catch {
    continue // listed by git but deleted in the working tree
  }
  text.split("\n").forEach((line, i) => {
    // columns as an editor counts them: one per code point
    const width = [...line].length
    if (width > WIDTH) wide.push(`${file}:${i + 1}: ${width} columns (at most ${WIDTH}); split the string or comment`)
  })
}
if (wide.length > 0) {
  console.error(wide.join("\n"))
  console.error(`${wide.length} line(s) wider than ${WIDTH} columns`)
  process.exit(1)
}
