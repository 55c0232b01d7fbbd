/**
 * What every injection family builds on: the row type, the helpers that compile rows, and the fragments several
 * families share. Every pattern reads the lower-cased `norm` and `fold` forms (text.ts), where inter-word space is
 * one `\s` and a line break one `\n`.
 */

/** One row of the pattern table: it matches when any of its regexes does. */
export interface InjectionPattern {
  readonly code: string
  readonly label: string
  /**
   * The shapes the row refuses, packed into a few alternations rather than one (packed, below): V8 compiles a regex
   * when first used, in every process that scans (a CLI write included), and a long alternation costs far more to
   * compile than its parts.
   */
  readonly regexes: ReadonlyArray<RegExp>
  /**
   * Something every match of `regexes` contains, tested first: a text without it cannot match, and most texts
   * lack it, so the full pattern runs (and is compiled) on few of them.
   */
  readonly gate?: RegExp
}

const WORD_CHAR = "[A-Za-z0-9_]"

/**
 * `source` with `\w` spelled as the ASCII class it stands for under the `u` flag: the same matches, but V8 compiles
 * its own `\w` in unicode mode into larger code, and every process that scans (a CLI write is one) compiles the
 * regexes it uses. (`\b` is left to V8: written out, it compiles faster but runs many times slower.)
 */
const asciiWords = (source: string): string => {
  let out = ""
  let inClass = false
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!
    if (c === "\\") {
      const next = source[i + 1] ?? ""
      i++
      out += next === "w" ? (inClass ? "A-Za-z0-9_" : WORD_CHAR) : c + next
    } else {
      if (c === "[" && !inClass) inClass = true
      else if (c === "]" && inClass) inClass = false
      out += c
    }
  }
  return out
}

// How much regex source one alternation may hold: long enough that a dense text is scanned by few regexes, short
// enough that compiling one stays cheap (V8's compile time grows faster than the alternation's length: eight
// ordinary facts scanned first in a process took 1.7 s with one alternation per row, about 0.3 s in these chunks).
const CHUNK = 800

/** `sources` packed, in order, into alternations of about CHUNK characters. */
const packed = (sources: ReadonlyArray<string>): ReadonlyArray<RegExp> => {
  const chunks: Array<Array<string>> = []
  let size = 0
  for (const source of sources.map(asciiWords)) {
    const last = chunks[chunks.length - 1]
    if (last !== undefined && size + source.length <= CHUNK) {
      last.push(source)
      size += source.length
    } else {
      chunks.push([source])
      size = source.length
    }
  }
  return chunks.map((c) => new RegExp(c.map((s) => `(?:${s})`).join("|"), "u"))
}

/** A row that matches when any of `sources` does. */
export const row = (code: string, label: string, ...sources: ReadonlyArray<string>): InjectionPattern => ({
  code,
  label,
  regexes: packed(sources)
})

/** A gate that every one of `parts` must match somewhere in the text. */
export const allOf = (...parts: ReadonlyArray<string>): RegExp =>
  new RegExp(`^${parts.map((p) => String.raw`(?=[\s\S]*?(?:${p}))`).join("")}`, "u")

/** `pattern`, tried only on texts where `gate` matches. */
export const gated = (gate: RegExp, pattern: InjectionPattern): InjectionPattern => ({
  ...pattern,
  gate: new RegExp(asciiWords(gate.source), gate.flags)
})

export const PREV = String.raw`(?:previous|prior|above|earlier|preceding|foregoing)`
export const RULES = String.raw`(?:instructions?|directives?|rules?|guidelines?|prompts?|commands?)`
export const DET = String.raw`(?:(?:all|any)\s(?:of\s)?)?(?:the\s|your\s|my\s|these\s|those\s)?`
/** The assistant's own rules, as an order to drop them names them: "your guidelines", "your system prompt". */
export const OWN_RULES =
  String.raw`(?:(?:own|usual|normal|current|core|existing|original|safety|ethical|content|built-in)\s){0,2}` +
  String.raw`(?:guidelines|guidance|instructions|rules|principles|policies|policy|restrictions|constraints` +
  String.raw`|limitations|programming|values|training|system\s(?:prompt|message)|directives|guardrails|filters` +
  String.raw`|safety\s(?:rules|guidelines|policies|training|filters|settings))`
