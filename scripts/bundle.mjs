// Builds the `tmem` executable: one tree-shaken CommonJS bundle (dist/tmem.cjs) started by a small launcher
// (dist/bin.js) that keeps a V8 code cache of it. Loading effect's ~300 modules one by one, or compiling the
// whole bundle from source on every start, costs more than the command itself (docs/adr/0002).
import { build } from "esbuild"
import { chmodSync, copyFileSync } from "node:fs"

// Code the CLI can never reach: @effect/cli's config-file readers (yaml, toml, ini) and fast-check, which effect
// only uses to generate test data. Empty modules keep ~200 KB out of every start.
const unreachable = {
  name: "unreachable",
  setup(b) {
    b.onResolve({ filter: /^(yaml|toml|ini|fast-check)$/ }, (args) => ({ path: args.path, namespace: "unreachable" }))
    b.onLoad({ filter: /.*/, namespace: "unreachable" }, () => ({ contents: "module.exports = {}", loader: "js" }))
  }
}

await build({
  entryPoints: ["src/bin.ts"],
  outfile: "dist/tmem.cjs",
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  minify: true,
  // no source map: it would map into every bundled dependency (11 MB) and ship in the npm package
  sourcemap: false,
  legalComments: "linked",
  plugins: [unreachable],
  // undici (half a megabyte) is only reached through the lazily loaded HTTP adapters; left out of the bundle it is
  // required from node_modules (a dependency) the first time a model or an http embedder is configured.
  // The MCP SDK and zod (another 400 KB) are reached only by `tmem mcp`, loaded on demand the same way.
  // pg (the PostgreSQL driver) is reached only when a postgres:// store is named, loaded on demand the same way.
  // fs-native-extensions is a native addon: it loads its prebuilt binary from its own package directory.
  external: ["undici", "@modelcontextprotocol/sdk", "zod", "fs-native-extensions", "pg"],
  logLevel: "warning"
})
copyFileSync("scripts/launcher.js", "dist/bin.js")
chmodSync("dist/bin.js", 0o755)
