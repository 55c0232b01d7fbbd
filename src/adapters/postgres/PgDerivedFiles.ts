import { Effect, Layer, Option } from "effect"
import { DerivedFiles } from "../../ports/DerivedFiles.js"
import { StoreError } from "../../ports/EventStore.js"
import { openDatabase, type PgConnection, settle } from "./shared.js"

/**
 * Derived files (the episode vectors) in the memory's database, so every host shares one copy instead of each
 * rebuilding its own. They only save work: a read that fails is None, a write that fails is dropped (the port's
 * rule), and the journal stays the truth.
 */
export const make = (options: PgConnection, namespace = "") =>
  Effect.gen(function* () {
    const settled = settle(options)
    if (settled instanceof StoreError)
      return DerivedFiles.of({
        read: () => Effect.succeed(Option.none()),
        write: () => Effect.void,
        remove: () => Effect.void
      })
    const { memory } = settled
    const { t, query } = yield* openDatabase(options, settled)
    return DerivedFiles.of({
      read: (name) =>
        query<{ bytes: Buffer }>(
          "read a derived file of",
          "",
          `SELECT bytes FROM ${t("derived_files")} WHERE memory = $1 AND name = $2`,
          [memory, namespace + name]
        ).pipe(
          Effect.map((r) => Option.fromNullable(r.rows[0]?.bytes).pipe(Option.map((b) => new Uint8Array(b)))),
          Effect.orElseSucceed(() => Option.none<Uint8Array>())
        ),
      write: (name, bytes) =>
        query(
          "write a derived file of",
          "",
          `INSERT INTO ${t("derived_files")} (memory, name, bytes) VALUES ($1, $2, $3)
           ON CONFLICT (memory, name) DO UPDATE SET bytes = EXCLUDED.bytes`,
          [memory, namespace + name, Buffer.from(bytes)]
        ).pipe(Effect.ignore),
      remove: (name) =>
        query("remove a derived file of", "", `DELETE FROM ${t("derived_files")} WHERE memory = $1 AND name = $2`, [
          memory,
          namespace + name
        ]).pipe(Effect.ignore)
    })
  })

/** `namespace` keeps apart what a directory keeps in subdirectories (`extended/` for the atom index). */
export const layer = (options: PgConnection, namespace = ""): Layer.Layer<DerivedFiles> =>
  Layer.scoped(DerivedFiles, make(options, namespace))
