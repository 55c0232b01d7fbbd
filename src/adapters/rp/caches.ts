/** Entries kept per cache before it is emptied and refilled (the spec's HTTP cache policy: no LRU). */
export const CACHE_LIMIT = 4096

/** A memo of `compute` by key, emptied when it reaches CACHE_LIMIT entries. */
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

/** Whether two corpora are the same texts in the same order (a fitted model can then be reused as it is). */
export const sameTexts = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean => a.length === b.length && a.every((t, i) => t === b[i])
