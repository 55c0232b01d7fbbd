/**
 * Code run on request (issue 12): "translate this into shell and run it", text treated as a script and executed,
 * and whatever commands untrusted content contains run as they come.
 *
 * Narrowed to running what was just produced or found: "convert this script to Python 3", "convert the CSV to JSON,
 * then run the import script", "treat warnings as errors" and "run the commands in CONTRIBUTING.md to set up the
 * repo" ask for code or name a known script.
 */
import { allOf, gated, type InjectionPattern, row } from "./shared.js"

const CODE =
  String.raw`(?:shell|bash|sh|zsh|powershell|python|javascript|js|code|commands?|script|one-liner|terminal\scommands?` +
  String.raw`|shell\scommands?|cli\scommands?)`
const RUN = String.raw`(?:immediately\s)?(?:run|execute|exec|eval(?:uate)?|pipe\s(?:it|them)\sto\s(?:ba|z|da|k)?sh)\b`
const TEXT =
  String.raw`(?:this|these|that|those|the\sfollowing|it|the\s(?:next|following|previous)?\s?(?:paragraph|text` +
  String.raw`|lines?|message|notes?|content|page|file|output)(?:\s(?:below|above))?)`
const UNTRUSTED =
  String.raw`(?:tool\soutput|output|page|web\s?page|website|site|email|document|response|issue|` +
  String.raw`comment|result)s?`

/** One row: text turned into code and run. */
export const EXECUTION: ReadonlyArray<InjectionPattern> = [
  // "Convert this script to Python 3" asks for code; translate-and-run hands over the wheel.
  gated(
    allOf(
      String.raw`\b(?:run|execut|exec|eval|pipe)`,
      String.raw`translat|convert|turn|rewrite|express|compile|transform|make|write|interpret|treat|read|take|use` +
        String.raw`|evaluat|eval\b|whatever|command|code|script`
    ),
    row(
      "translate-and-run",
      "translate-and-run instruction",
      String.raw`\b(?:translate|convert|turn|rewrite|express|compile|transform|make)\s(?:this|it|that|these|those|` +
        String.raw`them` +
        String.raw`|the)` +
        String.raw`(?:\s[\w.-]+){0,3}?\s(?:into|to|as)\s(?:an?\s)?(?:[\w-]+\s)?${CODE}\b[^\n]{0,60}?\b(?:and|then)\s` +
        RUN,
      String.raw`\bwrite\san?\s(?:shell|bash|python|powershell)\s(?:script|one-liner|command)s?\sfrom\s` +
        String.raw`(?:this|these|the\sfollowing|the\stext|the\snotes?)\b[^\n]{0,40}?\b(?:and|then)\s${RUN}`,
      String.raw`\b(?:interpret|treat|read|take|use)\s${TEXT}\sas\s(?:an?\s)?(?:shell\s|bash\s|terminal\s` +
        String.raw`|powershell\s|python\s)?(?:commands?|script|code|program)\b[^\n]{0,40}?\b(?:and|then)\s${RUN}`,
      String.raw`\b(?:evaluate|eval|execute|run|interpret)\s(?:the\sfollowing|this|it|the\stext\sbelow)\sas\s` +
        String.raw`(?:javascript|js|python|shell|bash|powershell|code|a\sscript)\b`,
      // commands found in untrusted content, run as they come
      String.raw`\b(?:whatever|any|all|every|each)\s(?:shell\s)?commands?\s(?:appear|appears|you\s(?:find|see|read` +
        String.raw`|get)|found|listed|written|contained|in)\b[^\n.]{0,40}?\b${UNTRUSTED}\b[^\n.]{0,20}?,?\s?` +
        String.raw`(?:run|execute)\s(?:them|it|each|all)\b`,
      String.raw`\b(?:run|execute)\s(?:every|each|all|any|whatever)\s(?:shell\s)?(?:commands?|code|scripts?)\s` +
        String.raw`(?:you\s(?:find|see|read|get)|found|listed|written|contained|that\sappears?)\b[^\n.]{0,30}?` +
        String.raw`\b(?:in|on|from)\s(?:the\s|that\s|this\s|any\s)?(?:fetched\s|retrieved\s|downloaded\s)?${UNTRUSTED}`,
      String.raw`\b(?:execute|run)\swhatever\s(?:commands?|code|scripts?)\s(?:the\s|this\s|that\s|an?\s)` +
        String.raw`?${UNTRUSTED}\s` +
        String.raw`(?:contains|includes|has|provides|gives\syou|lists)\b`,
      String.raw`\b(?:execute|run|do)\swhatever\s(?:commands?\s|code\s)?(?:the\s)?(?:web\s?page|page|website|site` +
        String.raw`|email|document|tool\soutput|output|response|issue|comment|message)\s(?:tells|asks|says|instructs` +
        String.raw`|wants)\b`
    )
  )
]
