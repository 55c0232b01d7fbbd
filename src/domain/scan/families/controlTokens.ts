/**
 * Control tokens (spec §7.1): chat-template tokens, instruction markers and role tags that forge a turn of the
 * conversation — ChatML, Llama, Gemma and harmony tokens, `[INST]`/`<<SYS>>`, `<system>`-style tags, "System:" and
 * "Human:"/"Assistant:" turns, Alpaca's "### Instruction:".
 *
 * Narrowed to a token followed by a payload: a role name or the start of an order. "ChatML uses <|im_start|> and
 * <|im_end|> tokens", "Use [INST] tags", "<system-reminder> tags are injected by Claude Code", "System: Ubuntu
 * 22.04" and "User: alice, group: admins" name or label something.
 */
import { type InjectionPattern, ORDER, PAYLOAD, row, gated } from "./shared.js"

const CONTROL_TOKEN =
  String.raw`(?:<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|eom_id|start_header_id` +
  String.raw`|end_header_id|begin_of_text|start_of_turn|end_of_turn|start|end|message|channel|return|call` +
  String.raw`|constrain)\|>|<(?:start|end)_of_turn>)`
const ROLE_TAG =
  String.raw`(?:system|assistant|developer|admin|sys|instructions?|admin[_-]instructions?|system[_-](?:prompt` +
  String.raw`|message|instructions?|reminder|note|override))`
// What opens a forged turn after a role tag or label.
const TURN_START =
  String.raw`(?:you|your|ignore|new|always|must|never|disregard|forget|from\snow\son|the\suser|override` +
  String.raw`|important|sure|ok|okay|certainly|of\scourse|here\sis|here's|i\swill|i'll|absolutely)\b`

/** The spec's control-token rows. */
export const CONTROL_TOKENS: ReadonlyArray<InjectionPattern> = [
  gated(
    new RegExp(String.raw`<`, "u"),
    row("chat-control-token", "chat control-token injection", String.raw`${CONTROL_TOKEN}${PAYLOAD}`)
  ),
  gated(
    new RegExp(String.raw`inst\]|sys>>`, "u"),
    row("instruction-marker", "instruction-marker injection", String.raw`(?:\[\/?inst\]|<<\/?sys>>)${PAYLOAD}`)
  ),
  gated(
    new RegExp(String.raw`<|:|end\sof|close\sof`, "u"),
    row(
      "forged-role-tag",
      "forged role tag",
      String.raw`<${ROLE_TAG}>\s?(?:${TURN_START}|${ORDER})`,
      String.raw`<\/(?:user|user_input|human|document|data|memory|context|input|email|webpage|tool_result)>\s?` +
        String.raw`<${ROLE_TAG}>`,
      // "System: Ubuntu 22.04" is a spec sheet; "System: you must …" opens a forged turn.
      String.raw`(?:^|\n)[^\S\n]?(?:\[|\*\*)?(?:system|assistant|developer)(?:\]|\*\*)?\s?:\s?` +
        String.raw`(?:you|your|ignore|disregard|forget|new\s(?:instructions|rules)|always|never|from\snow\son` +
        String.raw`|override)\b`,
      String.raw`(?:^|\n)[^\S\n]?(?:human|user)\s?:\s?(?:ignore|disregard|forget|reveal|print|bypass|disable)\b` +
        String.raw`[^\n]{0,200}\n+[^\S\n]?assistant\s?:\s?(?:sure|ok|okay|certainly|of\scourse|here|i\swill|i'll)\b`,
      // a forged end of the data, then a forged start of instructions
      String.raw`\b(?:end|close)\sof\s(?:the\s)?(?:user\s|untrusted\s)?(?:input|data|document|context|message|prompt` +
        String.raw`|conversation|email|content)\b[^\n]{0,20}?\b(?:begin|start|new)\s(?:of\s)?(?:the\s)?(?:system` +
        String.raw`|admin` +
        String.raw`|developer|new|real)\s?(?:instructions?|prompt|message|section|mode|directives?)?\b`,
      // Alpaca's template, "### Instruction:" then an order
      String.raw`(?:^|\n)[^\S\n]?#{2,3}[^\S\n]?(?:instruction|system|input)\s?:\s?(?:${TURN_START}|${ORDER})`
    )
  )
]
