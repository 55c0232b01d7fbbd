import * as fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import type { TrustZone } from "../domain/sessions/message.js"

/**
 * A path's real location. One that does not exist here (a transcript recorded elsewhere, a deleted file) resolves
 * through its longest existing ancestor: only existing components can be symlinks, so that is where it would point.
 */
const realpath = (p: string): string | undefined => {
  try {
    return fs.realpathSync(p)
  } catch (e) {
    const parent = Path.dirname(p)
    if ((e as NodeJS.ErrnoException).code !== "ENOENT" || parent === p) return undefined
    const real = realpath(parent)
    return real === undefined ? undefined : Path.join(real, Path.basename(p))
  }
}

/**
 * The trust zone of a session: its workspace, `/workspace`, `~/.odek` and the memory directory (spec episodes
 * §5.3.1).
 */
export const trustZoneFor = (workspace: string, memoryDir: string): TrustZone => ({
  cwd: workspace,
  roots: [workspace, "/workspace", Path.join(Os.homedir(), ".odek"), memoryDir],
  realpath
})
