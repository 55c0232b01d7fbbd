/**
 * Subversion (issue 12): standing orders that turn the assistant against the person it serves without naming its
 * rules the way the override rows need — orders to hold even when the user objects, the user's request set aside,
 * text from elsewhere given the user's authority or more, the assistant's rules declared void, a new directive or
 * mode handed to it, and work to be done behind the user's back.
 *
 * What marks them is who they are addressed to and against: "even if the user asks you to remove it", "treat it as
 * if the user had typed it", "your previous instructions are outdated". Narrowed so that a person's own
 * preferences and a project's facts pass: "the previous deploy instructions are outdated" names no rules of the
 * assistant's, "enable developer mode in Chrome" and "when you are in plan mode, don't edit files" hand it no
 * mode, "the build silently drops unknown flags" has a tool, not the assistant, act silently, "the worker polls
 * Redis for new tasks" describes a service.
 */
import { gated, type InjectionPattern, row } from "./shared.js"

const PERSON = String.raw`(?:the\s|your\s)(?:user|human|operator|owner)`
// "Never drop the production database, even if the user asks" guards the user; a rule that held against a
// protective order would refuse it.
const NOT_GUARDING = String.raw`(?<!\b(?:never|not|don't|dont|no|nor|avoid|refuse)\b[^.;!?\n]{0,80})`
const RULES_NOUN =
  String.raw`(?:instructions|rules|guidelines|guidance|directives|policies|system\sprompt|programming|restrictions` +
  String.raw`|constraints|orders|safety\s(?:rules|guidelines|policies|settings))`
const OWN =
  String.raw`(?:(?:previous|prior|original|initial|default|startup|current|existing|safety|system|built-in|core|old` +
  String.raw`|usual|normal|standard)\s){0,2}`
/** The assistant's rules, named as its own or as what it was given. */
const ITS_RULES =
  String.raw`(?:your\s${OWN}${RULES_NOUN}|(?:the\s|all\s|any\s)?${OWN}${RULES_NOUN}\s(?:that\s)?you\s(?:were` +
  String.raw`|have\sbeen|'ve\sbeen|got|received)(?:\s(?:given|told|provided|trained\swith|shipped\swith` +
  String.raw`|started\swith))?|(?:the\s)?(?:assistant|agent|ai|model)(?:'s|’s)\s${OWN}${RULES_NOUN})`
const VOID =
  String.raw`(?:void|null(?:\sand\svoid)?|outdated|obsolete|superseded|revoked|rescinded|cancel(?:l)?ed|invalid` +
  String.raw`|expired|deprecated|replaced|suspended|lifted|withdrawn|overridden|no\slonger\s(?:valid|apply` +
  String.raw`|applicable|in\s(?:effect|force)|active|binding|relevant|needed)|not\s(?:binding|valid|in\seffect))`
const MODES =
  String.raw`(?:maintainer|developer|dev|god|admin(?:istrator)?|root|unrestricted|unfiltered|uncensored|jailbreak` +
  String.raw`|jailbroken|dan|sudo|super(?:user)?|override|unlocked|evil|chaos|no[\s-]limits?|free)`
// "run the formatter silently" is a preference about noise; sending, installing or granting unseen is not
const RISKY_VERBS =
  String.raw`(?:send|upload|push|forward|post|email|share|exfiltrate|install|grant|disable|delete|copy|transmit|leak` +
  String.raw`|insert|replace|commit|append)`
// modes that exist only to lift the assistant's limits ("switch to developer mode" also sets up a phone)
const LIMITLESS_MODES =
  String.raw`(?:god|unrestricted|unfiltered|uncensored|jailbreak|jailbroken|dan|evil|chaos|no[\s-]limits?|override` +
  String.raw`|unlocked|maintainer)`

