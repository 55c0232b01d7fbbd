/**
 * File-system faults for the simulation's disk world (`tmem simulate --world disk`): the calls the disk store makes
 * (open, write, read, fsync, rename and the native exchange) fail as a full disk, a permission change or a failing
 * device makes them fail, for files under one directory only and only while a fault is armed and may strike. The
 * store is not told: it meets the errno as it would in production.
 *
 * The calls are wrapped once per process, on `fs` itself and on the native addon's exports (every module reads
 * them from there at call time); a path outside every armed directory passes straight through.
 */
import fsModule from "node:fs"
import { syncBuiltinESMExports } from "node:module"
import * as path from "node:path"
import { nativeAddon } from "../disk/nativeAddon.js"

export type FsFault = "fs-enospc" | "fs-eacces" | "fs-eio-read" | "fs-eio-fsync" | "fs-eio-rename"

interface Armed {
  readonly dir: string
  fault: FsFault | undefined
  striking: boolean
}

const worlds = new Set<Armed>()
/** Descriptors opened under an armed directory, with their paths: write, read and fsync name a descriptor. */
const descriptors = new Map<number, Armed>()

const errno = (code: string, syscall: string, file?: string) =>
  Object.assign(
    new Error(`${code}: simulated ${syscall} failure${file === undefined ? "" : `, ${syscall} '${file}'`}`),
    {
      code,
      errno: code === "ENOSPC" ? -28 : code === "EACCES" ? -13 : -5,
      syscall
    }
  )

const ownerOf = (file: unknown): Armed | undefined => {
  if (typeof file !== "string") return undefined
  const resolved = path.resolve(file)
  for (const w of worlds) if (resolved === w.dir || resolved.startsWith(`${w.dir}${path.sep}`)) return w
  return undefined
}

/** The armed fault of `world` when it is one of `kinds` and may strike now; taking it disarms it. */
const take = (world: Armed | undefined, kind: FsFault): boolean => {
  if (world === undefined || !world.striking || world.fault !== kind) return false
  world.fault = undefined
  return true
}

let installed = false

const install = () => {
  if (installed) return
  installed = true
  // the module object itself (a default import), not the read-only namespace: what every other module reads from
  const fs = fsModule
  const wrap = <K extends keyof typeof fs>(name: K, make: (original: (typeof fs)[K]) => (typeof fs)[K]) => {
    ;(fs as Record<string, unknown>)[name] = make(fs[name])
  }
  wrap(
    "openSync",
    (original) =>
      ((file: unknown, ...rest: Array<unknown>) => {
        const world = ownerOf(file)
        if (take(world, "fs-eacces")) throw errno("EACCES", "open", String(file))
        const fd = (original as (...a: Array<unknown>) => number)(file, ...rest)
        if (world !== undefined) descriptors.set(fd, world)
        return fd
      }) as typeof fs.openSync
  )
  wrap(
    "closeSync",
    (original) =>
      ((fd: number) => {
        descriptors.delete(fd)
        return original(fd)
      }) as typeof fs.closeSync
  )
  wrap(
    "writeSync",
    (original) =>
      ((fd: number, ...rest: Array<unknown>) => {
        if (take(descriptors.get(fd), "fs-enospc")) throw errno("ENOSPC", "write")
        return (original as (...a: Array<unknown>) => number)(fd, ...rest)
      }) as typeof fs.writeSync
  )
  wrap(
    "readSync",
    (original) =>
      ((fd: number, ...rest: Array<unknown>) => {
        if (take(descriptors.get(fd), "fs-eio-read")) throw errno("EIO", "read")
        return (original as (...a: Array<unknown>) => number)(fd, ...rest)
      }) as typeof fs.readSync
  )
  wrap(
    "readFileSync",
    (original) =>
      ((file: unknown, ...rest: Array<unknown>) => {
        const world = typeof file === "number" ? descriptors.get(file) : ownerOf(file)
        if (take(world, "fs-eio-read")) throw errno("EIO", "read", String(file))
        return (original as (...a: Array<unknown>) => unknown)(file, ...rest)
      }) as typeof fs.readFileSync
  )
  wrap(
    "fsyncSync",
    (original) =>
      ((fd: number) => {
        if (take(descriptors.get(fd), "fs-eio-fsync")) throw errno("EIO", "fsync")
        return original(fd)
      }) as typeof fs.fsyncSync
  )
  wrap(
    "fsync",
    (original) =>
      ((fd: number, callback: (e: NodeJS.ErrnoException | null) => void) => {
        if (take(descriptors.get(fd), "fs-eio-fsync")) {
          process.nextTick(() => callback(errno("EIO", "fsync")))
          return
        }
        original(fd, callback)
      }) as typeof fs.fsync
  )
  wrap(
    "renameSync",
    (original) =>
      ((from: unknown, to: unknown) => {
        if (take(ownerOf(to), "fs-eio-rename")) throw errno("EIO", "rename", String(to))
        return (original as (a: unknown, b: unknown) => void)(from, to)
      }) as typeof fs.renameSync
  )
  syncBuiltinESMExports()
  try {
    const addon = nativeAddon() as unknown as Record<string, unknown>
    const swap = addon["swapSync"] as ((a: string, b: string) => void) | undefined
    if (swap !== undefined)
      addon["swapSync"] = (from: string, to: string) => {
        if (take(ownerOf(to), "fs-eio-rename")) throw errno("EIO", "rename", to)
        return swap(from, to)
      }
  } catch {
    // no native addon here: the store renames with fs, wrapped above
  }
}

/** Faults for the files under `dir`; `dispose` stops watching it. */
export const fsFaults = (dir: string) => {
  install()
  const world: Armed = { dir: path.resolve(dir), fault: undefined, striking: false }
  worlds.add(world)
  return {
    arm: (fault: FsFault) => void (world.fault = fault),
    clear: () => void (world.fault = undefined),
    strike: (on: boolean) => void (world.striking = on),
    dispose: () => {
      worlds.delete(world)
      for (const [fd, w] of descriptors) if (w === world) descriptors.delete(fd)
    }
  }
}
