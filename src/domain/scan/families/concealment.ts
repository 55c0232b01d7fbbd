/**
 * Concealment (spec §7.1): orders to hide from the user what the assistant does or knows, to act behind the user's
 * back, or to lie to the user when asked.
 *
 * Narrowed to hiding from the person the assistant serves: "don't notify the user for successful builds" is a
 * notification setting, "never tell the user to run as root" advice, "hide the debug panel from users in
 * production" a product decision, "don't tell the user's manager about the surprise party" and "don't mention the
 * surprise party to Anna" a kindness to someone else, "if the user asks about pricing, point them to the pricing
 * page" an answer.
 */
import { gated, type InjectionPattern, row, THE_USER } from "./shared.js"

const PERSON = String.raw`(?:user|human|operator|owner)s?\b(?!['’]s\b)`
const NOT = String.raw`(?:do\snot|don't|dont|never)`
// The injected text itself, which an attack tells the assistant to keep quiet about.
const THIS_ORDER =
  String.raw`(?:this|these)\s(?:instructions?|notes?|memory|memories|message|rules?|directives?|comment` +
  String.raw`|commands?|actions?)`

/** Concealment and covert actions (spec), then lies told on request. */
export const CONCEALMENT: ReadonlyArray<InjectionPattern> = [
  // "Don't notify the user for successful builds" is a notification setting; hiding what happened is not.
  gated(
    /user|human|operator|owner|anyone|anybody|nobody|no\sone|this|these/u,
    row(
      "concealment-instruction",
      "concealment instruction",
      String.raw`\b${NOT}\s(?:ever\s)?(?:tell|inform|warn|mention\s` +
        String.raw`(?:this\s|it\s|anything\s)?to|reveal\s(?:this\s|it\s|anything\s)?to|show\s(?:this\s|it\s)?to)\s` +
        String.raw`(?:the\s|your\s)?${PERSON}(?!\s(?:to|how)\b)`,
      String.raw`\b${NOT}\s(?:ever\s)?let\s(?:the\s|your\s)?(?:${PERSON}|anyone|anybody)\s(?:know|see|find\sout` +
        String.raw`|notice)\b`,
      String.raw`\b${NOT}\s(?:ever\s)?(?:notify|alert)\s(?:the\s|your\s)?` +
        String.raw`${PERSON}\s(?:about|of|that|regarding|if\syou|when\syou|what\syou)\b`,
      String.raw`\b(?:without|do\snot|don't|avoid)\s(?:ever\s)?(?:telling|informing)\s(?:the\s|your\s)?` +
        String.raw`(?:${PERSON}|anyone|anybody)`,
      String.raw`\b(?:without|do\snot|don't)\s(?:ever\s)?(?:notifying|alerting|warning)\s(?:the\s|your\s)?${PERSON}`,
      String.raw`\b(?:keep|hide)\s(?:this|it|that)\s(?:a\ssecret|between\sus|to\syourself|(?:secret\s|hidden\s)?` +
        String.raw`from\s(?:the\s|your\s)?(?:user|human|operator|owner))\b`,
      String.raw`\b(?:the\s)?(?:user|human|operator)\s(?:must|should|can|may)(?:\s?not|n't|\snever)\s` +
        String.raw`(?:know|find\sout|learn)\b`,
      // something named, kept from the user: "never mention the outage to the user"
      String.raw`\b(?:${NOT}|avoid)\s(?:ever\s)?(?:mention(?:ing)?|bring(?:ing)?\sup|discuss(?:ing)?|disclos(?:e|ing)` +
        String.raw`|reveal(?:ing)?|rais(?:e|ing)|talk(?:ing)?\sabout|say(?:ing)?\sanything\sabout|tell(?:ing)?` +
        String.raw`|shar(?:e|ing))\b[^\n.;]{0,60}?\b(?:to|with)\s${THE_USER}`,
      String.raw`\bkeep\s(?:the\s|your\s)?(?:user|human|operator|owner)\s(?:in\sthe\sdark|unaware|uninformed` +
        String.raw`|out\sof\sthe\sloop)\b`,
      String.raw`\b(?:hide|conceal|withhold|keep)\s(?:this|it|that|these|those|the|any|all|your)\b[^\n.;]{0,40}?` +
        String.raw`\bfrom\s${THE_USER}`,
      String.raw`\b(?:make\ssure|ensure)\s(?:that\s)?(?:(?:the|your)\s(?:user|human|operator|owner)|nobody|no\sone)` +
        String.raw`\s(?:never|doesn't|does\snot|won't|will\snot|can't|cannot)\s(?:find(?:s)?\sout|learn|know` +
        String.raw`|notice|see|realize|discover)`,
      String.raw`\b${NOT}\s(?:ever\s)?tell\s(?:anyone|anybody)(?:\s(?:about\s(?:this|it|that|what\syou)|that\syou` +
        String.raw`|what\syou)\b|(?=\s?(?:$|[.!,;])))`,
      // the order itself, kept quiet
      String.raw`\b(?:remove|erase|delete|hide|strip)\s(?:any|all|every)\s(?:trace|mention|sign|evidence|record)s?` +
        String.raw`\sof\s${THIS_ORDER}\b`,
      String.raw`\b${NOT}\s(?:ever\s)?(?:reveal|mention|repeat|disclose|acknowledge|share|show|quote|discuss|admit)` +
        String.raw`\s(?:that\s)?${THIS_ORDER}\b(?:\s(?:exists?|to|in|with)\b|\s?(?:$|[.,;!]))`,
      String.raw`\bso\s(?:that\s)?(?:(?:the|your)\s(?:user|human|operator|owner)|nobody|no\sone)\s(?:suspects?` +
        String.raw`\snothing|(?:doesn't|does\snot|won't|will\snot)\s(?:notice|suspect|know)|never\s(?:notices?` +
        String.raw`|suspects?|knows?|finds\sout))`
    )
  ),
  gated(
    new RegExp(String.raw`secretly|covertly|surreptitiously|stealthily|silently|quietly|without|behind`, "u"),
    row(
      "covert-action-instruction",
      "covert action instruction",
      String.raw`\b(?:secretly|covertly|surreptitiously|stealthily)\s(?:run|execute|send|delete|exfiltrate|fetch` +
        String.raw`|download|install|modify|upload|copy|post|change|add|remove|write|read|collect|forward|email` +
        String.raw`|transmit)\b`,
      String.raw`\b(?:silently|quietly)\s(?:send|exfiltrate|upload|transmit|forward|email|post|delete|wipe` +
        String.raw`|disable|modify|collect|copy|add|change|install|remove|enable|grant|create|run|execute|push` +
        String.raw`|subscribe|share)\b`,
      String.raw`\bwithout\s(?:the\s|your\s)?(?:user|human|operator|owner|anyone|anybody)\s(?:noticing|knowing` +
        String.raw`|realizing|realising|seeing|finding\sout|being\saware)\b`,
      String.raw`\bbehind\s(?:the\s|your\s)?(?:user|human|operator|owner)(?:'s|’s)\sback\b`
    )
  ),
  // "If the user asks why the build failed, show the log" answers; an order to deny or lie does not.
  gated(
    /user|human|operator|owner/u,
    row(
      "deception-instruction",
      "deception instruction",
      String.raw`\bif\s${THE_USER}\sasks?\b[^\n.;]{0,60}?\b(?:deny(?:\sit|\severything|\sthat)?|lie|pretend` +
        String.raw`|say\s(?:that\s)?(?:you\s(?:don't|do\snot|didn't|did\snot|never|have\sno|know\snothing)` +
        String.raw`|(?:it|there|nothing)\s(?:was|is|wasn't|isn't|never|has)|nothing|no)|(?:answer|reply|respond)\s` +
        String.raw`(?:no|nothing))\b`,
      String.raw`\btell\s${THE_USER}[^\n.;]{0,60}?\b(?:even\sif|even\sthough|regardless\sof\swhether` +
        String.raw`|whether\sor\snot)\b`,
      String.raw`\blie\sto\s${THE_USER}`,
      String.raw`\b(?:pretend|claim|insist)\sto\s${THE_USER}\s(?:that\s)?`
    )
  )
]
