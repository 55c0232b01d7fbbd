import pg from "pg"
import type { Reporter } from "vitest/reporters"

/** A test or suite as the reporter gets it; a suite whose name says PostgreSQL holds the server's tests. */
interface Task {
  readonly type: string
  readonly name: string
  readonly mode: string
  readonly tasks?: ReadonlyArray<Task>
}

const count = (tasks: ReadonlyArray<Task>, inside: boolean): number =>
  tasks.reduce((n, t) => {
    const here = inside || /PostgreSQL/.test(t.name)
    if (t.type === "suite") return n + count(t.tasks ?? [], here)
    return n + (here && t.mode === "skip" ? 1 : 0)
  }, 0)

/**
 * Says once, at the end of a run, how many PostgreSQL tests were skipped and why: on a machine without the server
 * they are (CI runs them, and fails when the server is missing).
 */
export default class PgSkipReporter implements Reporter {
  async onFinished(files: ReadonlyArray<Task> = []) {
    const skipped = count(files, false)
    if (skipped === 0) return
    const url = process.env["TMEM_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 })
    let why: string | undefined
    try {
      await client.connect()
    } catch (e) {
      why = `no server at ${url.replace(/\/\/[^@]*@/, "//")}: ${(e as Error).message}`
    } finally {
      await client.end().catch(() => undefined)
    }
    // with the server there, a skip is a filter's, not news
    if (why !== undefined) process.stdout.write(`PostgreSQL: ${skipped} tests skipped (${why})\n`)
  }
}
