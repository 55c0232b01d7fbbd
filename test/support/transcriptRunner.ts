/**
 * Runs doc transcripts (test/support/transcripts.ts) with bash, as a reader would type them: each chain in a new
 * directory, one bash per transcript, `tmem` on PATH resolving to the built CLI.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { BIN } from "./cli.js"
import { type Transcript, withPort } from "./transcripts.js"

export interface CommandRun {
  /** stdout and stderr as one terminal would show them. */
  readonly printed: string
  /** undefined: the command did not run (the block's shell stopped or timed out before it). */
  readonly exit: number | undefined
}

export interface TranscriptRun {
  /** The free port that stood in for the doc's fixed one. */
  readonly port: number
  readonly commands: ReadonlyArray<CommandRun>
  /** What bash itself printed (syntax errors, a timeout). */
  readonly shell: string
}

/** Long enough for a slow machine, short enough that a command waiting for a terminal fails the block. */
const BLOCK_TIMEOUT_MS = 60_000
/** How long a background command may take to print its first line (a server: to listen). */
const BACKGROUND_READY_POLLS = 300

const quote = (s: string) => `'${s.split("'").join(`'\\''`)}'`

/** A port nothing listens on now; each transcript that names the doc's port gets its own. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

const script = (t: Transcript, index: number, cap: string, port: number, first: boolean) => {
  const out = (i: number) => path.join(cap, `${index}-${i}`)
  const lines = [
    first ? `export TMEM_DIR="$(mktemp -d)"` : `. ${quote(path.join(cap, `${index - 1}.env`))}`,
    `__doc_wait() { local i=0; while [ "$(wc -l < "$1")" -lt "$3" ] && kill -0 "$2" 2>/dev/null ` +
      `&& [ $i -lt ${BACKGROUND_READY_POLLS} ]; do sleep 0.05; i=$((i+1)); done; cp "$1" "$1.shown"; }`
  ]
  t.commands.forEach((c, i) => {
    if (c.notRun !== undefined) return
    const text = withPort(c.text, port)
    if (c.background) {
      const foreground = text.replace(/&\s*(#.*)?$/, "")
      // The file exists before the job starts, so the wait never reads a file that is not there yet.
      lines.push(`: > ${quote(out(i))}`, `eval ${quote(foreground)} >> ${quote(out(i))} 2>&1 < /dev/null &`)
      lines.push(`__doc_wait ${quote(out(i))} $! ${Math.max(1, c.output.length)}; echo 0 > ${quote(`${out(i)}.rc`)}`)
    } else {
      lines.push(`eval ${quote(text)} > ${quote(out(i))} 2>&1 < /dev/null`)
      lines.push(`echo $? > ${quote(`${out(i)}.rc`)}`)
    }
  })
  lines.push(`export -p > ${quote(path.join(cap, `${index}.env`))}`, `kill $(jobs -p) 2>/dev/null; wait`)
  return lines.join("\n") + "\n"
}

const runBash = (file: string, cwd: string, env: NodeJS.ProcessEnv, log: string): Promise<boolean> =>
  new Promise((resolve, reject) => {
    const fd = fs.openSync(log, "w")
    // Its own process group, so whatever a block left running is ended with it.
    const child = spawn("bash", [file], { cwd, env, stdio: ["ignore", fd, fd], detached: true })
    fs.closeSync(fd)
    const stopGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal)
      } catch {
        // the group is already gone
      }
    }
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      stopGroup("SIGKILL")
    }, BLOCK_TIMEOUT_MS)
    child.on("error", reject)
    child.on("exit", () => {
      clearTimeout(timer)
      stopGroup("SIGKILL")
      resolve(!timedOut)
    })
  })

const readOr = (file: string, fallback: string) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : fallback)

/** A clean environment: nothing of the caller's memory, config or editor leaks in, and nothing leaks out. */
const environment = (root: string, bin: string): NodeJS.ProcessEnv => {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("TMEM_") && k !== "VISUAL" && k !== "NO_COLOR")
  )
  return {
    ...env,
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`,
    HOME: path.join(root, "home"),
    TMPDIR: path.join(root, "tmp"),
    EDITOR: "true"
  }
}

/**
 * Runs one chain (a transcript and those that continue it) in a new directory holding a copy of docs/examples,
 * and removes the directory afterwards.
 */
export const runChain = async (
  chain: ReadonlyArray<Transcript>,
  examples: string
): Promise<ReadonlyArray<TranscriptRun>> => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-doc-"))
  try {
    const [work, cap, bin] = ["work", "cap", "bin"].map((d) => path.join(root, d)) as [string, string, string]
    for (const d of [work, cap, bin, path.join(root, "home"), path.join(root, "tmp")]) fs.mkdirSync(d)
    if (fs.existsSync(examples)) fs.cpSync(examples, path.join(work, "docs", "examples"), { recursive: true })
    fs.writeFileSync(path.join(bin, "tmem"), `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(BIN)} "$@"\n`, {
      mode: 0o755
    })
    const env = environment(root, bin)
    const runs: Array<TranscriptRun> = []
    for (const [index, t] of chain.entries()) {
      const port = await freePort()
      const file = path.join(cap, `${index}.sh`)
      fs.writeFileSync(file, script(t, index, cap, port, index === 0))
      const finished = await runBash(file, work, env, path.join(cap, `${index}.log`))
      const shell =
        readOr(path.join(cap, `${index}.log`), "") +
        (finished ? "" : `(the block did not finish within ${BLOCK_TIMEOUT_MS / 1000} s and was killed)\n`)
      runs.push({
        port,
        shell,
        commands: t.commands.map((c, i) => {
          const out = path.join(cap, `${index}-${i}`)
          const rc = readOr(`${out}.rc`, "")
          return { printed: readOr(c.background ? `${out}.shown` : out, ""), exit: rc === "" ? undefined : Number(rc) }
        })
      })
    }
    return runs
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}

/** Runs `tasks` with at most `limit` at a time (each chain is a few sequential `tmem` processes). */
export const pool = async <A>(tasks: ReadonlyArray<() => Promise<A>>, limit: number): Promise<ReadonlyArray<A>> => {
  const results: Array<A> = Array.from({ length: tasks.length }) as Array<A>
  let next = 0
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++
      results[i] = await tasks[i]!()
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker))
  return results
}
