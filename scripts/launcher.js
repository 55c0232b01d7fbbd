#!/usr/bin/env node
// Starts the bundled CLI through a V8 code cache, what Node 22's module.enableCompileCache() does natively:
// compiling the 700 KB bundle from source dominates a cold start on Node 20. The cache lives beside the bundle
// (or in the user's cache directory when that is read-only); V8 rejects a stale one and it is simply rewritten.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import Module, { createRequire } from "node:module"
import { homedir, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Script } from "node:vm"

const here = dirname(fileURLToPath(import.meta.url))
const bundle = join(here, "tmem.cjs")
const source = readFileSync(bundle, "utf8")
const { size, mtimeMs } = statSync(bundle)
const key = `tmem-${process.version}-${process.arch}-${size}-${Math.trunc(mtimeMs)}.v8cache`
const candidates = [
  join(here, ".cache"),
  join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "tiered-memory"),
  join(tmpdir(), `tiered-memory-${process.getuid?.() ?? "user"}`)
]
let cachedData
for (const dir of candidates) {
  try {
    cachedData = readFileSync(join(dir, key))
    break
  } catch {}
}
const script = new Script(Module.wrap(source), { filename: bundle, cachedData, importModuleDynamically: undefined })
if (cachedData === undefined || script.cachedDataRejected) {
  // Written at exit, so the functions this run compiled lazily are in the cache too.
  process.once("exit", () => {
    const data = script.createCachedData()
    for (const dir of candidates) {
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 })
        const tmp = join(dir, `${key}.${process.pid}.tmp`)
        writeFileSync(tmp, data, { mode: 0o600 })
        renameSync(tmp, join(dir, key))
        // caches of earlier builds can never match again: keep only this one
        for (const old of readdirSync(dir))
          if (old.startsWith("tmem-") && old.endsWith(".v8cache") && old !== key)
            rmSync(join(dir, old), { force: true })
        return
      } catch {}
    }
  })
}
const module = { exports: {} }
script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, here)
