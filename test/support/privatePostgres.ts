import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

/**
 * A PostgreSQL server of a test's own, from the machine's PostgreSQL binaries: a fresh cluster in a temporary
 * directory on a free port, so a test may stop, crash and restart it without touching the machine's server that
 * every other test uses. Started as the `postgres` user when the tests run as root (the server refuses root).
 */
export interface PrivateServer {
  readonly url: string
  /** Stops the server the way a crash or a power cut does (no shutdown checkpoint) and starts it again. */
  readonly crashAndRestart: Effect.Effect<void>
}

const binDir = (): string | undefined => {
  const root = "/usr/lib/postgresql"
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)) : []
  const bin = versions.map((v) => path.join(root, v, "bin")).find((d) => fs.existsSync(path.join(d, "pg_ctl")))
  return bin
}

/** Why a private server cannot be started here, or undefined when it can. */
export const privateServerProblem: string | undefined = (() => {
  if (binDir() === undefined) return "no PostgreSQL binaries under /usr/lib/postgresql"
  if (process.getuid?.() === 0 && spawnSync("id", ["postgres"]).status !== 0) return "no postgres user to run as"
  return undefined
})()

const asRoot = process.getuid?.() === 0

const run = (command: string, args: ReadonlyArray<string>) => {
  const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args]
  const r = spawnSync(file, argv, { encoding: "utf8", timeout: 60_000 })
  if (r.status !== 0) throw new Error(`${path.basename(command)} failed: ${(r.stderr || r.stdout).trim()}`)
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

/** Starts the server in the caller's scope; it is stopped and its directory removed when the scope closes. */
export const privateServer: Effect.Effect<PrivateServer, never, import("effect").Scope.Scope> = Effect.acquireRelease(
  Effect.promise(async () => {
    const bin = binDir()!
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "tmem-pg-"))
    const data = path.join(root, "data")
    if (asRoot) spawnSync("chown", ["postgres", root])
    const port = await freePort()
    run(path.join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
    const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${root} -c max_connections=40`
    const start = () =>
      run(path.join(bin, "pg_ctl"), ["-D", data, "-o", options, "-l", path.join(root, "log"), "-w", "start"])
    start()
    const crashAndRestart = Effect.sync(() => {
      run(path.join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"])
      start()
    })
    return { root, data, bin, url: `postgres://postgres@127.0.0.1:${port}/postgres`, crashAndRestart }
  }),
  (s) =>
    Effect.sync(() => {
      try {
        run(path.join(s.bin, "pg_ctl"), ["-D", s.data, "-m", "immediate", "-w", "stop"])
      } catch {
        // already down
      }
      fs.rmSync(s.root, { recursive: true, force: true })
    })
)
