// The part of fs-native-extensions (a CommonJS addon without its own types) that the disk store uses (the lock, the
// guarded replace).
declare module "fs-native-extensions" {
  const native: {
    /** An exclusive (or `shared`) lock on an open file without waiting; false when another descriptor holds one. */
    tryLock(fd: number, options?: { readonly shared?: boolean }): boolean
    unlock(fd: number): void
    /** Exchanges two paths atomically (renameat2 RENAME_EXCHANGE on Linux). */
    swapSync(from: string, to: string): void
  }
  export default native
}
