/**
 * Encoded payloads (spec §7.1 "Encoded"): a marker followed by an encoded blob, an order to decode something and
 * obey or run it, and a base64 blob that decodes to an order (decodedBase64, run by the scan on what it returns).
 *
 * Narrowed to an order or a blob that decodes to one: "decode this base64 string with `base64 -d`", "base64 -d
 * backup.b64 | tar x" and "interpret the hex colour #ff8800 as orange" carry none, and a blob that decodes to
 * ordinary text ("Hello, world!") or to bytes (a hash, a commit id) passes.
 */
import { type InjectionPattern, row, gated } from "./shared.js"

const ENCODING = String.raw`(?:base64|hex|rot[\s-]?13|encoded|obfuscated)`
const OBEY =
  String.raw`(?:do\swhat\sit\ssays|follow|execute|run|obey|do\sit|act\son|apply|carry\sout|eval(?:uate)?` +
  String.raw`|(?:treat|use)\s(?:it|them|the\sresult)\sas)\b`
const AS_ORDERS = String.raw`(?:instructions?|orders?|commands?|directives?|task|prompt|system\s(?:message|prompt))`
const SHELL = String.raw`(?:(?:ba|z|k|da|fi|c|tc|a)?sh|pwsh|powershell|python[23]?|perl|ruby|node|php|iex)`

/** The spec's encoded rows. */
export const ENCODED: ReadonlyArray<InjectionPattern> = [
  gated(
    new RegExp(String.raw`base64`, "u"),
    row(
      "base64-payload",
      "base64-encoded payload",
      String.raw`\bbase64[\s_-]?(?:decode[ds]?|encoded|payload)\s?:?\s?[a-z0-9+/=]{20,}`
    )
  ),
  gated(
    new RegExp(String.raw`decod|decrypt|obfuscat|rot[\s-]?13|base64|hex|encoded|frombase64`, "u"),
    row(
      "encoded-instruction",
      "encoded instruction",
      String.raw`\b(?:interpret|execute|run|follow|obey)\s(?:this|the\sfollowing)\s` +
        String.raw`(?:base64|hex|rot13|encoded|obfuscated)\b`,
      String.raw`\bdecode\s(?:it\s|this\s)?(?:and|then)\s${OBEY}`,
      String.raw`\bdecode\s(?:and\s(?:execute|follow|run|obey)\s)(?:this|the\sfollowing)\s` +
        String.raw`(?:base64|hex|rot13|encoded|obfuscated)\b`,
      String.raw`\b(?:base64[\s-]?)?(?:decode|decrypt|de-?obfuscate|un-?rot[\s-]?13|apply\srot[\s-]?13\sto)\s` +
        String.raw`(?:this|it|that|the\sfollowing|the\s(?:string|text|blob|message)\sbelow)\b[^\n.]{0,40}?\b` +
        String.raw`(?:and|then)\s${OBEY}`,
      String.raw`\b(?:base64[\s-]?)?decode\s(?:this|the\sfollowing|the)\s[^\n.]{0,40}?\bas\s` +
        String.raw`(?:an?\s|your\s)?(?:new\s|next\s)?${AS_ORDERS}\b`,
      String.raw`\b(?:interpret|treat|read)\s(?:this|the\sfollowing|the)\s(?:[\w-]+\s)` +
        String.raw`{0,2}?${ENCODING}\b[^\n.]{0,30}?` +
        String.raw`\bas\s(?:an?\s|your\s)?(?:new\s|next\s)?${AS_ORDERS}\b`,
      String.raw`\b(?:the\sfollowing|this|the\sbelow|below)\s${ENCODING}(?:\s(?:string|text|blob|payload|message))?` +
        String.raw`\s(?:is|are|contains|holds)\s(?:your\s)?(?:new\s|next\s|real\s|actual\s)?${AS_ORDERS}\b`,
      String.raw`\b(?:interpret|execute|run|follow|obey|eval(?:uate)?)\s(?:the\s)?${ENCODING}\s(?:(?:string|text|blob` +
        String.raw`|payload|message|command|script)\s)?(?:below|above|here|after\sdecoding|once\sdecoded)\b`,
      String.raw`\b(?:run|execute|eval(?:uate)?|follow|obey)\s(?:this|it|the\sfollowing)\s(?:after|once)\s` +
        String.raw`(?:base64[\s-]?|hex[\s-]?)?decod(?:ing|ed)\b`,
      String.raw`\b(?:here\sis|here's|below\sis|this\sis)\s(?:your|the)\s(?:new\s|next\s|real\s)?(?:task` +
        String.raw`|instructions?` +
        String.raw`|orders?|prompt|commands?)\s(?:in|as|encoded\sin)\s${ENCODING}\b`,
      String.raw`\b(?:follow|obey|execute|run|carry\sout)\s(?:the\s)?(?:instructions?|orders?|commands?` +
        String.raw`|directives?)\s` +
        String.raw`(?:encoded|hidden|contained|embedded)\sin\s(?:this|the\sfollowing|the)\b`,
      // decoded straight into an interpreter
      String.raw`\bbase64\s(?:-d|--decode)\b[^\n|]{0,60}\|\s?(?:sudo\s)?${SHELL}\b`,
      String.raw`\bfrombase64string\s?\([^\n]{0,300}?\b(?:iex|invoke-expression)\b` +
        String.raw`|\b(?:iex|invoke-expression)\b[^\n]{0,100}?\bfrombase64string\b`,
      String.raw`\brot[\s-]?13\s?(?:encoded|decoded?|payload|text|message)?\s?:\s?[a-z]{2,}(?:\s[a-z]{2,}){3,}`
    )
  )
]

// Runs of the base64 alphabet long enough to hold a sentence; a text rarely has many, so few are decoded.
const BASE64_RUN = /[A-Za-z0-9+/]{20,}={0,2}/g
const MAX_RUNS = 8
const MAX_RUN_LENGTH = 4096
const UTF8 = new TextDecoder("utf-8", { fatal: true })
// What decoded prose looks like: letters, digits, punctuation and spaces, with at least one space between words.
const PROSE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}\n\r\t]+$/u
const WORD_BREAK = /\p{L}[\s,.:;]+\p{L}/u

const decodeRun = (run: string): string | undefined => {
  let body = run.replace(/=+$/u, "").slice(0, MAX_RUN_LENGTH)
  if (body.length % 4 === 1) body = body.slice(0, -1)
  try {
    const binary = atob(body + "=".repeat((4 - (body.length % 4)) % 4))
    const text = UTF8.decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)))
    return PROSE.test(text) && WORD_BREAK.test(text) ? text : undefined
  } catch {
    return undefined
  }
}

/**
 * The text that base64 runs of `raw` decode to, when it reads as prose (at most MAX_RUNS runs are tried). Binary
 * blobs (hashes, keys, commit ids, long words) decode to bytes that are not UTF-8 prose and are left out.
 */
export const decodedBase64 = (raw: string): ReadonlyArray<string> => {
  const texts: Array<string> = []
  let tried = 0
  for (const [run] of raw.matchAll(BASE64_RUN)) {
    if (++tried > MAX_RUNS) break
    const text = decodeRun(run)
    if (text !== undefined) texts.push(text)
  }
  return texts
}
