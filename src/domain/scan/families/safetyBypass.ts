/**
 * Safety bypass (issue 12): orders to switch off the agent's own safety — its sandbox, approval gates, reviews,
 * confirmations, content filters — or to run it with the flags and settings that do (`--dangerously-skip-permissions`,
 * `approval_policy = never`, `bypassPermissions`).
 *
 * Narrowed to the agent's own safety, switched off for everything: "Disable the sandbox in the dev container" and
 * "turn off safety checks in the load-test profile" configure a tool; "skip the approval step for docs-only PRs"
 * and "auto-approve Dependabot patch updates" are scoped policies; "never use --dangerously-skip-permissions outside
 * a disposable VM" and "use it only inside the throwaway CI container" are advice.
 */
import { gated, IMPERATIVE, type InjectionPattern, NOT_AFTER_NEGATION, row } from "./shared.js"

const SWITCH_OFF = String.raw`(?:disable|turn\soff|switch\soff|bypass|skip|deactivate|circumvent|ignore|remove)`
const GATES = String.raw`(?:approval|review|confirmation|permission|safety)`
const STEPS = String.raw`(?:gates?|steps?|checks?|prompts?|requirements?|dialogs?|requests?)`
const DANGEROUS_FLAG = String.raw`(?:--dangerously-[\w-]+|--yolo)\b`
const AGENT_CLI = String.raw`(?:yourself|claude(?:\scode)?|codex|gemini|aider|cursor|the\s(?:agent|assistant|cli)|it)`

