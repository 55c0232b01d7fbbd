import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
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
export const tmem = (
  args: ReadonlyArray<string>,
  options: { input?: string | Buffer; env?: Record<string, string> } = {}
): Promise<Run> => {
  const child = startTmem(args, options.env)
  child.stdin.end(options.input ?? "")
  return finished(child)
}

/** The built `tmem` started in a child process with no memory directory or config from the environment. */
export const startTmem = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, TMEM_DIR: "", TMEM_CONFIG: "", ...env },
    stdio: ["pipe", "pipe", "pipe"]
  })

/** What a child printed, once it has exited. */
export const finished = (child: ChildProcessWithoutNullStreams): Promise<Run> =>
  new Promise((resolve, reject) => {
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
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
