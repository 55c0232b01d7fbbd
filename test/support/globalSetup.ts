import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/**
 * Every temporary file of a test run lands in one directory: the test processes and every `tmem` they spawn
 * inherit TMPDIR. Afterwards anything a test left there (beyond the tools' own caches) fails the run, and the
 * directory is removed, so a passing run leaves nothing behind.
 */
const CACHES = /^(tsx-\d+|tiered-memory-\d+|node-compile-cache|[A-Za-z0-9_-]{21})$/

export default function setup() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-tests-"))
  // traversable like /tmp itself: one test runs tmem as another user inside a directory it opened up
  fs.chmodSync(root, 0o755)
  process.env.TMPDIR = root
  return () => {
    const left = fs.readdirSync(root).filter((name) => !CACHES.test(name))
    fs.rmSync(root, { recursive: true, force: true })
    if (left.length > 0)
      throw new Error(
        `tests left temporary files behind: ${left.join(", ")} (clean them up in the test, see test/support)`
      )
  }
}
