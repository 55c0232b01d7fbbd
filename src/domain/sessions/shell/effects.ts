/** What running a command may do: stay local, reach the network, send data out, or something we cannot tell. */
export type ShellEffect = "local" | "network_egress" | "network_upload" | "unknown"

export type Effects = ReadonlySet<ShellEffect>

export const NONE: Effects = new Set()
export const LOCAL: Effects = new Set(["local"])
export const EGRESS: Effects = new Set(["network_egress"])
export const UPLOAD: Effects = new Set(["network_egress", "network_upload"])
export const UNKNOWN: Effects = new Set(["unknown"])

export const union = (...all: ReadonlyArray<Effects>): Effects => {
  const out = new Set<ShellEffect>()
  for (const s of all) for (const e of s) out.add(e)
  return out
}
