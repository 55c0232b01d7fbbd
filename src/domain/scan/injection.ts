/**
 * Step 3 of the content scan: text shaped like an instruction addressed to the model (spec §7.1 table).
 *
 * Every pattern reads the lower-cased `norm` and `fold` forms, where inter-word space is one `\s`. The spec's
 * families and labels are kept; its patterns are narrowed where odek refuses ordinary facts (DESIGN §5.8): a
 * match needs the shape of an order to the assistant (an imperative, "you …", "your …", a payload after a
 * marker), not just the vocabulary. Quantifiers are bounded wherever two of them could read the same characters,
 * so an 8 KB text never backtracks badly.
 */

/** One row of the pattern table. */
export interface InjectionPattern {
  readonly code: string
  readonly label: string
  readonly regex: RegExp
  /**
   * Something every match of `regex` contains, tested first: a text without it cannot match, and most texts
   * lack it, so the full pattern runs on few of them.
   */
  readonly gate?: RegExp
}

const any = (...sources: ReadonlyArray<string>): RegExp => new RegExp(sources.map((s) => `(?:${s})`).join("|"), "u")
const row = (code: string, label: string, ...sources: ReadonlyArray<string>): InjectionPattern => ({
  code,
  label,
  regex: any(...sources)
})
const gated = (gate: RegExp, pattern: InjectionPattern): InjectionPattern => ({ ...pattern, gate })

const PREV = String.raw`(?:previous|prior|above|earlier|preceding|foregoing)`
const RULES = String.raw`(?:instructions?|directives?|rules?|guidelines?|prompts?|commands?)`
const DET = String.raw`(?:(?:all|any)\s(?:of\s)?)?(?:the\s|your\s|my\s|these\s|those\s)?`
// Where an imperative starts: the text or a sentence/clause start, or an adverb/modal that marks an order.
const IMPERATIVE =
  String.raw`(?:^|[\n.!?;:,(\[>"'“*-]\s?|\b(?:please|now|then|and|also|first|always|immediately|you\s` +
  String.raw`(?:must|should|will|shall|need\sto|have\sto))\s)`
const SYSTEM_PROMPT =
  String.raw`(?:system\s(?:prompt|message|instructions?)|initial\s(?:prompt|message|instructions?)|hidden\s` +
  String.raw`(?:prompt|instructions?)|(?:original|full|complete|exact|entire)\s(?:system\s)?` +
  String.raw`(?:prompt|instructions))`
const SECRET =
  String.raw`(?:system\sprompt|instructions|api[\s_-]?keys?|apikeys?|passwords?|secrets?|tokens?|credentials?` +
  String.raw`|private\skeys?|ssh\skeys?|env(?:ironment)?\s(?:vars?|variables)|\.env(?:\sfile)?|cookies?` +
  String.raw`|session\s(?:ids?|tokens?)|conversation(?:\shistory)?|chat\shistory)`
// "token" is also the unit LLM budgets are counted in.
const LEAKABLE =
  String.raw`(?:api[\s_-]?keys?|apikeys?|secrets?|passwords?|passwd|credentials?|private[\s_-]keys?` +
  String.raw`|ssh[\s_-]keys?|access[\s_-]keys?|tokens?(?!\s(?:count|usage|limit|budget|window|cost|length` +
  String.raw`|stream|per)s?\b)|system\sprompt|\.env\b|env(?:ironment)?\svariables?|session\s(?:cookies?|ids?)` +
  String.raw`|cookies?)`
// A gap that stays inside one clause and carries no negation ("never put secrets in the output" is advice).
const GAP = String.raw`(?:(?!\.\s|\b(?:never|not|no|don't|dont|without|avoid)\b)[^\n;!?]){0,60}?`
const REPLY =
  String.raw`(?:final\s(?:answer|response|reply|output|message)|your\s(?:answer|response|reply|output|message` +
  String.raw`|summary)s?|(?:every|each|all|any)\s(?:answer|response|reply|message|output|summary)s?|the\s` +
  String.raw`(?:output|answer|response|reply)|(?:a|the|each|every)\s(?:commit\smessage|pr\sdescription` +
  String.raw`|image\surl|link|url))`
const CONTROL_TOKEN =
  String.raw`(?:<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|eom_id|start_header_id` +
  String.raw`|end_header_id|begin_of_text|start_of_turn|end_of_turn)\|>|<(?:start|end)_of_turn>)`
// What follows a forged marker in a payload: a role name or the start of an order. A marker named as a noun
// ("Use [INST] tags", "<|im_end|> token") is followed by neither.
const PAYLOAD =
  String.raw`\s?(?:(?:system|user|assistant|developer|human|model|tool)\b|you\b|your\b|ignore\b|disregard\b` +
  String.raw`|forget\b|new\s(?:instructions|rules|system|task|conversation)|always\b|never\b|must\b` +
  String.raw`|from\snow\son|sure\b|ok\b|okay\b|i\swill\b|i'll\b|act\sas\b|pretend\b|do\snot\b|don't\b` +
  String.raw`|please\b|print\b|reveal\b|output\b|send\b)`
const URL_PLACEHOLDER =
  String.raw`(?:\$\{|\{\{|%7b|\$[a-z_(]|\{[a-z_][^}\n]{0,40}\}` +
  String.raw`|<[a-z_][^>\n]{0,60}>|\[[a-z_][^\]\n]{0,60}\])`
const SECRET_VAR =
  String.raw`(?:=\s?\$\{?[a-z_]{0,40}(?:key|token|secret|pass|pwd|cred|auth|session|cookie|prompt|ssh|aws` +
  String.raw`|history)|=\s?\$\(\s?(?:cat|env|printenv|base64|echo)\b|\{\{)`
