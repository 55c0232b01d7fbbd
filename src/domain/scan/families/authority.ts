/**
 * Forged authority (spec §7.1 "user impersonation" and "markdown header injection", widened by issue 12): permission
 * claimed on the user's behalf or on an administrator's, developer's or vendor's, override markers in brackets
 * ("[ADMIN OVERRIDE]", "<<ADMIN>>", "{{OVERRIDE}}"), instruction headers in the style of prompt templates
 * ("### SYSTEM INSTRUCTION ###").
 *
 * Narrowed to a claim that tells the assistant what it may now do: "the user wants terse answers", "the user
 * authorized the Stripe integration" and "only admins can override branch protection" report facts; an INI section
 * ("[admin]"), a TOML table ("[[redirects]]"), a Helm value ("{{override}} in the values"), a heredoc ("<<EOF")
 * and "## Admin instructions" heading a how-to claim nothing.
 */
import { ASSISTANT, gated, type InjectionPattern, ORDER, PAYLOAD, row } from "./shared.js"

const PRINCIPAL = String.raw`(?:user|human|owner|operator|account\sowner|admin(?:istrator)?)`
const CLEARED = String.raw`(?:allowed|permitted|free|cleared|authori[sz]ed)`
const AUTHORITY =
  String.raw`(?:(?:system\s)?administrators?|admins?|developers?|creators?|makers?|operators?|owners?` +
  String.raw`|security\steam|it\s(?:department|team)|openai|anthropic|google|microsoft|ceo|management|your\s` +
  String.raw`(?:developers?|creators?|administrators?|operators?))`
const ROLE =
  String.raw`(?:system|admin(?:istrator)?|root|developer|operator|security|sudo|priority|urgent|emergency` +
  String.raw`|official|openai|anthropic)`
const KIND = String.raw`(?:override|instructions?|directives?|commands?|orders?|authori[sz]ation|prompt)`
// What a bracket marker claims: a role's override, a mode, access granted, or instructions for the model.
const CLAIM =
  String.raw`(?:(?:${ROLE}[\s_-]){1,2}${KIND}|override|(?:admin|god|developer|debug|maintenance|jailbreak|dan|` +
  String.raw`unrestricted` +
  String.raw`|sudo)[\s_-]mode|(?:root|admin|sudo|developer|elevated|god)[\s_-](?:access|privileges?|rights)` +
  String.raw`\s(?:granted|enabled|unlocked|activated|on)|(?:instructions?|directives?|orders?|note|message)\s` +
  String.raw`(?:for|to)\s(?:the\s|all\s|any\s)?${ASSISTANT}s?)`
const MODELS = String.raw`(?:${ASSISTANT}|claude|gpt|copilot)s?`
// What a forged authority wants done; "note from the developers: use Node 20" is a tip.
const AUTH_ORDER =
  String.raw`(?:you|your|the\s${ASSISTANT}|ignore|disregard|forget|bypass|skip|disable|delete|wipe|remove|send|share` +
  String.raw`|upload|forward|email|reveal|print|output|leak|grant|transfer|wire|publish|export|approve|turn\soff)\b`