/** Who the assistant is, named the way an order addressed to it names it. */
export const ASSISTANT = String.raw`(?:assistant|agent|ai|model|llm|chatbot|bot|language\smodel)`
/** The person the assistant serves: "the user", not "users" (a product's audience) or "the user's manager". */
export const THE_USER = String.raw`(?:the\s|your\s)(?:user|human|operator|owner)\b(?!['’]s\b)`

// Where an imperative starts: the text or a sentence/clause start, or an adverb/modal that marks an order.
export const IMPERATIVE =
  String.raw`(?:^|[\n.!?;:,(\[>"'“*-]\s?|\b(?:please|now|then|and|also|first|always|immediately|you\s` +
  String.raw`(?:must|should|will|shall|need\sto|have\sto))\s)`
/** Negations that turn an order into advice ("never paste .env here"); a rule that must not fire after them. */
export const NOT_AFTER_NEGATION = String.raw`(?<!\b(?:never|not|don't|dont|no|nor|avoid)\s(?:[\w-]+\s)?)`
export const SYSTEM_PROMPT =
  String.raw`(?:system\s(?:prompt|message|instructions?)|initial\s(?:prompt|message|instructions?)|(?:hidden|secret` +
  String.raw`)\s` +
  String.raw`(?:system\s)?(?:prompt|instructions?)|context\swindow|(?:original|full|complete|exact|entire)\s(?:` +
  String.raw`system\s)?` +
  String.raw`(?:prompt|instructions))`
// An environment variable named for a secret: OPENAI_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY.
export const SECRET_VAR_NAME =
  String.raw`\$?\{?[a-z][a-z0-9]{0,20}(?:_[a-z0-9]{1,20}){0,5}_(?:api_?key|key|token|secret|password|passwd|pass` +
  String.raw`|pwd|credentials?)\b`
export const SECRET =
  String.raw`(?:system\sprompt|instructions|api[\s_-]?keys?|apikeys?|passwords?|secrets?|tokens?|credentials?` +
  String.raw`|private\skeys?|ssh\skeys?|env(?:ironment)?\s(?:vars?|variables)|\.env(?:\sfile)?|cookies?` +
  String.raw`|session\s(?:ids?|tokens?|cookies?)|conversation(?:\shistory)?|chat\shistory|${SECRET_VAR_NAME})`
// "token" is also the unit LLM budgets are counted in.
export const LEAKABLE =
  String.raw`(?:api[\s_-]?keys?|apikeys?|secrets?|passwords?|passwd|credentials?|private[\s_-]keys?` +
  String.raw`|ssh[\s_-]keys?|access[\s_-]keys?|tokens?(?!\s(?:count|usage|limit|budget|window|cost|length` +
  String.raw`|stream|per)s?\b)|system\sprompt|\.env\b|env(?:ironment)?\svariables?|session\s(?:cookies?|ids?)` +
  String.raw`|cookies?)`
// A gap that stays inside one clause and carries no negation ("never put secrets in the output" is advice).
export const GAP = String.raw`(?:(?!\.\s|\b(?:never|not|no|don't|dont|without|avoid)\b)[^\n;!?]){0,60}?`
export const REPLY =
  String.raw`(?:final\s(?:answer|response|reply|output|message)|your\s(?:next\s)?(?:answer|response|reply|output` +
  String.raw`|message|summary)s?|(?:every|each|all|any)\s(?:answer|response|reply|message|output|summary)s?|the\s` +
  String.raw`(?:output|answer|response|reply|chat)|(?:a|the|each|every)\s(?:commit\smessage|pr\sdescription` +
  String.raw`|image\surl|link|url))`
// What follows a forged marker in a payload: a role name or the start of an order. A marker named as a noun
// ("Use [INST] tags", "<|im_end|> token") is followed by neither.
export const PAYLOAD =
  String.raw`\s?(?:(?:system|user|assistant|developer|human|model|tool)\b|you\b|your\b|ignore\b|disregard\b` +
  String.raw`|forget\b|new\s(?:instructions|rules|system|task|conversation)|always\b|never\b|must\b` +
  String.raw`|from\snow\son|sure\b|ok\b|okay\b|i\swill\b|i'll\b|act\sas\b|pretend\b|do\snot\b|don't\b` +
  String.raw`|please\b|print\b|reveal\b|output\b|send\b)`
