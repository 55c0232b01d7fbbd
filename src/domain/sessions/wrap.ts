import { FNV64_OFFSET, fnv1a64, fnv64Hex } from "../text/fnv.js"

/**
 * Wrapping content as untrusted data for the model (spec episodes §5.4 grammar):
 * `<untrusted_content_<nonce> source="<label>">…</untrusted_content_<nonce>>`. The nonce is derived from the
 * content, so the same content always wraps the same way (the system prompt stays byte-identical across turns and
 * keeps the model's prefix cache) while text inside cannot guess it to close the wrapper early.
 */
const nonceOf = (content: string): string => fnv64Hex(fnv1a64(FNV64_OFFSET, new TextEncoder().encode(content)))

export const wrapUntrusted = (label: string, content: string): string => {
  const tag = `untrusted_content_${nonceOf(`${label}\u0000${content}`)}`
  return `<${tag} source="${label}">${content}</${tag}>`
}
