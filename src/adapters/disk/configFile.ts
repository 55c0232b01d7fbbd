import { FileSystem } from "@effect/platform"
import { Effect, Either } from "effect"
import { lstatSync } from "node:fs"
import { ConfigInvalid, decodeConfig, type MemoryConfig } from "../../domain/config/MemoryConfig.js"
import { oneLine } from "./errors.js"

const isSymbolicLink = (path: string): boolean => {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}

/**
 * Reads and resolves a JSON config file. A path the user named must exist; the default location may be absent
 * (defaults apply). Every failure is one line naming the file and, where it applies, the key.
 */
export const loadConfigFile = (
  path: string | undefined,
  required: boolean,
  env: Readonly<Record<string, string | undefined>>
) =>
  Effect.gen(function* () {
    // without a file the defaults apply, still under the environment's switches (TMEM_GUARD_SCAN_MEMORY, …)
    const defaults = Either.mapLeft(decodeConfig({}, env), (e) => new ConfigInvalid({ text: e.message }))
    if (path === undefined) return yield* defaults
    const fs = yield* FileSystem.FileSystem
    // a link could point the settings (the model URL, its key) at any file: only the file itself is read
    if (isSymbolicLink(path))
      return yield* Effect.fail(
        new ConfigInvalid({
          text: `config: ${path} is a symbolic link, which tmem does not follow; replace it with the file itself`
        })
      )
    // The default location is optional: absent (or unreachable, e.g. under a regular file) means defaults.
    if (!required && !(yield* fs.exists(path).pipe(Effect.orElseSucceed(() => false)))) return yield* defaults
    const text = yield* fs.readFileString(path).pipe(
      Effect.map((t): string | undefined => t),
      Effect.catchIf(
        (e) => !required && e._tag === "SystemError" && e.reason === "NotFound",
        () => Effect.succeed(undefined)
      ),
      Effect.mapError((e) => {
        const why =
          e._tag === "SystemError" && e.reason === "NotFound"
            ? "no such file; check --config or $TMEM_CONFIG"
            : e._tag === "SystemError" && e.reason === "PermissionDenied"
              ? "permission denied"
              : oneLine(e)
        return new ConfigInvalid({ text: `config: cannot read ${path}: ${why}` })
      })
    )
    if (text === undefined) return yield* defaults
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (e) {
      return yield* Effect.fail(
        new ConfigInvalid({ text: `config: ${path} is not valid JSON (${oneLine(e)}); fix the file` })
      )
    }
    return yield* Either.mapLeft(
      decodeConfig(json, env),
      (e) => new ConfigInvalid({ text: e.message.replace(/^config: /, `config: ${path}: `) })
    )
  }) satisfies Effect.Effect<MemoryConfig, ConfigInvalid, FileSystem.FileSystem>
