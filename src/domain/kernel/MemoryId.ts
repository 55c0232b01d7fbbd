/**
 * Which memory of a store (a tenant): one store can hold many, one per user or agent. The default memory of a
 * directory is the directory itself (today's layout, odek's); another lives under `memories/<id>/` with the same
 * layout; a database keeps the id in every key.
 */
export const DEFAULT_MEMORY = "default"

/** Why `id` cannot name a memory, or undefined when it can: a lowercase word of at most 64 characters. */
export const memoryIdProblem = (id: string): string | undefined =>
  /^[a-z0-9][a-z0-9_-]{0,63}$/.test(id)
    ? undefined
    : `invalid memory id ${JSON.stringify(id)}: use 1-64 lowercase letters, digits, - and _, ` +
      `starting with a letter or digit`
