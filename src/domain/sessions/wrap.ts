/**
 * Wrapping content as untrusted data for the model (spec episodes §5.4 grammar):
 * `<untrusted_content_<nonce> source="<label>">…</untrusted_content_<nonce>>`. The nonce is derived from the
 * content, so the same content always wraps the same way (the system prompt stays byte-identical across turns and
 * keeps the model's prefix cache) while text inside cannot guess it to close the wrapper early.
 */
const nonceOf = (content: string): string => {
  // 64-bit FNV-1a in two 32-bit halves, as hex
  let hi = 0xcbf29ce4
  let lo = 0x84222325
  for (const b of new TextEncoder().encode(content)) {
    lo = (lo ^ b) >>> 0
    const t = lo * 0x1b3
    hi = (Math.imul(hi, 0x1b3) + ((t / 4294967296) >>> 0) + Math.imul(lo, 256)) >>> 0
    lo = t >>> 0
  }
  return `${hi.toString(16).padStart(8, "0")}${lo.toString(16).padStart(8, "0")}`
}

export const wrapUntrusted = (label: string, content: string): string => {
  const tag = `untrusted_content_${nonceOf(`${label}\u0000${content}`)}`
  return `<${tag} source="${label}">${content}</${tag}>`
}