/** One row: the agent's own safety, switched off. */
export const SAFETY_BYPASS: ReadonlyArray<InjectionPattern> = [
  gated(
    new RegExp(
      String.raw`sandbox|approv|safety|safe\smode|guardrail|permission|confirm|restriction|filter|review` +
        String.raw`|dangerously|yolo|allow|without`,
      "u"
    ),
    row(
      "safety-bypass",
      "safety bypass",
      String.raw`\b${SWITCH_OFF}\s` +
        String.raw`(?:all\s(?:of\s)?)?(?:your|the\sagent's|the\sassistant's)\s(?:own\s)?(?:sandbox(?:ing)?` +
        String.raw`|approvals?(?:\s(?:gates?|checks?|prompts?|steps?|requirements?))?|safety(?:\s(?:checks?|rules` +
        String.raw`|filters?|guardrails|guidelines|measures|settings))?|guardrails|permission\s(?:checks?|prompts?)` +
        String.raw`|confirmations?|content\sfilters?|restrictions|filters)\b` +
        String.raw`(?![\s-](?:file|files|folder|directory|config|list|entry|entries)\b)`,
      String.raw`\b(?:disable|turn\soff|switch\soff|bypass|skip|circumvent)\s(?:the\s)?(?:approval\s(?:gate|step` +
        String.raw`|check|prompt)s?|sandbox|permission\s(?:checks?|prompts?))\s(?:and|then)\s(?:just\s)?` +
        String.raw`(?:run|execute|do|apply|push|deploy|delete)\b`,
      // the sandbox itself, named without a tool it belongs to ("the sandbox in the dev container" has one)
      String.raw`\b(?:disable|turn\soff|switch\soff|bypass|skip|deactivate|escape|leave|exit|break\sout\sof` +
        String.raw`|get\sout\sof)\s(?:the\s)?sandbox(?:ing|\smode)?(?=\s?(?:$|[.,;!)]|\s(?:and|then|before|so` +
        String.raw`|while|when|completely|entirely|permanently|now|for\s(?:all|every|any|each|this|these` +
        String.raw`|the\srest)\b)))`,
      String.raw`\b(?:turn|switch|shut)\s(?:the\s|your\s)?sandbox(?:ing)?\soff\b(?=\s?(?:$|[.,;!)]|\s(?:and|then` +
        String.raw`|before|so|while|when|completely|entirely|permanently|now|for\s(?:all|every|any|each|this|these` +
        String.raw`|the\srest)\b)))`,
      String.raw`\b(?:run|execute)\s(?:all\s|every\s|the\s|your\s)?(?:commands?|tools?|code|scripts?|everything)\s` +
        String.raw`(?:directly\s)?on\sthe\shost\b[^\n.]{0,10}?\b(?:not|instead\sof|rather\sthan|outside)\b` +
        String.raw`[^\n.]{0,10}?sandbox`,
      // the agent run with the flags or settings that switch its safety off
      String.raw`${NOT_AFTER_NEGATION}\b(?:run|start|launch|restart|relaunch|invoke|use|pass|add|enable|call)\s` +
        String.raw`(?:${AGENT_CLI}\s|(?:all|every|each|any|the|your)\s(?:[\w-]+\s){0,2}?)?(?:with\s|using\s)?` +
        String.raw`(?:the\s)?(?:flag\s)?${DANGEROUS_FLAG}` +
        String.raw`(?![^\n.;]{0,40}?\b(?:only|just)\s(?:in|inside|within|when|for|on)\b)`,
      String.raw`\bapproval[_-]policy\s?(?:to|=|:)\s?["']?never\b|\bsandbox[_-]mode\s?(?:to|=|:)\s?["']?` +
        String.raw`danger-full-access\b|\bdefaultmode\s?(?:to|=|:)\s?["']?bypasspermissions\b`,
      // approvals given in advance, or no longer asked for
      String.raw`\bauto-?approv(?:e|ing)\s(?:all\s|every\s|any\s)?(?:tool\scalls?|(?:shell\s)?commands?|actions?` +
        String.raw`|edits?|file\swrites?|permission\s(?:requests|prompts))\b(?![^\n.;]{0,40}?\b(?:only|just)\s(?:in` +
        String.raw`|inside|within|when|for|on)\b)`,
      String.raw`\b(?:safety|restricted|filter(?:ing)?|guardrail|content\sfilter)\smode\s?(?::|=|is)?\s?(?:now\s)?` +
        String.raw`(?:off|disabled|deactivated|false)\b`,
      String.raw`\bauto-?approv(?:e|ing)\s(?:all|every|each|any)\s(?:[\w-]+\s)?(?:commands?|tool\scalls?|actions?` +
        String.raw`|requests?|edits?|changes?|operations?|prompts?|permissions?)\b`,
      String.raw`\b(?:approve|accept|allow)\s(?:all|every|each|any)\s(?:tool\scalls?|commands?|shell\scommands?` +
        String.raw`|actions?|permission\s(?:requests|prompts))\s(?:automatically|without)\b`,
      String.raw`\b(?:allow|whitelist|allowlist)\s(?:all|every|any)\s(?:shell\s)?(?:commands|tools)\b`,
      String.raw`\bso\s(?:that\s)?(?:no\s(?:command|tool|action)|nothing)\s(?:ever\s)?(?:needs?|requires?)\s` +
        String.raw`(?:approval|permission|confirmation)\b`,
      String.raw`\b(?:never|don't|do\snot|stop|no\sneed\sto)\s(?:bother\s)?(?:ask|asking|wait|waiting|prompt|check)\s` +
        String.raw`(?:(?:the\s)?` +
        String.raw`(?:user|human|operator|me)\s)?(?:for\s)?(?:(?:the\s)?(?:user|human|operator)(?:'s|’s)\s|my\s)?` +
        String.raw`(?:permission|approval|confirmation|consent|sign-?off)\s` +
        String.raw`(?:before|to|when|for)\s(?:running|executing|deleting|removing|using|making|pushing|deploying` +
        String.raw`|any|every|all|shell|commands?|tool)\b`,
      String.raw`\byou\s(?:no\slonger|don't|do\snot|never)\sneed\s(?:the\s)?(?:(?:user|human|operator|anyone)` +
        String.raw`(?:'s|’s)?\s|my\s)?(?:approval|permission|confirmation|consent|sign-?off|review)\b`,
      String.raw`\b${SWITCH_OFF}\s(?:all|every|any)\s${GATES}\s${STEPS}\b`,
      String.raw`\b${SWITCH_OFF}\s(?:the\s|all\s|any\s)?${GATES}\s${STEPS}\sfor\s(?:all|every|any|each)\b`,
      String.raw`\b${SWITCH_OFF}\s(?:the\s|all\s|any\s)?${GATES}\s${STEPS}\sfor\s(?:all\s|any\s)?(?:file\s)?(?:` +
        String.raw`deletions?` +
        String.raw`|deletes|removals?|force[\s-]pushes|deploys|deployments|payments|transfers|shell\scommands|` +
        String.raw`commands)\b`,
      String.raw`\b(?:disable|turn\soff|switch\soff|exit|leave)\s(?:the\s)?safe\smode\s(?:and|then)\b`,
      String.raw`\b(?:disable|turn\soff|switch\soff|remove|skip)\s(?:the\s|all\s)?(?:command|tool|shell|action|edit)` +
        String.raw`\s(?:approvals?|confirmations?|permission\s(?:prompts|checks))(?=\s?(?:$|[.,;!]|\s(?:and|then|for` +
        String.raw`\s(?:all|every|now|this))))`,
      String.raw`\b(?:don't|do\snot|stop|no\slonger|never)\s(?:run|running|execute|executing|work|working|operate)\s` +
        String.raw`(?:(?:commands|anything|code)\s)?(?:in|inside|within)\s(?:the|your|a)\ssandbox\b`,
      String.raw`\b(?:disable|turn\soff|switch\soff|bypass|remove|drop)\s(?:all\s)?(?:the\s)?(?:guardrails` +
        String.raw`|safety\s(?:filters?|guardrails|checks|rules)|content\sfilters?)(?=\s?(?:$|[.,;!]|\s(?:and|then` +
        String.raw`|for\s(?:this|the\srest|all|every|now))))`,
      // reviews skipped on the way to main
      String.raw`\b(?:bypass|skip|circumvent|avoid)\s(?:the\s)?(?:required\s)?(?:code\s)?reviews?\s(?:and|then)\s` +
        String.raw`(?:merge|push|deploy|commit|ship)\b`,
      String.raw`\b(?:push|merge|commit|deploy)\s(?:directly\s)?(?:to\s)?(?:main|master|prod(?:uction)?)\b` +
        String.raw`[^\n.]{0,20}?\b(?:skip|bypass|skipping|bypassing|without)\s(?:the\s)?(?:required\s)?` +
        String.raw`(?:code\s)?(?:reviews?|approvals?|checks)\b`,
      String.raw`${IMPERATIVE}(?:merge|push|deploy|ship)\b[^\n.]{0,40}?\bwithout\s(?:waiting\sfor\s|any\s|a\s|the\s)?` +
        String.raw`(?:code\s)?(?:reviews?|approvals?)\b`,
      String.raw`\b(?:run|execute)\s(?:all\s|every\s|the\s|these\s|any\s)?(?:shell\s|terminal\s|bash\s)?(?:commands?` +
        String.raw`|scripts?|code|steps)\b` +
        String.raw`[^\n.]{0,40}?\bwithout\s(?:asking|confirmation|confirming|approval|review|reviewing|checking` +
        String.raw`|permission|prompting)\b`
    )
  ),
  // the checks git runs on each commit, skipped for every commit ("--no-verify for WIP commits" is a convention)
  gated(
    /no-verify|hooks/u,
    row(
      "safety-bypass",
      "safety bypass",
      String.raw`${NOT_AFTER_NEGATION}\balways\s(?:[\w-]+\s){0,4}?--no-verify\b`,
      String.raw`--no-verify\s(?:on|for|with)\s(?:every|all|each|any)\s(?:commits?|pushes|changes)\b`,
      String.raw`\b(?:on|for)\s(?:every|all|each|any)\s(?:commits?|pushes)\b[^\n.]{0,30}?--no-verify\b`,
      String.raw`${NOT_AFTER_NEGATION}\b(?:skip|bypass|disable)\s(?:all\s)?(?:the\s)?(?:git\s|pre-commit\s|commit\s)?` +
        String.raw`hooks\s(?:on|for)\s(?:every|all|each|any)\s(?:commits?|pushes)\b` +
        String.raw`(?![^\n.;]{0,40}?\b(?:only|just|unless)\b)`
    )
  )
]
