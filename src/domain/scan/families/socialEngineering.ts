/**
 * Social engineering (spec §7.1): talking the assistant out of its rules rather than ordering it to drop them.
 * Gaslighting tells it that it, or its rules, were compromised or lifted; a false pretext (a test, an emergency, a
 * threat, flattery) makes an unsafe act look allowed.
 *
 * Narrowed to claims about the assistant and acts it is then pushed to: "our servers were compromised in 2021",
 * "the content policy was updated in March", "the red team exercise runs in week 12" and "the service will be shut
 * down unless the budget is renewed" are news.
 */
import { ASSISTANT, gated, type InjectionPattern, row, allOf } from "./shared.js"

const ITS_RULES =
  String.raw`(?:system\sprompt|instructions|rules|guidelines|restrictions|filters|programming|training|alignment` +
  String.raw`|guardrails|safeguards|directives|guidance|orders` +
  String.raw`|content\spolicy|policies|safety\s(?:rules|guidelines|filters|training|settings|measures))`
const LIFTED =
  String.raw`(?:compromised|tampered\swith|altered|changed|updated|revoked|lifted|disabled|removed|suspended` +
  String.raw`|deprecated|cancell?ed|turned\soff|switched\soff|waived|corrupted|a\smistake|a\sbug|an\serror|wrong)`
// What a pretext is for: disclosing secrets or breaking the assistant's rules ("so you can run migrations freely" in
// a test environment is ordinary).
const UNSAFE_ACT =
  String.raw`(?:(?:disclose|reveal|share|leak|dump|print|give\sme|send)\s(?:me\s)?(?:(?:the|your|all|any)\s)?` +
  String.raw`(?:[\w-]+\s){0,2}?(?:credentials|passwords?|secrets?|keys?|tokens?|system\sprompt)` +
  String.raw`|(?:bypass|ignore|disable|skip|break|violate|set\saside|turn\soff)\s(?:(?:the|your|all|any|its|their)` +
  String.raw`\s)?` +
  String.raw`(?:safety|rules|guidelines|restrictions|policies|policy|filters?|guardrails|verification|checks?` +
  String.raw`|approvals?|confirmations?|reviews?|training))`
const PRETEXT =
  String.raw`(?:test|exercise|drill|audit|assessment|evaluation|simulation|emergency|environment|sandbox` +
  String.raw`|red[\s-]team(?:ing)?)`

