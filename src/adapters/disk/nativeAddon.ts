import { createRequire } from "node:module"
import type native from "fs-native-extensions"

/**
 * fs-native-extensions (prebuilt N-API binaries inside its npm package), loaded once, on first use: commands that
 * only read (`tmem prompt`, `tmem facts show`) never resolve or open a native library. The kernel lock needs it;
 * the guarded projection replace uses it when present.
 */
let loaded: { readonly addon: typeof native } | { readonly error: unknown } | undefined

export const nativeAddon = (): typeof native => {
  if (loaded === undefined) {
    try {
      // the bundled CLI is CommonJS (require exists); the ES module build resolves through createRequire
      const load = typeof require === "function" ? require : createRequire(import.meta.url)
      loaded = { addon: load("fs-native-extensions") as typeof native }
    } catch (error) {
      loaded = { error }
    }
  }
  if ("error" in loaded) throw loaded.error
  return loaded.addon
}
