import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export const BIN = path.resolve("dist/bin.js")

export interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the built `tmem` in a child process (CI builds before testing). */
export const tmem = (args: ReadonlyArray<string>, options: { input?: string | Buffer; env?: Record<string, string> } = {}): Promise<Run> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, TMEM_DIR: "", TMEM_CONFIG: "", ...options.env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(options.input ?? "")
  })

export const tempMemoryDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "tmem-cli-"))

/** Fresh memory directories for one test file, all removed after it. */
export const tempDirs = (afterAll: (fn: () => void) => void) => {
  const dirs: Array<string> = []
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true })
  })
  return {
    fresh: () => {
      const d = tempMemoryDir()
      dirs.push(d)
      return d
    },
    track: (d: string) => void dirs.push(d)
  }
}
