import { Effect } from "effect"
import * as path from "node:path"
import * as os from "node:os"
import { describe, expect, it } from "vitest"
import { NodeFiles } from "../../src/adapters/live.js"
import { loadConfigFile } from "../../src/adapters/disk/configFile.js"
import { DEFAULT_CONFIG } from "../../src/domain/config/MemoryConfig.js"

const load = (p: string | undefined, env: Record<string, string>) =>
  Effect.runPromise(Effect.either(loadConfigFile(p, false, env)).pipe(Effect.provide(NodeFiles)))

describe("loadConfigFile without a file", () => {
  const absent = path.join(os.tmpdir(), "tmem-no-such-config", "config.json")

  it("gives the defaults when nothing is set", async () => {
    for (const p of [undefined, absent])
      expect(await load(p, {})).toMatchObject({ _tag: "Right", right: DEFAULT_CONFIG })
  })

  it("still honours the environment's switches", async () => {
    for (const p of [undefined, absent]) {
      const r = await load(p, { TMEM_GUARD_SCAN_MEMORY: "false", TMEM_MEMORY_EXTENDED_ENABLED: "true" })
      expect(r._tag === "Right" && [r.right.guard.scan.memory, r.right.extended.enabled]).toEqual([false, true])
    }
  })

  it("refuses a bad switch in one line", async () => {
    const r = await load(undefined, { TMEM_GUARD_SCAN_MEMORY: "maybe" })
    expect(r._tag === "Left" && r.left.message).toBe(
      'config: $TMEM_GUARD_SCAN_MEMORY must be true or false (got "maybe"); fix the environment variable'
    )
  })
})
