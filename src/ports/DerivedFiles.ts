import { Context, type Effect, type Option } from "effect"

/**
 * Files derived from the journal that only save work (the persisted episode vectors). Losing or corrupting one
 * costs a rebuild, never data, so reads answer None on any problem and writes fail silently (spec episodes §9.7).
 */
export class DerivedFiles extends Context.Tag("tmem/DerivedFiles")<
  DerivedFiles,
  {
    readonly read: (name: string) => Effect.Effect<Option.Option<Uint8Array>>
    readonly write: (name: string, bytes: Uint8Array) => Effect.Effect<void>
    /** Removes a file an older version derived under another name; a file that is not there is no error. */
    readonly remove: (name: string) => Effect.Effect<void>
  }
>() {}
