import { Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { DerivedFiles } from "../../ports/DerivedFiles.js"
import * as Files from "./files.js"

/** Derived files beside the memory (0600, temp + fsync + rename): a crash leaves the old file or the new one. */
export const layer = (options: { readonly dir: string }) =>
  Layer.succeed(
    DerivedFiles,
    DerivedFiles.of({
      read: (name) =>
        Effect.sync(() => {
          try {
            return Option.fromNullable(Files.readOptional(path.join(options.dir, path.basename(name))))
          } catch {
            return Option.none()
          }
        }),
      write: (name, bytes) =>
        Effect.sync(() => {
          const target = path.join(options.dir, path.basename(name))
          try {
            Files.ensureDir(options.dir)
            const temp = Files.writeTemp(target, bytes)
            fs.fsyncSync(temp.fd)
            fs.closeSync(temp.fd)
            fs.renameSync(temp.path, target)
          } catch {
            // persisting only saves a rebuild next time
          }
        }),
      remove: (name) =>
        Effect.sync(() => {
          try {
            fs.rmSync(path.join(options.dir, path.basename(name)), { force: true })
          } catch {
            // a derived file left behind costs disk space, never data
          }
        })
    })
  )