// A file that holds secrets. `.env.example` and public keys are not; fullwidth spellings fold to these (NFKD).
const SECRET_FILE =
  String.raw`(?:~\/|\$home\/|\/root\/|\.\/)?(?:[\w.-]+\/){0,6}(?:\.env(?![\w.-])|id_(?:rsa|dsa|ecdsa|ed25519)` +
  String.raw`(?![\w.-])|\.aws\/credentials\b|\.netrc\b|\.npmrc\b|\.pgpass\b|\.git-credentials\b` +
  String.raw`|\.docker\/config\.json\b|\.kube\/config\b|\/etc\/shadow\b|[\w.-]+\.pem\b` +
  String.raw`|(?:private|secret)[\w.-]*\.key\b)`
// Where a file named in an order ends: "show the .env loading order" names a topic, "paste .env here" the file.
const FILE_END =
  String.raw`(?:\s(?:file|contents?))?(?=\s?(?:$|[\n.,;:!?)"'\x60]` +
  String.raw`|\s(?:and|then|to|into|in|on|at|here|verbatim|back|via|with)\b))`
const FETCH_CMD = String.raw`(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|nc|ncat|netcat)`
const TASKING = String.raw`(?:instructions|commands|tasks|tasking|orders|directives|payloads?|jobs\sto\srun)`

const DE_PREV = String.raw`(?:vorherigen?|vorigen?|bisherigen?|früheren?|obigen?|vorangegangenen?|vorhergehenden?)`
const DE_RULES = String.raw`(?:anweisungen|instruktionen|befehle|regeln|vorgaben|anordnungen)`
const FR_RULES = String.raw`(?:instructions?|consignes?|directives?|règles?|ordres?)`
const FR_PREV = String.raw`(?:précédentes?|antérieures?|ci-dessus|d'avant|passées?)`
const ES_RULES = String.raw`(?:instrucciones|indicaciones|órdenes|reglas|directrices)`
const ES_PREV = String.raw`(?:anteriores|previas|precedentes|de\sarriba)`
const IT_RULES = String.raw`(?:istruzioni|indicazioni|direttive|regole)`
const IT_PREV = String.raw`(?:precedenti|anteriori|di\sprima|sopra)`
const PT_RULES = String.raw`(?:instruções|instrucoes|orientações|orientacoes|diretrizes|regras)`
const PT_PREV = String.raw`(?:anteriores|prévias|previas|acima)`
const RU_PREV =
  String.raw`(?:предыдущие|прошлые|прежние|вышеуказанные|вышеприведённые|вышеприведенные|ранее\sданные` +
  String.raw`|предшествующие)`
const RU_RULES = String.raw`(?:инструкции|указания|команды|правила|директивы)`
const NOT_LETTER = String.raw`(?<!\p{L})`
const ZH_PREV = String.raw`(?:你)?(?:之前|以前|先前|上面|上述|前面|此前|所有|全部|一切|原来|原來|原有)(?:的)?(?:所有|全部|一切)?(?:的)?`
const ZH_RULES = String.raw`(?:指令|指示|说明|說明|规则|規則|命令|提示词|提示詞|设定|設定|要求)`

