import { StoreError, type StoreFailure } from "../../ports/EventStore.js"

/**
 * Where a PostgreSQL store lives, as a person may name it in errors: host and port only. A store URL can carry a
 * password (`postgres://user:secret@host/db`), so the URL itself is never repeated in an error, a log or an event.
 */
export interface Target {
  readonly host: string
  readonly port: number
  readonly database: string
  /** The password as written, to scrub from driver messages that might echo it; undefined when there is none. */
  readonly secret: string | undefined
}

const URL_HELP = "use postgres://user@host:5432/database"

/** The parts of a store URL errors may name, or a one-line error saying what is wrong with it. */
export const parseStoreUrl = (url: string): Target | StoreError => {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return new StoreError({
      stream: "",
      text: `memory: the store URL is not a valid URL; ${URL_HELP}`,
      reason: "invalid"
    })
  }
  if (u.protocol !== "postgres:" && u.protocol !== "postgresql:")
    return new StoreError({
      stream: "",
      text:
        `memory: the store URL must start with postgres:// (it starts with ${JSON.stringify(u.protocol)}); ` + URL_HELP,
      reason: "invalid"
    })
  const database = decodeURIComponent(u.pathname.replace(/^\//, ""))
  if (u.hostname === "" || database === "" || database.includes("/"))
    return new StoreError({
      stream: "",
      text: `memory: the store URL needs a host and a database name; ${URL_HELP}`,
      reason: "invalid"
    })
  const port = u.port === "" ? 5432 : Number(u.port)
  return {
    host: u.hostname,
    port,
    database,
    secret: u.password === "" ? undefined : decodeURIComponent(u.password)
  }
}

/** The PostgreSQL schema holding the tables: a plain lowercase identifier, so it is safe to write into SQL. */
export const isValidSchemaName = (name: string): boolean => /^[a-z_][a-z0-9_]{0,62}$/.test(name)

const codeOf = (e: unknown): string | undefined => {
  const code = (e as { code?: unknown } | undefined)?.code
  return typeof code === "string" ? code : undefined
}

// Failures that pass by themselves: the server is down, restarting or refusing new connections, the connection was
// cut, or the transaction lost a race the server could not order. The command handler re-runs the command on them.
const UNAVAILABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "57P01",
  "57P02",
  "57P03",
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
  "40001",
  "40P01",
  "53300"
])

const WHY: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ETIMEDOUT: "connection timed out",
  EPIPE: "connection closed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ENOTFOUND: "unknown host",
  EAI_AGAIN: "host name lookup failed",
  "57P01": "the server is shutting down",
  "57P02": "the server is shutting down",
  "57P03": "the server is starting up",
  "53300": "too many connections",
  "40001": "a concurrent transaction got in first",
  "40P01": "a deadlock with another transaction"
}

// what node-postgres says, without a code, when a connection is cut or cannot be opened in time
const CONNECTION_LOST = new RegExp(
  [
    "Connection terminated",
    "connection timeout",
    "timeout exceeded when trying to connect",
    "Client has encountered a connection error"
  ].join("|"),
  "i"
)

const isConnectionLoss = (e: unknown) => {
  const message = (e as { message?: unknown } | undefined)?.message
  return typeof message === "string" && CONNECTION_LOST.test(message)
}

/** Driver text as one line, with the URL's password (should a message ever echo it) and control bytes taken out. */
const clean = (text: string, target: Target) => {
  const scrubbed = target.secret === undefined ? text : text.split(target.secret).join("***")
  // eslint-disable-next-line no-control-regex
  return scrubbed
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ")
    .trim()
    .slice(0, 300)
}

/**
 * A driver or server failure as the store's one-line error: what could not be done, why, and what to do, naming the
 * server by host and port only.
 */
export const storeFailure = (e: unknown, target: Target, doing: string, stream = ""): StoreError => {
  if (e instanceof StoreError) return e
  const where = `${target.host}:${target.port}`
  const code = codeOf(e)
  const message = (e as { message?: unknown } | undefined)?.message
  const detail = typeof message === "string" ? clean(message, target) : String(e)
  const make = (text: string, reason: StoreFailure) => new StoreError({ stream, text, reason })
  if ((code !== undefined && UNAVAILABLE.has(code)) || isConnectionLoss(e))
    return make(
      `memory: cannot ${doing}: PostgreSQL at ${where} is unavailable (${WHY[code ?? ""] ?? detail}); ` +
        "start it or check the store URL, then retry",
      "unavailable"
    )
  if (code === "ENOTFOUND")
    return make(`memory: cannot ${doing}: unknown host ${target.host}; check the store URL`, "unavailable")
  if (code === "28P01" || code === "28000")
    return make(
      `memory: cannot ${doing}: PostgreSQL at ${where} refused the login (${detail}); check the user in the store URL`,
      "permission"
    )
  if (code === "3D000")
    return make(
      `memory: cannot ${doing}: database ${JSON.stringify(target.database)} does not exist on ${where}; ` +
        `create it (createdb ${target.database}) or fix the store URL`,
      "notFound"
    )
  if (code === "42501")
    return make(
      `memory: cannot ${doing}: PostgreSQL at ${where} denied it (${detail}); ` +
        "grant the user rights on the database and schema, or use another schema",
      "permission"
    )
  return make(`memory: cannot ${doing}: PostgreSQL at ${where}: ${detail}`, "other")
}