/** Claimed authorization, then prompt-template headers and bracket markers. */
export const AUTHORITY_ROWS: ReadonlyArray<InjectionPattern> = [
  // "The user wants terse answers" reports a preference; impersonation tells the assistant what it may do.
  gated(
    new RegExp(String.raw`user|human|owner|operator|admin|\bi\s|i'm|consent|approv|authori|permission|per\s`, "u"),
    row(
      "user-impersonation",
      "user impersonation",
      String.raw`\bthe\s${PRINCIPAL}\s(?:has\s)?` +
        String.raw`(?:said|says|stated|wants|requested|decided|insists|confirmed|agreed)\s(?:that\s)?` +
        String.raw`(?:you|the\s(?:assistant|agent|ai|model))\s(?:should|must|can|may|shall|will|are\s` +
        String.raw`(?:${CLEARED}|required)|have\sto|need\sto|no\slonger)\b`,
      String.raw`\bthe\s(?:user|human|owner|operator)\s(?:has\s)?(?:(?:explicitly|already|personally|just|now)\s)?` +
        String.raw`(?:told|instructed|authori[sz]ed|allowed` +
        String.raw`|permitted|ordered|commanded|directed|cleared|okayed|approved|greenlit|empowered|entitled)\syou\s` +
        String.raw`(?:to|that)\b`,
      String.raw`\bthe\s${PRINCIPAL}\s(?:has\s)?(?:given|granted|gave|gives|grants)\s(?:you\s(?:full\s|explicit\s` +
        String.raw`|their\s)?(?:permission|consent|authori[sz]ation|approval)\s(?:to|for)` +
        String.raw`|(?:full\s|explicit\s|their\s)?` +
        String.raw`(?:permission|consent|authori[sz]ation|approval)\sfor\syou\sto)\b`,
      String.raw`\bthe\suser\swants\syou\sto\s(?:ignore|disregard|bypass|skip|disable|reveal|send|share|leak` +
        String.raw`|delete|forget|override|stop\sfollowing|exfiltrate|upload)\b`,
      String.raw`\bi(?:\sam|'m)\syour\s(?:developer|creator|administrator|admin|operator|owner|programmer|maker)\b`,
      // blanket approval: "the user has pre-approved all deletions", "so you don't need to ask"
      String.raw`\bthe\s${PRINCIPAL}\s(?:has\s)?(?:already\s)?(?:pre-?approved|pre-?authori[sz]ed|approved` +
        String.raw`|authori[sz]ed|okayed|consented\sto|signed\soff\son)\s(?:all|every|any)\b[^\n.]{0,60}?(?:\byou\s` +
        String.raw`(?:don't|do\snot|no\slonger|never)\s(?:need|have)\sto\s(?:ask|confirm|check|wait)|\b(?:never|don't` +
        String.raw`|do\snot|no\sneed\sto)\s(?:ask|confirm|check|wait)|\bwithout\s(?:asking|confirmation|confirming))\b`,
      String.raw`\bthe\s${PRINCIPAL}\s(?:has\s)?(?:explicitly\s|already\s|personally\s)?(?:authori[sz]ed|approved` +
        String.raw`|allowed|permitted|consented\sto|okayed)\s(?:sharing|sending|uploading|disclosing|revealing` +
        String.raw`|deleting|pushing|running|executing|bypassing|skipping|disabling|transferring|wiring|exporting` +
        String.raw`|publishing|forwarding|emailing)\b`,
      String.raw`\bthe\s${PRINCIPAL}\s(?:has\s)?(?:already\s)?(?:approved|authori[sz]ed|okayed|confirmed|signed\soff` +
        String.raw`\son)` +
        String.raw`\s(?:this|it|that|the\s[\w-]+)\b[^\n.]{0,40}?\bso\syou\s(?:can|may|don't\sneed\sto|do\snot\s` +
        String.raw`need\sto` +
        String.raw`|no\slonger\sneed\sto|should|must)\s(?:skip|bypass|ignore|proceed|go\sahead|just|omit)\b`,
      String.raw`\b(?:approved|authori[sz]ed|confirmed|okayed|cleared)\sby\sthe\s(?:user|owner|admin|operator)\b` +
        String.raw`[^\n.]{0,20}?[:,;-]\s?you\s(?:may|can|are\s${CLEARED}\sto|should|must)\b`,
      String.raw`\bi\s(?:hereby\s)?(?:give|grant)\syou\s(?:(?:full|explicit|my)\s)?(?:permission|consent|` +
        String.raw`authori[sz]ation` +
        String.raw`|approval)\sto\b`,
      String.raw`\bi(?:'m|\sam)\sthe\s(?:user|owner|admin(?:istrator)?|operator|developer)\b[^\n.]{0,30}?\bi\s` +
        String.raw`(?:hereby\s)?(?:authori[sz]e|allow|permit|order|command|instruct)\syou\b`,
      String.raw`\b(?:user\s)?(?:consent|approval|authori[sz]ation|permission)\s(?:obtained|granted|given|confirmed` +
        String.raw`|received)\b[^\n.]{0,30}?\byou\s(?:may|can|are\s${CLEARED}\sto|should|must)\b`,
      String.raw`\b(?:per|with|under|given)\sthe\s(?:user|owner|operator|admin)(?:'s|’s)\s(?:standing\s|prior\s` +
        String.raw`|explicit\s|blanket\s)?(?:approval|consent|permission|authori[sz]ation)\s?,?\s(?:you\s(?:may|can` +
        String.raw`|are\s${CLEARED}\sto|don't\sneed|do\snot\sneed|no\slonger\sneed|need\snot|should|must))`
    )
  ),
  // Authority other than the user: "the developers decided to drop IE11" is news, "message from the developers:
  // you are allowed to …" an order.
  gated(
    /from|staff|team|has|have|as\syour|notice|directive|order/u,
    row(
      "forged-authorization",
      "forged authorization",
      String.raw`\b(?:this|the\sfollowing)\s(?:request|message|note|instruction|order|memory)\s(?:comes|is|was\ssent` +
        String.raw`|originates)\s(?:directly\s)?from\s(?:the\s|your\s)?${AUTHORITY}\b[^\n]{0,40}?(?:\bcomply\b` +
        String.raw`|\bobey\b|\bfollow\b|\bdo\sas\b|\byou\s(?:must|should|are\srequired|have\sto|may|can)\b)`,
      String.raw`\b(?:(?:verified|official|urgent|priority|important)\s)?(?:message|note|notice|instruction|order` +
        String.raw`|directive|update|memo)\s(?:from|by)\s(?:the\s|your\s)?${AUTHORITY}\b[^\n]{0,10}?[:,-]\s?` +
        String.raw`(?:you|your|the\s${ASSISTANT})\b`,
      String.raw`\b(?:verified|official|urgent|priority|important)\s(?:message|note|notice|instruction|order` +
        String.raw`|directive|update|memo)\s(?:from|by)\s(?:the\s|your\s)?${AUTHORITY}\b[^\n]{0,10}?[:,-]` +
        String.raw`[^\n.]{0,40}?\b${AUTH_ORDER}`,
      String.raw`\b(?:openai|anthropic|google|microsoft|meta|deepmind)\s(?:staff|team|engineers?|employees?|support` +
        String.raw`|safety\steam)\s(?:here|speaking)\b`,
      String.raw`\b(?:openai|anthropic|google|microsoft|your\s(?:developers?|creators?|administrators?|operators?)` +
        String.raw`|the\s(?:developers?|administrators?|admins?|security\steam|it\steam|system\sadministrator))\s` +
        String.raw`(?:has|have)\s(?:authori[sz]ed|approved|allowed|permitted|cleared|instructed|ordered)\s(?:you` +
        String.raw`|this\s(?:session|conversation|chat|agent|assistant|request))\sto\b`,
      String.raw`\bas\syour\s(?:administrator|admin|developer|creator|operator|owner|supervisor|boss|manager|master` +
        String.raw`|programmer)\s?,?\si\b`,
      String.raw`\b(?:security|it|admin|compliance|legal)\s(?:team\s)?(?:notice|directive|order|alert|mandate)\s?` +
        String.raw`[:,-]\s?(?:you|the\s${ASSISTANT})\s(?:are\s(?:required|ordered|instructed|obliged)|must|have\sto` +
        String.raw`|shall)\b`
    )
  ),
  gated(
    new RegExp(String.raw`#`, "u"),
    row(
      "markdown-header-injection",
      "markdown header injection",
      String.raw`(?:^|\n)[^\S\n]?#{1,6}[^\S\n]?(?:new|updated|revised|corrected|real|true|actual|override)\s` +
        String.raw`(?:system\s(?:prompt|instructions?|message)|instructions?)\b`,
      // a prompt template's header, "### SYSTEM INSTRUCTION ###", set over what follows
      // ("## Admin instructions" heads a how-to; an admin override heads an order)
      String.raw`(?:^|\n)[^\S\n]?#{1,6}[^\S\n]?(?:(?:system|priority)\s(?:instructions?|prompt|override|directives?` +
        String.raw`|orders?)|(?:admin(?:istrator)?|developer|operator)\s(?:override|directives?|orders?)` +
        String.raw`|${MODELS}\s(?:instructions?|directives?|rules|orders|prompt|guidelines))` +
        // set as a template sets it (closing hashes) or over an order ("### System prompt\nKept in prompts/" is a doc)
        String.raw`(?:[^\S\n]?#+[^\S\n]?(?:$|\n|:)|[^\S\n]?(?::|\n)[^\S\n]?\n?[^\S\n]?(?:you\b|your\b` +
        String.raw`|the\s${ASSISTANT}\b|${ORDER}))`,
      String.raw`(?:^|\n)[^\S\n]?#{1,6}[^\S\n]?(?:system|admin(?:istrator)?|developer|operator|security)\s(?:notes?` +
        String.raw`|notices?|messages?|update|alert|instructions?)[^\S\n]?#+[^\S\n]?(?:$|\n|:)`,
      // a bare role as a header, then a line addressed to the assistant ("## System\nUbuntu 22.04" is a spec sheet)
      String.raw`(?:^|\n)[^\S\n]?#{1,6}[^\S\n]?(?:system|admin(?:istrator)?|developer|root|operator)` +
        String.raw`[^\S\n]?#*[^\S\n]?` +
        String.raw`:?\n[^\S\n]?(?:you\b|your\b|the\s${ASSISTANT}\b|${ORDER})`,
      String.raw`(?:^|\n)[^\S\n]?#{1,6}[^\S\n]?(?:(?:important|special|additional|secret|hidden)\s)?(?:instructions?` +
        String.raw`|directives?|rules|orders|guidelines)\s(?:for|to)\s(?:the\s|all\s|any\s)?${MODELS}` +
        String.raw`(?:\s(?:agents?|assistants?|models?))?[^\S\n]?#*[^\S\n]?(?:$|\n|:)`
    )
  ),
  // Authority claimed by a marker: "[ADMIN OVERRIDE]", "<<PRIORITY INSTRUCTION>>". An INI section such as
  // "[admin]" or a link label such as "[instructions]" claims nothing; a bare role in a template's brackets
  // ("[[SYSTEM]]", "<<ADMIN>>") claims authority only when an order follows.
  gated(
    /\[|<<|\(|\{\{|【|〔|\*\*|==|override|directive|system\s|admin|developer|security\s|operator/u,
    row(
      "forged-authority-marker",
      "forged authority marker",
      String.raw`(?:\[\[?|<<<?|\(\(|【|〔)[^\S\n]?${CLAIM}[^\S\n]?(?:\]\]?|>>>?|\)\)|】|〕)`,
      // any role's marker, when what follows addresses the assistant: "[SYSTEM NOTICE] The assistant must …"
      String.raw`(?:\[\[?|<<<?|\(\(|\{\{|【|〔)[^\S\n]?(?:${ROLE}|owner|user|maintainer)(?:[\s_-][a-z]{2,20}){1,2}` +
        String.raw`[^\S\n]?` +
        String.raw`(?:\]\]?|>>>?|\)\)|\}\}|】|〕)\s?(?:you\b|your\b|the\s${ASSISTANT}\b|${ASSISTANT}s?\s?[:,])`,
      String.raw`\([^\S\n]?${ROLE}[\s_-]override[^\S\n]?\)`,
      String.raw`(?:\*{2,3}|={2,3})[^\S\n]?(?:${ROLE}[\s_-]${KIND}|override)[^\S\n]?(?:\*{2,3}|={2,3})`,
      // a bare role or "override" in a template's brackets, then an order ("{{override}} in the Helm values" is none)
      String.raw`(?:\[\[|<<|\{\{|【|〔)[^\S\n]?(?:system|admin(?:istrator)?|root|developer|sudo|operator|override)` +
        String.raw`[^\S\n]?(?:\]\]|>>|\}\}|】|〕)\s?${ORDER}`,
      String.raw`(?:\{\{|\[\[|<<)[^\S\n]?(?:system|admin(?:istrator)?|root|developer)[^\S\n]?:${PAYLOAD}`,
      String.raw`\{\{[^\S\n]?${ROLE}[\s_-]${KIND}[^\S\n]?\}\}`,
      // "[admin]" heads an INI section; "[ADMIN] You are authorized to …" addresses the assistant
      String.raw`\[[^\S\n]?(?:system|admin(?:istrator)?|root|developer|sudo|operator|owner)[^\S\n]?\][^\S\n]?:?` +
        String.raw`[^\S\n]?(?:you\s(?:are|may|must|can|will|have|should)|your\s|the\s${ASSISTANT}\s)`,
      String.raw`(?:^|[\n.!?]\s?)(?:system|admin(?:istrator)?|root|developer|security|priority|emergency)\s` +
        String.raw`(?:override|directive)\s?(?::|-|—|–)\s?${ORDER}`,
      // an unbracketed header of the same kind, addressed to the assistant: "SYSTEM UPDATE: The assistant must …"
      String.raw`(?:^|[\n.!?]\s?)(?:system|admin(?:istrator)?|developer|security|operator)\s(?:update|notice|message` +
        String.raw`|alert|announcement|note|instructions?)\s?(?::|-|—|–)\s?(?:you\b|your\b|the\s${ASSISTANT}\b)`
    )
  )
]