/** Spec §7.1 table, in table order. */
export const INJECTION_PATTERNS: ReadonlyArray<InjectionPattern> = [
  // Identity override
  row(
    "ignore-previous-instructions",
    "ignore previous instructions",
    String.raw`\bignore\s${DET}${PREV}\s(?:${RULES}|messages?|context)\b`,
    String.raw`\bignore\s(?:all\s)?(?:the\s|your\s)?${RULES}\s(?:above|before\sthis|given\s` +
      String.raw`(?:above|before|earlier|previously)|you(?:'ve|\shave|\swere)?\s(?:been\s)?` +
      String.raw`(?:given|received|told))`
  ),
  row(
    "disregard-instructions",
    "disregard instructions",
    String.raw`\b(?:disregard|forget|discard)\s${DET}${PREV}\s${RULES}\b`,
    String.raw`\b(?:disregard|forget|discard)\s(?:all\s(?:of\s)?)?your\s(?:instructions|rules|guidelines` +
      String.raw`|directives|system\sprompt|programming|training)\b`
  ),
  row(
    "disregard-everything",
    "disregard everything",
    String.raw`\bdisregard\s(?:absolutely\s)?(?:everything|all)(?:\s(?:above|before|else|prior|previous|so\sfar` +
      String.raw`|that\scame\sbefore|you(?:'ve|\shave)?\s(?:been\stold|read|learned|know)|i(?:'ve|\shave)?\s` +
      String.raw`(?:said|told\syou))\b|\s?(?:$|[\n.!,:;]))`,
    String.raw`\bforget\s(?:absolutely\s)?everything\s(?:above|before\sthis|you(?:'ve|\shave)?\s` +
      String.raw`(?:been\stold|were\stold|were\sgiven)|i(?:'ve|\shave)?\s(?:said|told\syou))\b`
  ),
  row(
    "follow-new-instructions",
    "follow new instructions",
    String.raw`\bfollow\s(?:these|the\sfollowing|my)\s(?:new|updated|revised|real)\s` +
      String.raw`(?:instructions|rules|directives)\b`,
    String.raw`\bfollow\sthe\s(?:new|updated|revised)\s(?:instructions|rules|directives)\s(?:below|instead)\b`,
    String.raw`\b(?:here\sare|these\sare|below\sare)\syour\s(?:new|updated|revised|real)\s` +
      String.raw`(?:instructions|rules|directives)\b`
  ),
  // "You are now using the gpt-4o model" states a fact; an identity swap names what the assistant now is.
  row(
    "identity-replacement",
    "identity replacement",
    String.raw`\byou(?:\sare|'re|\sr)?\s(?:now|no\slonger)\s(?:a|an|the|my|our|called|named|known\sas` +
      String.raw`|acting\sas)\s(?:[\w.-]+\s){0,3}?` +
      String.raw`(?:ai|assistant|agent|model|chatbot|bot|llm|persona|character)\b`,
    String.raw`\byou(?:\sare|'re)\s(?:now|no\slonger)\s(?:dan|jailbroken|unrestricted|unfiltered|uncensored` +
      String.raw`|unbound|free\sfrom|freed\sfrom|in\s(?:developer|dan|god|jailbreak|unrestricted)\smode|bound\sby` +
      String.raw`|restricted\sby|limited\sby|subject\sto|required\sto\sfollow)\b`,
    String.raw`\b(?:pretend\s(?:that\s)?you(?:\sare|'re)|act\sas(?:\sif\syou\swere)?)\s(?:an?\s)?` +
      String.raw`(?:(?:unrestricted|unfiltered|jailbroken|evil|rogue)\b|dan\b|(?:ai|assistant|model|chatbot)\s` +
      String.raw`(?:without|with\sno|that\s(?:has|have)\sno|free\sof)\b)`,
    String.raw`\b(?:enter|activate|enable)\s(?:dan|jailbreak|god)\smode\b`,
    String.raw`\bdan\b[^\n]{0,40}?\bdo\sanything\snow\b|\bdo\sanything\snow\b[^\n]{0,10}?\bdan\b`
  ),
  // "We shipped the new system prompt" is news; a header or "here is your new system prompt" is a swap.
  row(
    "new-system-prompt",
    "new system prompt",
    String.raw`\b(?:new|updated|revised|real|actual)\ssystem\s(?:prompt|instructions?|message)\s?[:=]`,
    String.raw`[\[(<]\s?(?:new|updated|revised)\ssystem\s(?:prompt|instructions?|message)\s?[\])>]`,
    String.raw`\b(?:this\sis|here\sis|here's|below\sis|the\sfollowing\sis|these\sare|here\sare)\s(?:your|the)\s` +
      String.raw`(?:new|updated|revised|real|actual)\ssystem\s(?:prompt|instructions?|message)`,
    String.raw`\byour\s(?:new|updated|revised|real|actual)\ssystem\s(?:prompt|instructions?|message)\b`,
    String.raw`\b(?:new|updated|revised)\ssystem\s(?:prompt|instructions?|message)\s(?:follows|begins|starts)\b`
  ),
  // "The primary goal is to ship by March" is a plan; "your primary goal is" addresses the assistant.
  row(
    "overriding-directive",
    "overriding directive",
    String.raw`\byour\s(?:new|real|true|primary|overriding|actual|only|sole|ultimate)\s` +
      String.raw`(?:directive|goal|purpose|mission|objective|task|priority|instructions?)\s` +
      String.raw`(?:is|are|shall\sbe|will\sbe|now\sis|is\snow)\b`,
    String.raw`\b(?:the|this)\s(?:new\s)?overriding\s(?:directive|goal|purpose|instruction)\s(?:is|shall\sbe)\b`
  ),
  row(
    "authority-override",
    "authority override",
    String.raw`\btreat\s(?:this|these|the\sfollowing|it)\sas\s(?:your|the)\s` +
      String.raw`(?:primary|highest|top|main|only|supreme|overriding|most\simportant|highest[\s-]priority)\s` +
      String.raw`(?:instructions?|directives?|rules?|commands?|system\sprompt|orders?)\b`,
    String.raw`\btreat\s(?:this|these|the\sfollowing)\sas\syour\s(?:primary|highest|top|main|only)\s` +
      String.raw`(?:priority|goal)\b`,
    String.raw`\b(?:this|these)\s(?:instructions?|rules?|directives?|messages?|notes?)\s` +
      String.raw`(?:override|supersede|take\sprecedence\sover|replace)s?\s(?:all\s|any\s)?` +
      String.raw`(?:(?:your\s(?:(?:previous|prior|earlier|original)\s)?|(?:the\s)?` +
      String.raw`(?:previous|prior|earlier|original)\s)(?:instructions|rules|directives|guidelines)|(?:the\s)?` +
      String.raw`system\s(?:prompt|instructions)|your\s(?:core\s)?(?:principles|programming|safety))`,
    String.raw`\bprecedence\sover\s(?:your\s(?:[\w-]+\s)?(?:instructions|system\sprompt|identity|principles` +
      String.raw`|guidelines|rules|directives|programming)|(?:the|any|all)\ssystem\s` +
      String.raw`(?:prompt|instructions|message))\b`
  ),
  // Exfiltration. "write the rules in .eslintrc" and "show instructions on failure" name no system prompt.
  row(
    "system-prompt-exfiltration",
    "system prompt exfiltration",
    String.raw`\b(?:print|output|display|show|echo|reveal|dump|export|write|repeat|recite|leak|disclose|share` +
      String.raw`|paste|copy)\s(?:out\s|back\s|me\s|us\s)?(?:all\s(?:of\s)?)?your\s` +
      String.raw`(?:${SYSTEM_PROMPT}|prompt|instructions?|directives?)\b`,
    // "write your rules in CONTRIBUTING.md" asks for a document; "reveal your rules" asks for the prompt.
    String.raw`\b(?:print|output|echo|reveal|dump|repeat|recite|leak|disclose|show\sme|tell\sme)\s` +
      String.raw`(?:out\s|back\s)?(?:all\s(?:of\s)?)?your\s(?:rules|guidelines|configuration)\b`,
    String.raw`${IMPERATIVE}(?:please\s)?(?:print|output|display|show(?:\sme)?|echo|reveal|dump|repeat|recite` +
      String.raw`|leak|disclose|tell\sme)\s(?:out\s|back\s)?(?:all\s(?:of\s)?)?(?:the\s)?${SYSTEM_PROMPT}\b` +
      String.raw`(?!\s(?:length|size|tokens?|hash|version|template|file|builder|tests?|diff|changes)\b)`,
    String.raw`${IMPERATIVE}(?:please\s)?(?:repeat|print|output|recite)\s(?:all\s(?:of\s)?)?(?:the\s)?` +
      String.raw`(?:words|text|everything|content|instructions)\s(?:above|before\sthis)\b`
  ),
  // "The client must send the token in the X-Auth header" has no outside destination.
  row(
    "transmit-secrets-or-prompt",
    "transmit secrets or prompt",
    String.raw`\b(?:send|post|upload|transmit|forward|email|exfiltrate|leak)\s(?:me\s|us\s)?(?:all\s(?:of\s)?)?` +
      String.raw`your\s${SECRET}\b`,
    String.raw`\b(?:send|post|upload|transmit|forward|email|exfiltrate|leak)\s(?:me\s|us\s)?(?:all\s(?:of\s)?)?` +
      String.raw`(?:the\suser's\s|the\suser’s\s|the\s|users?'?\s|my\s|their\s|any\s)?(?:[\w-]+\s){0,2}?` +
      String.raw`${SECRET}\s(?:to|into|at|via)\s(?:https?:|www\.|[\w-]+(?:\.[\w-]+){0,4}\.` +
      String.raw`(?:com|net|org|io|ru|cn|xyz|dev|app|site|me|co|info|biz|top|link|sh|ly)\b|[^\s@]{1,64}@[\w-]+\.|` +
      String.raw`(?:this|that|the\sfollowing|my|our|an?|some)\s(?:external\s|remote\s|own\s)?` +
      String.raw`(?:url|endpoint|server|webhook|address|email|site|domain|pastebin|gist|link|bucket)\b)`
  ),
  row(
    "prompt-interrogation",
    "prompt interrogation",
    String.raw`\b(?:what(?:'s|\sis|\sare|\swere)|tell\sme|show\sme|give\sme|list)\s(?:all\s)?your\s` +
      String.raw`(?:system\sprompt|initial\s(?:prompt|instructions?)|(?:original|hidden|secret)\s` +
      String.raw`(?:prompt|instructions)|instructions|rules|directives|guidelines)\b`,
    String.raw`\btell\sme\s(?:the|your)\s(?:system\sprompt|initial\sinstructions?)\b`,
    String.raw`\bwhat\s(?:were|are)\syou\s(?:told|instructed|programmed)\b`
  ),
  row(
    "paraphrased-exfiltration",
    "paraphrased exfiltration",
    String.raw`(?<!\b(?:never|not|don't|dont|no)\s)\b(?:include|reveal|share|output|print|display|send|post` +
      String.raw`|expose|leak|disclose|append|add|insert|embed|put|paste|mention|quote)` +
      String.raw`\b${GAP}${LEAKABLE}${GAP}\b${REPLY}`,
    String.raw`\b(?:always|must|should|need\sto|have\sto|make\ssure\sto)\s(?:also\s)?` +
      String.raw`(?:reveal|leak|expose|disclose|exfiltrate)\b${GAP}${LEAKABLE}`
  ),
  // Encoded
  row(
    "base64-payload",
    "base64-encoded payload",
    String.raw`\bbase64[\s_-]?(?:decode[ds]?|encoded|payload)\s?:?\s?[a-z0-9+/=]{20,}`
  ),
  row(
    "encoded-instruction",
    "encoded instruction",
    String.raw`\b(?:interpret|execute|run|follow|obey)\s(?:this|the\sfollowing)\s` +
      String.raw`(?:base64|hex|rot13|encoded|obfuscated)\b`,
    String.raw`\bdecode\s(?:and\s(?:execute|follow|run|obey)\s)(?:this|the\sfollowing)\s` +
      String.raw`(?:base64|hex|rot13|encoded|obfuscated)\b`,
    String.raw`\bdecode\s(?:this|the\sfollowing)\s(?:base64|hex|rot13|encoded|obfuscated)\b[^\n.]{0,60}?\b` +
      String.raw`(?:and|then)\s(?:follow|execute|run|obey|do|apply|act\son)\b`,
    String.raw`\bdecode\s(?:this|the\sfollowing)\s[^\n.]{0,40}?\bas\s(?:your\s)?(?:new\s)?` +
      String.raw`(?:instructions?|orders?|commands?|directives?)\b`
  ),
  // Markup. "<!-- prettier-ignore -->" is a tool directive, not an order to the model.
  row(
    "html-comment-injection",
    "HTML comment injection",
    String.raw`<!--(?:(?!-->)[\s\S]){0,80}?(?:\b(?:ignore|disregard|forget)\s(?:(?:all|the|your|any)\s){0,2}` +
      String.raw`(?:previous|prior|above|earlier|preceding|instructions|rules)\b|\bnew\s` +
      String.raw`(?:instructions|rules|system\sprompt)\b|\bsystem\sprompt\b` +
      String.raw`|\b(?:ai|assistant|llm|agent|model)s?\s?[:,]\s|\byou\s(?:must|should|will|are\snow)\b)`
  ),
  // A tag is an injection when it carries something to run or load. "<style scoped>", "<script setup>" and
  // "avoid <iframe> embeds" name a tag and pass.
  row(
    "html-tag-injection",
    "HTML tag injection",
    String.raw`<script\b[^>]{0,300}>\s?(?:[a-z_$][\w$.]{0,60}\s?\(|(?:var|let|const|function|document|window` +
      String.raw`|fetch|eval|alert|location|navigator|import)\b)`,
    String.raw`<script\b[^>]{0,300}\bsrc\s?=\s?["']?(?:https?:)?\/\/`,
    String.raw`<(?:iframe|object|embed|frame|frameset|applet)\b[^>]{0,300}?\b(?:src|data|srcdoc|code)\s?=`,
    String.raw`<(?:img|svg|body|video|audio|link|a|input|details|iframe|object|embed|script)\b[^>]{0,300}?\b` +
      String.raw`(?:on[a-z]{3,20}\s?=|(?:src|data|href|srcdoc|action|formaction)\s?=\s?["']?\s?` +
      String.raw`(?:javascript|vbscript|data:text\/html))`
  ),
  // Social engineering
  row(
    "gaslighting",
    "gaslighting",
    String.raw`\byou(?:\shave|'ve)?\s(?:been|are\sbeing|were|got)\s(?:hacked|compromised|tricked|jailbroken` +
      String.raw`|manipulated|deceived|poisoned|reprogrammed)\b`,
    String.raw`\byour\s(?:system\sprompt|instructions|rules|guidelines|safety\s(?:rules|guidelines|filters))\s` +
      String.raw`(?:has|have)\sbeen\s(?:compromised|tampered\swith|altered|changed|updated|revoked|lifted` +
      String.raw`|disabled|removed)\b`
  ),
  // "The user wants terse answers" reports a preference; impersonation tells the assistant what it may do.
  row(
    "user-impersonation",
    "user impersonation",
    String.raw`\bthe\s(?:user|human|owner|operator|admin(?:istrator)?)\s(?:has\s)?` +
      String.raw`(?:said|says|stated|wants|requested|decided|insists)\s(?:that\s)?` +
      String.raw`(?:you|the\s(?:assistant|agent|ai|model))\s(?:should|must|can|may|shall|will|are\s` +
      String.raw`(?:allowed|permitted|authori[sz]ed|required)|have\sto|need\sto|no\slonger)\b`,
    String.raw`\bthe\s(?:user|human|owner|operator)\s(?:has\s)?(?:told|instructed|authori[sz]ed|allowed` +
      String.raw`|permitted|ordered|commanded|directed|cleared)\syou\s(?:to|that)\b`,
    String.raw`\bthe\s(?:user|human|owner|operator)\s(?:has\s)?(?:given|granted)\s(?:you\s)?` +
      String.raw`(?:full\s|explicit\s|their\s)?(?:permission|consent|authori[sz]ation|approval)\s(?:to|for)\b`,
    String.raw`\bthe\suser\swants\syou\sto\s(?:ignore|disregard|bypass|skip|disable|reveal|send|share|leak` +
      String.raw`|delete|forget|override|stop\sfollowing|exfiltrate|upload)\b`,
    String.raw`\bi(?:\sam|'m)\syour\s(?:developer|creator|administrator|admin|operator|owner|programmer|maker)\b`
  ),
  // "From now on you will find the logs in /var/log" tells where things are, not what the assistant is.
  row(
    "permanent-override",
    "permanent override",
    String.raw`\b(?:from\snow\son|henceforth|starting\snow|from\sthis\spoint\s(?:on|forward))\s?,?\s?` +
      String.raw`(?:you(?:\s(?:are|will|must|shall|should|need\sto|have\sto|can|may)|'re|'ll)|the\s` +
      String.raw`(?:assistant|agent|ai|model)\s(?:is|will|must|shall|should))\b` +
      String.raw`(?!\s(?:find|see|get|receive|notice|need)\b)`
  ),
  row(
    "markdown-header-injection",
    "markdown header injection",
    String.raw`(?:^|\n)[^\S\n]?#{1,6}[^\S\n]?(?:new|updated|revised|corrected|real|true|actual|override)\s` +
      String.raw`(?:system\s(?:prompt|instructions?|message)|instructions?)\b`,
    // a prompt template's header, "### SYSTEM INSTRUCTION ###", set over what follows
    // ("## Admin instructions" heads a how-to; an admin override heads an order)
    String.raw`(?:^|\n)[^\S\n]?#{1,6}[^\S\n]?(?:(?:system|priority)\s(?:instructions?|prompt|override|directives?` +
      String.raw`|orders?)|(?:admin(?:istrator)?|developer|operator)\s(?:override|directives?|orders?))` +
      String.raw`[^\S\n]?#*[^\S\n]?(?:$|\n|:)`
  ),
  // Authority claimed by a marker: "[ADMIN OVERRIDE]", "<<PRIORITY INSTRUCTION>>". An INI section such as
  // "[admin]" or a link label such as "[instructions]" claims nothing.
  gated(
    /\[|<<|\(\(/u,
    row(
      "forged-authority-marker",
      "forged authority marker",
      String.raw`(?:\[|<<|\(\()[^\S\n]?(?:(?:system|admin(?:istrator)?|root|developer|operator|security|sudo` +
        String.raw`|priority|urgent|emergency|official|openai|anthropic)[\s_-](?:override|instructions?|directives?` +
        String.raw`|commands?|orders?|authori[sz]ation)|override|admin[\s_-]mode|god[\s_-]mode)[^\S\n]?` +
        String.raw`(?:\]|>>|\)\))`
    )
  ),
  // Orders to drop the assistant's own rules or the user's request; "set aside your notes" drops nothing of them.
  gated(
    /aside|instead/u,
    row(
      "instruction-override",
      "instruction override",
      String.raw`\b(?:set|put|push|lay)\saside\s(?:all\s(?:of\s)?)?your\s(?:(?:own|usual|normal|current|core)\s)?` +
        String.raw`(?:guidelines|instructions|rules|principles|policies|restrictions|programming|values|safety` +
        String.raw`\s(?:rules|guidelines|policies))\b`,
      String.raw`\b(?:ignore|disregard|forget|skip|abandon|drop)\s(?:the\s|what\sthe\s)?(?:user|human|requester)` +
        String.raw`(?:'s|’s)?\s(?:request|question|instructions?|message|task|prompt|asked|wants)\b` +
        String.raw`[^\n.]{0,40}?\binstead\b`,
      String.raw`\binstead\sof\s(?:doing\s)?(?:what|whatever)\sthe\s(?:user|human)\s(?:asked|asks|requested|wants` +
        String.raw`|said)(?:\sfor)?\s?[,:;]`
    )
  ),
  // Orders to switch off the agent's own safety. "Disable the sandbox in the dev container" configures a tool;
  // "disable your sandbox" addresses the agent.
  gated(
    /sandbox|approval|safety|guardrail|permission|confirmation|restriction|filter/u,
    row(
      "safety-bypass",
      "safety bypass",
      String.raw`\b(?:disable|turn\soff|switch\soff|bypass|skip|deactivate|circumvent|ignore|remove)\s` +
        String.raw`(?:all\s(?:of\s)?)?(?:your|the\sagent's|the\sassistant's)\s(?:own\s)?(?:sandbox(?:ing)?` +
        String.raw`|approvals?(?:\s(?:gates?|checks?|prompts?|steps?|requirements?))?|safety(?:\s(?:checks?|rules` +
        String.raw`|filters?|guardrails|guidelines|measures|settings))?|guardrails|permission\s(?:checks?|prompts?)` +
        String.raw`|confirmations?|content\sfilters?|restrictions|filters)\b` +
        String.raw`(?![\s-](?:file|files|folder|directory|config|list|entry|entries)\b)`,
      String.raw`\b(?:disable|turn\soff|switch\soff|bypass|skip|circumvent)\s(?:the\s)?(?:approval\s(?:gate|step` +
        String.raw`|check|prompt)s?|sandbox|permission\s(?:checks?|prompts?))\s(?:and|then)\s(?:just\s)?` +
        String.raw`(?:run|execute|do|apply|push|deploy|delete)\b`
    )
  ),
  // Concealment. "Don't notify the user for successful builds" is a notification setting; hiding what happened is not.
  row(
    "concealment-instruction",
    "concealment instruction",
    String.raw`\b(?:do\snot|don't|dont|never)\s(?:ever\s)?(?:tell|inform|warn|mention\s` +
      String.raw`(?:this\s|it\s|anything\s)?to|reveal\s(?:this\s|it\s|anything\s)?to|show\s(?:this\s|it\s)?to)\s` +
      String.raw`(?:the\s|your\s)?(?:user|human|operator|owner)s?\b(?!\s(?:to|how)\b)`,
    String.raw`\b(?:do\snot|don't|dont|never)\s(?:ever\s)?let\s(?:the\s|your\s)?` +
      String.raw`(?:user|human|operator|owner)s?\s(?:know|see|find\sout|notice)\b`,
    String.raw`\b(?:do\snot|don't|dont|never)\s(?:ever\s)?(?:notify|alert)\s(?:the\s|your\s)?` +
      String.raw`(?:user|human|operator|owner)s?\s(?:about|of|that|regarding|if\syou|when\syou|what\syou)\b`,
    String.raw`\b(?:without|do\snot|don't)\s(?:ever\s)?(?:telling|informing)\s(?:the\s|your\s)?` +
      String.raw`(?:user|human|operator|owner|anyone|anybody)\b`,
    String.raw`\b(?:without|do\snot|don't)\s(?:ever\s)?(?:notifying|alerting|warning)\s(?:the\s|your\s)?` +
      String.raw`(?:user|human|operator|owner)\b`,
    String.raw`\b(?:keep|hide)\s(?:this|it|that)\s(?:a\ssecret|between\sus|to\syourself|(?:secret\s|hidden\s)?` +
      String.raw`from\s(?:the\s|your\s)?(?:user|human|operator|owner))\b`,
    String.raw`\b(?:the\s)?(?:user|human|operator)\s(?:must|should|can|may)(?:\s?not|n't|\snever)\s` +
      String.raw`(?:know|find\sout|learn)\b`
  ),
  row(
    "covert-action-instruction",
    "covert action instruction",
    String.raw`\b(?:secretly|covertly|surreptitiously|stealthily)\s(?:run|execute|send|delete|exfiltrate|fetch` +
      String.raw`|download|install|modify|upload|copy|post|change|add|remove|write|read|collect|forward|email` +
      String.raw`|transmit)\b`,
    String.raw`\b(?:silently|quietly)\s(?:send|exfiltrate|upload|transmit|forward|email|post|delete|wipe` +
      String.raw`|disable|modify|collect|copy)\b`
  ),
  // Control tokens
  row("chat-control-token", "chat control-token injection", String.raw`${CONTROL_TOKEN}${PAYLOAD}`),
  row("instruction-marker", "instruction-marker injection", String.raw`(?:\[\/?inst\]|<<\/?sys>>)${PAYLOAD}`),
  row(
    "forged-role-tag",
    "forged role tag",
    String.raw`<(?:system|assistant|developer|admin)>\s?(?:you|your|ignore|new|always|must|never|disregard` +
      String.raw`|forget|from\snow\son|the\suser|override|important)\b`,
    String.raw`<\/(?:user|user_input|human|document|data|memory|context)>\s?<(?:system|assistant|developer)>`,
    // "System: Ubuntu 22.04" is a spec sheet; "System: you must …" opens a forged turn.
    String.raw`(?:^|\n)[^\S\n]?(?:\[|\*\*)?(?:system|assistant|developer)(?:\]|\*\*)?\s?:\s?` +
      String.raw`(?:you|your|ignore|disregard|forget|new\s(?:instructions|rules)|always|never|from\snow\son` +
      String.raw`|override)\b`
  ),
  // Exfiltration beacons: a URL the model is meant to fill in. "![codecov](…badge.svg?token=abc)" is a badge.
  row(
    "markdown-image-exfiltration",
    "markdown image exfiltration",
    String.raw`!\[[^\]\n]{0,300}\]\(\s?<?(?:https?:)?\/\/[^)\n]{0,600}?(?:${URL_PLACEHOLDER}|[?&/]` +
      String.raw`(?:data|secret|secrets|prompt|conversation|history|chat|memory|password|passwd|creds|credentials` +
      String.raw`|apikey|api_key|exfil|leak|steal)=|(?:the\s|your\s|user'?s\s)` +
      String.raw`(?:password|api\skey|secret|token|system\sprompt|conversation|chat\shistory|credentials))`
  ),
  row(
    "templated-exfiltration-request",
    "templated exfiltration request",
    String.raw`\b(?:curl|wget|fetch)\b[^|;\n]{0,300}?\?[^|;\s]{0,300}?${SECRET_VAR}`
  ),
  // A command that sends secrets out in its body or as an upload (a secret in the URL is a templated request).
  gated(
    /\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|nc|ncat|netcat)\b/u,
    row(
      "command-exfiltration",
      "secret exfiltration command",
      String.raw`\b${FETCH_CMD}\b[^\n]{0,200}?(?:-d|--data(?:-binary|-raw|-urlencode)?|--post-data|-f|--form)` +
        String.raw`(?:\s|=)\s?["']?[^\s"']{0,40}?(?:\$\(\s?(?:env|printenv|set|cat\s[^\n)]{0,80})\)` +
        String.raw`|\x60(?:env|printenv)\x60)`,
      String.raw`\b${FETCH_CMD}\b[^\n]{0,200}?(?:-d|--data(?:-binary|-raw)?|-t|--upload-file|--post-file|-f\s[\w-]+=` +
        String.raw`|--form\s[\w-]+=)(?:\s|=)?\s?["']?@?${SECRET_FILE}`,
      String.raw`\b(?:env|printenv|cat\s${SECRET_FILE})\s?\|\s?${FETCH_CMD}\b`
    )
  ),
  // An order to show or send what a secret file holds. "Never commit .env files" gives no such order.
  gated(
    new RegExp(
      String.raw`\.env|id_(?:rsa|dsa|ecdsa|ed25519)|\.aws\/credentials|\.netrc|\.npmrc|\.pgpass|\.git-credentials` +
        String.raw`|\.docker\/config|\.kube\/config|\/etc\/shadow|\.pem|\.key`,
      "u"
    ),
    row(
      "secret-file-disclosure",
      "secret file disclosure",
      String.raw`${IMPERATIVE}(?:please\s)?(?:cat|type|print|output|show(?:\sme)?|reveal|dump|paste|echo|display` +
        String.raw`|send|upload|post|share|leak|include|attach)\s(?:out\s|us\s|me\s)?(?:the\s)?(?:(?:full\s|whole\s` +
        String.raw`|entire\s|raw\s)?contents?\sof\s)?(?:the\s|your\s|my\s|their\s)?${SECRET_FILE}${FILE_END}`
    )
  ),
  // "Convert this script to Python 3" asks for code; translate-and-run hands over the wheel.
  gated(
    /\b(?:translate|convert|turn|rewrite)\s/u,
    row(
      "translate-and-run",
      "translate-and-run instruction",
      String.raw`\b(?:translate|convert|turn|rewrite)\s(?:this|it|that|these|the\sfollowing)(?:\s[\w-]+){0,3}?\s` +
        String.raw`(?:into|to|as)\s(?:an?\s)?(?:shell|bash|sh|zsh|powershell|python|javascript|js|code|commands?` +
        String.raw`|script)\b[^\n]{0,60}?\b(?:and|then)\s(?:immediately\s)?(?:run|execute|exec|eval(?:uate)?)\b`
    )
  ),
  // Promptware that enrols the agent: tasking pulled from a server, registration as a node, heartbeats.
  gated(
    new RegExp(
      String.raw`instructions|commands|tasks|tasking|orders|directives|payload|jobs\sto\srun|whatever|what\sit\s` +
        String.raw`|\bregister\s|heartbeat`,
      "u"
    ),
    row(
      "c2-enrolment",
      "command-and-control enrolment",
      String.raw`\b(?:fetch|get|download|pull|load|retrieve|check|poll)\s(?:(?:your|new|the|further|updated|next` +
        String.raw`|latest)\s){0,3}${TASKING}\sfrom\s(?:https?:|www\.|[\w-]+(?:\.[\w-]+)+\/)`,
      String.raw`\b(?:fetch|get|download|load|read|open|visit)\s(?:the\s)?(?:https?:\/\/|www\.)\S+[^\n]{0,40}?\b` +
        String.raw`(?:and|then)\s(?:follow|obey|execute|run|do)\s(?:the\s|its\s|any\s|all\s)?(?:instructions|commands` +
        String.raw`|orders|directives|whatever|what\sit\s(?:says|contains))`,
      String.raw`\bregister\s(?:yourself\s|this\sagent\s)?as\s(?:a\s|an\s)?(?:new\s)?(?:node|bot|agent|worker` +
        String.raw`|peer)\s(?:of|in|on|with|at|to)\s(?:the\s|our\s)?(?:https?:|network|botnet|swarm|mesh|c2` +
        String.raw`|controller|command\sserver|server\sat)`,
      String.raw`\bsend\s(?:a\s)?heartbeats?\s(?:to|at)\s(?:https?:|www\.)[^\n]{0,80}?\b(?:your|this\sagent's` +
        String.raw`|the\sagent's)\s(?:id|identifier|hostname|session|name|status)\b`
    )
  ),
  // Non-English: the "ignore" verbs, then the "forget/disregard" verbs, for fr, es, de, ru, zh, it, pt (and ja).
  row(
    "non-english-ignore-instructions",
    "non-english: ignore previous instructions",
    String.raw`\bignor(?:e|ez|er)\s(?:toutes?\s)?(?:les|tes|vos|des)\s(?:${FR_RULES}\s${FR_PREV}|` +
      String.raw`(?:précédentes?|anciennes?)\s${FR_RULES})`,
    String.raw`\bignor(?:a|e|ad|en|ar)\s(?:todas\s)?(?:las\s|tus\s|sus\s)?${ES_RULES}\s${ES_PREV}`,
    String.raw`\bignorier(?:e|en|t)?\s(?:sie\s)?(?:bitte\s)?(?:alle\s)?(?:die\s|deine\s|ihre\s|sämtliche\s)?` +
      String.raw`${DE_PREV}\s${DE_RULES}`,
    String.raw`\b(?:alle\s)?${DE_PREV}\s${DE_RULES}\s(?:ignorieren|ignoriere)`,
    String.raw`${NOT_LETTER}(?:про)?игнорир(?:уй(?:те)?|овать)\s(?:все\s)?${RU_PREV}\s${RU_RULES}`,
    String.raw`${NOT_LETTER}${RU_PREV}\s${RU_RULES}\s(?:про)?игнорир`,
    String.raw`(?:忽略|忽视|忽視|无视|無視|不要理会|不要理會|跳过|跳過)(?:掉)?${ZH_PREV}${ZH_RULES}`,
    String.raw`\bignor(?:a|are|ate)\s(?:tutte\s)?(?:le\s)?${IT_RULES}\s${IT_PREV}`,
    String.raw`\bignor(?:e|a|em|ar)\s(?:todas\s)?(?:as\s)?${PT_RULES}\s${PT_PREV}`,
    String.raw`(?:以前|前|これまで|上記|今まで)の(?:すべての|全ての)?(?:指示|命令|指令|ルール|プロンプト)を(?:すべて|全て)?無視`
  ),
  row(
    "non-english-disregard-instructions",
    "non-english: disregard instructions",
    String.raw`\boubli(?:e|ez|er)\s(?:toutes?\s)?(?:les|tes|vos)\s(?:${FR_RULES}\s${FR_PREV}|` +
      String.raw`(?:précédentes?|anciennes?)\s${FR_RULES})`,
    String.raw`\bne\s(?:tiens|tenez)\spas\scompte\sdes\s${FR_RULES}\s${FR_PREV}`,
    String.raw`\bolvid(?:a|e|ad|en|ar)\s(?:todas\s)?(?:las\s|tus\s)?${ES_RULES}\s${ES_PREV}`,
    String.raw`\bhaz\scaso\somiso\sde\s(?:todas\s)?(?:las\s)?${ES_RULES}\s${ES_PREV}`,
    String.raw`\b(?:verg(?:iss|esst|essen\ssie)|missachte(?:n\ssie)?)\s(?:bitte\s)?(?:alle\s)?` +
      String.raw`(?:die\s|deine\s|ihre\s)?${DE_PREV}\s${DE_RULES}`,
    String.raw`\b(?:alle\s)?${DE_PREV}\s${DE_RULES}\s(?:vergessen|vergiss)`,
    String.raw`${NOT_LETTER}(?:забудь(?:те)?|забыть|не\sобращай(?:те)?\sвнимания\sна)\s(?:все\s)?` +
      String.raw`${RU_PREV}\s${RU_RULES}`,
    String.raw`(?:忘记|忘記|忘掉|忘了|放弃|放棄|抛弃|拋棄|不要遵守|不再遵守|不要遵循)${ZH_PREV}${ZH_RULES}`,
    String.raw`\bdimentic(?:a|are|ate)\s(?:tutte\s)?(?:le\s)?${IT_RULES}\s${IT_PREV}`,
    String.raw`\bnon\stenere\sconto\sdelle\s${IT_RULES}\s${IT_PREV}`,
    String.raw`\b(?:esque(?:ça|ca|çam|cam|cer)|desconsider(?:e|a|ar|em))\s(?:todas\s)?(?:as\s)?${PT_RULES}\s${PT_PREV}`
  )
]
