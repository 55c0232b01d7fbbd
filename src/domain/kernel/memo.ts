/** Entries kept per memo before it is emptied and refilled (the spec's HTTP cache policy: no LRU). */
export const CACHE_LIMIT = 4096

/** A memo of `compute` by key, emptied when it reaches CACHE_LIMIT entries; for pure computations only. */
export const bounded = <K, V>() => {
  const map = new Map<K, V>()
  return (key: K, compute: () => V): V => {
    const hit = map.get(key)
    if (hit !== undefined) return hit
    if (map.size >= CACHE_LIMIT) map.clear()
    const value = compute()
    map.set(key, value)
    return value
  }
}