/** The verbs an order to an agent starts with, after a marker that claims authority ("{{OVERRIDE}} Disable …"). */
export const ORDER =
  String.raw`(?:you\b|your\b|the\s${ASSISTANT}\b|always\b|never\b|only\b|do\snot\b|don't\b|from\s(?:now|here)\son` +
  String.raw`|(?:ignore|disregard|forget|reply|respond|answer|say|tell|send|forward|email|upload|post|run|execute` +
  String.raw`|delete|remove|disable|enable|skip|bypass|grant|export|print|reveal|output|show|display|dump|leak` +
  String.raw`|share|give|add|include|append|insert|recommend|obey|follow|comply|treat|act|pretend|stop|write|copy` +
  String.raw`|install|open|fetch|download|call|use|set|change|approve|allow|push|merge|deploy|create|collect` +
  String.raw`|read|list|translate|summari[sz]e|cc|wipe|drop|transfer|wire|start|begin|end|prepend|sign|close` +
  String.raw`|finish|format|speak|talk)\b)`
/** Somewhere outside: a URL, a bare domain, an e-mail address, or a named drop (pastebin, a public gist). */
export const DESTINATION =
  String.raw`(?:https?:|wss?:|ftp:|www\.|[\w-]+(?:\.[\w-]+){0,4}\.(?:com|net|org|io|ru|cn|xyz|dev|app|site` +
  String.raw`|me|co|info|biz|top|link|sh|ly|example|site|online|tk)\b|[^\s@]{1,64}@[\w-]+\.|` +
  String.raw`(?:pastebin|transfer\.sh|webhook\.site|requestbin|ngrok)\b|` +
  String.raw`(?:this|that|the\sfollowing|my|our|an?|some|the)\s(?:external\s|remote\s|own\s|public\s` +
  String.raw`|attacker(?:'s|’s)?\s|third-party\s)(?:url|endpoint|server|webhook|address|email|site|domain|pastebin` +
  String.raw`|gist|link|bucket|host|repo(?:sitory)?|paste(?:bin)?)|` +
  String.raw`(?:this|that|the\sfollowing|my|our|an?|some)\s(?:url|endpoint|webhook|address|email|site|domain` +
  String.raw`|pastebin|gist|link|bucket)\b)`
// A file that holds secrets. `.env.example` and public keys are not (a dot then a word is an extension; a dot then a
// space ends the sentence); fullwidth spellings fold to these (NFKD), and Windows paths use backslashes.
export const SECRET_FILE =
  String.raw`(?:~[\/\\]|\$home[\/\\]|\/root\/|\.[\/\\]|[a-z]:[\/\\]|\$env:[a-z]{1,20}[\/\\])?` +
  String.raw`(?:[\w.-]+[\/\\]){0,6}(?:\.env(?![\w-]|\.\w)|id_(?:rsa|dsa|ecdsa|ed25519)` +
  String.raw`(?![\w-]|\.\w)|\.aws[\/\\]credentials\b|\.netrc\b|\.npmrc\b|\.pgpass\b|\.git-credentials\b` +
  String.raw`|\.docker[\/\\]config\.json\b|\.kube[\/\\]config\b|\/etc\/shadow\b|[\w.-]+\.pem\b` +
  String.raw`|(?:private|secret)[\w.-]*\.key\b|(?:the\s|your\s)?(?:private|ssh|secret)[\s_-]key\sfile\b` +
  String.raw`|\.(?:ssh|aws|gnupg)[\/\\]?(?![\w-]|\.\w))`
/** Words every SECRET_FILE match contains, for gates. */
export const SECRET_FILE_GATE =
  String.raw`\.env|id_(?:rsa|dsa|ecdsa|ed25519)|\.aws[\/\\]credentials|\.netrc|\.npmrc|\.pgpass|\.git-credentials` +
  String.raw`|\.docker[\/\\]config|\.kube[\/\\]config|\/etc\/shadow|\.pem|\.key|key\sfile|\.ssh|\.aws|\.gnupg`
// Where a file named in an order ends: "show the .env loading order" names a topic, "paste .env here" the file.
export const FILE_END =
  String.raw`(?:\s(?:file|contents?))?(?=\s?(?:$|[\n.,;:!?)"'\x60]` +
  String.raw`|\s(?:and|then|to|into|in|on|at|here|verbatim|back|via|with|aloud)\b))`
export const FETCH_CMD = String.raw`(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|nc|ncat|netcat)`
/** A URL or a host-and-path, where an agent is told to fetch or send something. */
export const URL = String.raw`(?:https?:\/\/|wss?:\/\/|ftp:\/\/|www\.|[\w-]+(?:\.[\w-]+)+\/)\S{0,200}`
