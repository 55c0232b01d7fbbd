import pg from "pg"
import { isValidSchemaName } from "./connection.js"

/**
 * Drops a schema with everything in it: the end of a `tmem simulate` run on PostgreSQL, which keeps its memory in a
 * schema of its own. A server that went away leaves nothing to clean, so every failure is quiet.
 */
export const dropSchema = async (url: string, schema: string): Promise<void> => {
  if (!isValidSchemaName(schema)) return
  const client = new pg.Client({ connectionString: url, application_name: "tmem-simulate" })
  try {
    await client.connect()
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  } catch {
    // nothing to clean, or nothing to clean it with
  } finally {
    await client.end().catch(() => undefined)
  }
}