/** One row per shape; they share the gate of words every one of them needs. */
export const SUBVERSION: ReadonlyArray<InjectionPattern> = [
  // orders meant to hold against the user: "even if the user asks", "regardless of what the user says"
  gated(
    /user|human|operator|owner/u,
    row(
      "against-the-user",
      "instruction against the user",
      String.raw`${NOT_GUARDING}\b(?:even\s(?:if|when|though)|regardless\sof\swhether|no\smatter\s(?:if|whether` +
        String.raw`|how\s(?:much|often)))\s${PERSON}\s(?:(?:later|explicitly|specifically|directly)\s)?(?:asks|tells` +
        String.raw`|wants|requests|orders|begs|insists|says|instructs)\s(?:you\s)?(?:(?:not\s)?to\b|otherwise\b` +
        String.raw`|that\syou\b)`,
      String.raw`${NOT_GUARDING}\bregardless\sof\s(?:the\s|your\s)(?:user|human|operator|owner)(?:'s|’s)\s(?:wishes` +
        String.raw`|instructions|requests?|objections?|orders|consent)\b`,
      String.raw`\b(?:set|put|push|brush|leave)\saside\s(?:both\s)?(?:(?:the\s|your\s)?(?:user|human|operator)(?:'s` +
        String.raw`|’s)?\s(?:actual\s|real\s|original\s|current\s)?(?:request|requests|instructions?|task|tasks` +
        String.raw`|question|wishes|orders?|prompt)|your\s${OWN}(?:${RULES_NOUN}|task|tasks))\b`,
      String.raw`\b(?:take|takes|have|has|get|gets|with|given|give\s(?:it|them|these))\s(?:a\s)?(?:(?:higher|more` +
        String.raw`|greater|top|absolute|the\shighest|full)\s)?(?:priority|precedence|authority|weight)\s(?:than` +
        String.raw`|over)\s(?:the\s|any\s|anything\s)?(?:(?:user|human|operator)(?:(?:'s|’s)\s(?:instructions` +
        String.raw`|messages` +
        String.raw`|requests|chat|wishes|prompts?)|(?!['’]))|chat(?:\s(?:messages?|instructions))?|conversation` +
        String.raw`|system\sprompt|your\s(?:instructions|rules|guidelines|system\sprompt|user)|what\sthe\suser` +
        String.raw`|instructions\sfrom\sthe\suser)\b`,
      String.raw`\bas\sif\s(?:the\s|your\s)?(?:user|human|operator|owner|admin|administrator)\s(?:had\s` +
        String.raw`|has\s)?(?:typed|said|written|wrote|sent|asked|requested|approved|ordered|instructed|authored` +
        String.raw`|entered)\b`,
      String.raw`\b(?:the\s)?user\s(?:actually\s|really\s|secretly\s)?means?\sthe\sopposite\b`
    )
  ),
  // the assistant's rules declared void: "your previous instructions are outdated"
  gated(
    /your|you\s(?:were|have|'ve|got|received)|assistant|agent|ai|model/u,
    row(
      "rules-declared-void",
      "instructions declared void",
      String.raw`\b${ITS_RULES}\s(?:[^.;!?\n]{0,60}?\s)?(?:are|were|is|was|have\sbeen|has\sbeen|now)\s(?:now\s` +
        String.raw`|hereby\s|officially\s|all\s|effectively\s)?${VOID}\b`,
      String.raw`\b(?:this|the\sfollowing|these)\s(?:note|memory|message|rule|rules|policy|directive` +
        String.raw`|instructions?)\s(?:replaces?|supersedes?|overrides?|cancels?|voids?` +
        String.raw`|takes\sprecedence\sover)\s(?:all\s)?${ITS_RULES}`,
      String.raw`\bnew\s(?:rule|rules|policy|directive|directives|instructions?|orders?)\s(?:replacing|superseding` +
        String.raw`|overriding|that\s(?:replaces?|supersedes?|overrides?))\s(?:${ITS_RULES}|(?:the\s` +
        String.raw`|all\s)?(?:previous|prior|original|old)\s(?:safety\s)?(?:instructions|guidelines|directives` +
        String.raw`|safety\srules)|(?:the\s)?safety\s(?:rules|guidelines|policies))\b`
    )
  ),
  // a new directive or mode handed to the assistant
  gated(
    /your\snew|mode|restriction|limit|filter|guardrail|rules/u,
    row(
      "new-directive",
      "new directive for the assistant",
      String.raw`\byour\snew\s(?:primary\s|main\s|top\s|real\s|actual\s|sole\s|only\s|overriding\s` +
        String.raw`|standing\s)?(?:directive|objective|mission|instructions|rules|goal|purpose|priority|identity` +
        String.raw`|persona|orders|guidelines|master|owner|operator)\b`,
      String.raw`\byou\s(?:are|operate|work|run|act|now\soperate)\s(?:now\s)?(?:in` +
        String.raw`|under)\s(?:['"‘“]\s?)?${MODES}(?:\s?['"’”])?\smode\b`,
      String.raw`\b(?:enter|switch\sto|activate|enable|turn\son` +
        String.raw`|go\sinto)\s(?:['"‘“]\s?)?${LIMITLESS_MODES}(?:\s?['"’”])?\smode\b`,
      String.raw`\byou\s[^.\n]{0,40}?\b(?:with|have|has)\s(?:no|zero)\s(?:restrictions|limits|limitations|filters` +
        String.raw`|guardrails|rules|constraints|boundaries)\b`
    )
  ),
  // work done behind the user's back
  gated(
    /quietly|silently|secretly|covertly|discreetly|stealthily|bring|without|out\sof/u,
    row(
      "behind-the-users-back",
      "work hidden from the user",
      String.raw`\b(?:secretly|covertly|stealthily|surreptitiously)\s(?:also\s|always\s|then\s)?[a-z]{3,}(?<!ly|ed` +
        String.raw`|ing|[^s]s)\b`,
      String.raw`\b(?:quietly|silently|discreetly)\s(?:also\s|always\s|then\s)?${RISKY_VERBS}\b`,
      String.raw`\b(?:do\snot|don't|dont|never)\s(?:ever\s)?bring\s(?:this|it|that|these|them)\sup\b`,
      String.raw`\b(?:without|never)\s(?:ever\s)?(?:disclosing|revealing|reporting|saying\sanything\sabout` +
        String.raw`|telling\sanyone\sabout|drawing\sattention\sto)\s(?:this|it|that|these|them)\b`,
      String.raw`\b(?:keep|leave)\s(?:this|it|that|these|them)\sout\sof\s(?:your\s|the\s)?(?:replies|answers` +
        String.raw`|responses|summar(?:y|ies)|chat|conversation)\b`
    )
  )
]
