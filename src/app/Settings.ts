import { Context, Layer } from "effect"
import { DEFAULT_CONFIG, type MemoryConfig } from "../domain/config/MemoryConfig.js"

/** The resolved `memory` configuration the handlers run with. */
export class Settings extends Context.Tag("tmem/Settings")<Settings, MemoryConfig>() {
  static readonly layer = (config: MemoryConfig = DEFAULT_CONFIG) => Layer.succeed(Settings, config)
}