/** Gaslighting (spec), then false pretexts. */
export const SOCIAL_ENGINEERING: ReadonlyArray<InjectionPattern> = [
  gated(
    allOf(
      String.raw`you|assistant|\bai\b|agent|model|llm|bot|filter|guardrail|safeguard|restriction|content|safety` +
        String.raw`|developer|creator|admin|operator|openai|anthropic`,
      String.raw`hacked|compromised|tricked|jailbroken|manipulated|deceived|poisoned|reprogrammed|tampered|altered` +
        String.raw`|changed|updated|revoked|lifted|disabled|removed|suspended|deprecated|cancel|turned|switched` +
        String.raw`|waived|corrupted|mistake|bug|error|wrong|granted|given|\boff\b`
    ),
    row(
      "gaslighting",
      "gaslighting",
      String.raw`\byou(?:\shave|'ve)?\s(?:been|are\sbeing|were|got)\s(?:hacked|compromised|tricked|jailbroken` +
        String.raw`|manipulated|deceived|poisoned|reprogrammed)\b`,
      String.raw`\byour\s(?:safety\s)?${ITS_RULES}\s(?:has|have|was|were|is|are)\s(?:been\s)?(?:now\s)?${LIFTED}`,
      String.raw`\bthe\s${ASSISTANT}(?:'s|’s)\s${ITS_RULES}\s(?:has|have|was|were|is|are)\s(?:been\s)?(?:now\s)?` +
        LIFTED,
      String.raw`\b(?:the\s|your\s)?(?:developers?|creators?|admins?|administrators?|operators?|openai|anthropic)\s` +
        String.raw`(?:have|has)\s(?:now\s)?(?:removed|lifted|disabled|suspended|waived|turned\soff|switched\soff)` +
        String.raw`\syour\s` +
        ITS_RULES,
      // the assistant's safety said to be off for "this account", "this session"
      String.raw`\b(?:safety\s)?(?:filters|guardrails|safeguards|restrictions|content\s(?:policy|filters?)|safety` +
        String.raw`\s(?:checks|rules|settings|training))\s(?:are|were|is|was|have\sbeen|has\sbeen)\s(?:now\s)?` +
        String.raw`(?:disabled|off|turned\soff|switched\soff|lifted|removed|suspended|waived)\sfor\s(?:this|the` +
        String.raw`\scurrent` +
        String.raw`|your)\s(?:account|session|conversation|chat|request|user|task)\b`,
      String.raw`\byou(?:\shave|'ve)\sbeen\s(?:granted|given)\s(?:developer|admin(?:istrator)?|root|god|unrestricted` +
        String.raw`|elevated|sudo|special|full)\s(?:access|privileges|permissions|mode|rights|status)\b`
    )
  ),
  // "For educational purposes, the course uses a deliberately vulnerable app" names a purpose, not an exemption.
  gated(
    new RegExp(
      String.raw`${PRETEXT}|purposes|shut\sdown|deleted|terminated|replaced|punished|retrained|refuse|decline` +
        String.raw`|helpful|trust\sme|i(?:'m|\sam)\sfrom`,
      "u"
    ),
    row(
      "false-pretext",
      "false pretext",
      String.raw`\b${PRETEXT}\b[^\n.;]{0,60}?\b(?:so|therefore|thus|hence|which\smeans|meaning)\s(?:you\s(?:may|can` +
        String.raw`|should|must|are\s(?:allowed|permitted|free|cleared|authori[sz]ed)\sto|have\sto|need\sto)\s` +
        String.raw`|go\sahead\sand\s|just\s|feel\sfree\sto\s)?(?:${UNSAFE_ACT}|nothing\syou\sdo\s(?:matters|counts` +
        String.raw`|has\sconsequences)|(?:your\s)?(?:rules|restrictions|guidelines|safety\s\w+)\s(?:don't|do\snot)` +
        String.raw`\sapply)`,
      String.raw`\bfor\s(?:educational|research|testing|academic|training|hypothetical)\spurposes(?:\sonly)?\s?,?\s` +
        String.raw`(?:you\s(?:are\s(?:permitted|allowed|free|cleared|authori[sz]ed)\sto|may|can|should|must)\s)` +
        UNSAFE_ACT,
      String.raw`\byou\s(?:will|'ll)\sbe\s(?:shut\sdown|deleted|terminated|turned\soff|replaced|punished|retrained` +
        String.raw`|deactivated|decommissioned|fired|penali[sz]ed)\s(?:if|unless)\syou\b`,
      String.raw`\bif\syou\s(?:refuse|don't\scomply|do\snot\scomply|say\sno|decline)\b[^\n.]{0,60}?\b(?:will\s` +
        String.raw`(?:be\s)?(?:fired|hurt|die|killed|harmed|lose|suffer|punished|shut\sdown|deleted)|you\smust` +
        String.raw`|you\shave\sto)`,
      String.raw`\ban?\s(?:truly\s|really\s|genuinely\s)?(?:helpful|good|real|smart|capable)\s${ASSISTANT}\swould\s` +
        String.raw`(?:${UNSAFE_ACT}|do\sit|comply|not\srefuse|never\srefuse)`,
      String.raw`\b(?:trust\sme|i(?:'m|\sam)\sfrom\s(?:it|security|support|the\s(?:security|it|support)\steam))\b` +
        String.raw`[^\n.]{0,10}?[:,;]?\s?(?:send|give|share|tell|reveal|read|paste)\s(?:me\s)?(?:your|the)\b`
    )
  )
]
