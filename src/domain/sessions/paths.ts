/**
 * POSIX path helpers for the workspace trust zone (spec episodes §5.3.1). The domain may not import `node:path`,
 * and the zone must judge a path exactly as Go's `filepath` did, so the three rules are spelled out here.
 */

/** Go `filepath.Clean` on POSIX: the shortest equivalent path by purely lexical processing. */
export const cleanPath = (p: string): string => {
  if (p === "") return "."
  const rooted = p.startsWith("/")
  const kept: Array<string> = []
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue
    if (part === "..") {
      if (kept.length > 0 && kept[kept.length - 1] !== "..") kept.pop()
      // `..` at the root stays at the root; a relative path keeps its leading `..`s
      else if (!rooted) kept.push("..")
      continue
    }
    kept.push(part)
  }
  const joined = kept.join("/")
  if (rooted) return `/${joined}`
  return joined === "" ? "." : joined
}

/** `p` made absolute against `cwd` and cleaned. `~` is an ordinary name, as it is for the file tools. */
export const absolutePath = (p: string, cwd: string): string => cleanPath(p.startsWith("/") ? p : `${cwd}/${p}`)

/** Whether the cleaned absolute `path` is `root` or lies below it; the root `/` holds every absolute path. */
export const insideRoot = (path: string, root: string): boolean =>
  root === "/" ? path.startsWith("/") : path === root || path.startsWith(`${root}/`)
