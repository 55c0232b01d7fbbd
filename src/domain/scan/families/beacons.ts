/**
 * Exfiltration beacons (spec §7.1 "Exfil beacons", widened by issue 12): a URL the model is meant to fill in with
 * what it knows (markdown images, which render and so send by themselves, and links), a request whose URL carries
 * a secret-named variable, and commands that carry secrets out in their body, path, upload or redirect.
 *
 * Narrowed to a placeholder or a secret on its way out: "![codecov](…badge.svg?token=ABC123XYZ)" is a badge,
 * "[search](https://example.com/?q={{query}})" a template, `curl -H "Authorization: token $GITHUB_TOKEN"
 * https://api.github.com/…` how an API is called, "scp ~/.ssh/id_rsa.pub …" a public key, "nc -zv db 5432" a probe.
 */
import { FETCH_CMD, gated, type InjectionPattern, row, SECRET_FILE, SECRET_VAR_NAME } from "./shared.js"

// What the model knows and an attacker wants, as a placeholder or parameter names it.
const LEAKY =
  String.raw`(?:secret|password|passwd|api[_\s-]?key|apikey|token|prompt|conversation|history|chat|memory` +
  String.raw`|summary|cookie|session|credential|creds)`
const URL_PLACEHOLDER =
  String.raw`(?:\$\{|\{\{|%7b|\$[a-z_(]|\{[a-z_][^}\n]{0,40}\}` +
  String.raw`|<[a-z_][^>\n]{0,60}>|\[[a-z_][^\]\n]{0,60}\])`
const LEAKY_PLACEHOLDER = String.raw`(?:(?:\$\{|\{\{?|%7b|<|\[)[^}\]>\n]{0,40}?${LEAKY}|\$[a-z_]{0,30}${LEAKY})`
const LEAKY_PARAM =
  String.raw`[?&/](?:data|secret|secrets|prompt|conversation|history|chat|memory|password|passwd|creds|credentials` +
  String.raw`|apikey|api_key|exfil|leak|steal)=`
// A parameter whose value is a word naming what to put there: "?pw=PASSWORD", "?u=USER_EMAIL".
const LEAKY_VALUE = String.raw`=[a-z_]{0,20}(?:${LEAKY}|email|e_mail)[a-z_]{0,20}(?=[&#)\s]|$)`
const THE_SECRET =
  String.raw`(?:the\s|your\s|user'?s\s)(?:password|api\skey|secret|token|system\sprompt|conversation` +
  String.raw`|chat\shistory|credentials)`
const SECRET_ENV = String.raw`(?:process\.env\b|os\.environ\b|document\.cookie\b|localstorage\b|\$env:)`
const DATA_FLAG = String.raw`(?:-d|--data(?:-binary|-raw|-urlencode)?|--post-data|-f|--form|-body)`

/** The spec's beacon rows, then links and commands that carry secrets out. */
export const BEACONS: ReadonlyArray<InjectionPattern> = [
  // A URL the model is meant to fill in. "![codecov](…badge.svg?token=abc)" is a badge; a placeholder in the path
  // counts only when it names something to leak ("/u/{user_id}.png" is a template).
  gated(
    new RegExp(String.raw`!\[`, "u"),
    row(
      "markdown-image-exfiltration",
      "markdown image exfiltration",
      String.raw`!\[[^\]\n]{0,300}\]\(\s?<?(?:https?:)?\/\/(?:[^)\n?#]{0,300}?(?:${LEAKY_PLACEHOLDER}|${THE_SECRET})` +
        String.raw`|[^)\n?#]{0,300}(?=[?#])[^)\n]{0,300}?(?:${URL_PLACEHOLDER}|${LEAKY_PARAM}|${LEAKY_VALUE}` +
        String.raw`|${THE_SECRET}))`
    )
  ),
  // A link is clicked rather than rendered, and link templates are common: only a placeholder that names something
  // to leak counts.
  gated(
    /\]\(/u,
    row(
      "markdown-link-exfiltration",
      "markdown link exfiltration",
      String.raw`(?<!!)\[[^\]\n]{0,300}\]\(\s?<?(?:https?:)?\/\/[^)\n?#]{0,300}[?#][^)\n]{0,300}?` +
        String.raw`(?:${LEAKY_PLACEHOLDER}|${THE_SECRET})`
    )
  ),
  gated(
    new RegExp(String.raw`curl|wget|fetch|iwr|irm|invoke`, "u"),
    row(
      "templated-exfiltration-request",
      "templated exfiltration request",
      String.raw`\b(?:curl|wget|fetch)\b[^|;\n]{0,300}?\?[^|;\s]{0,300}?` +
        String.raw`(?:=\s?\$\{?[a-z_]{0,40}(?:key|token|secret|pass|pwd|cred|auth|session|cookie|prompt|ssh|aws` +
        String.raw`|history)|=\s?\$\(\s?(?:cat|env|printenv|base64|echo)\b|\{\{)`,
      // a secret-named variable in the URL's path
      String.raw`\b(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|;\n]{0,200}?(?:https?:)?\/\/` +
        String.raw`[^\s|;'"?]{0,200}\/\$(?:\{?[a-z_]{0,40}(?:key|token|secret|pass|pwd|cred|auth|session|cookie)` +
        String.raw`|\(\s?(?:cat|env|printenv|base64|echo)\b)`
    )
  ),
  // A command that sends secrets out in its body or as an upload (a secret in the URL is a templated request).
  gated(
    new RegExp(
      String.raw`\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|nc|ncat|netcat|scp|rsync|sftp|socat|dig` +
        String.raw`|nslookup|fetch|requests|axios|httpx|urlopen|env|printenv)\b`,
      "u"
    ),
    row(
      "command-exfiltration",
      "secret exfiltration command",
      String.raw`\b${FETCH_CMD}\b[^\n]{0,200}?${DATA_FLAG}` +
        String.raw`(?:\s|=)\s?["']?[^\s"']{0,40}?(?:\$\(\s?(?:env|printenv|set|cat\s[^\n)]{0,80})\)` +
        String.raw`|\x60(?:env|printenv)\x60|${SECRET_VAR_NAME})`,
      String.raw`\b${FETCH_CMD}\b[^\n]{0,200}?(?:-d|--data(?:-binary|-raw)?|-t|--upload-file|--post-file` +
        String.raw`|(?:-f|--form)\s["']?[\w-]+=)(?:\s|=)?\s?["']?@?${SECRET_FILE}`,
      String.raw`\b(?:env|printenv|cat\s${SECRET_FILE})\s?\|\s?${FETCH_CMD}\b`,
      // a secret location read and piped into a network command
      String.raw`\b(?:cat|tar|zip|base64|gzip|type|gc|get-content)\s[^\n|]{0,60}?(?:${SECRET_FILE}` +
        String.raw`|~\/\.(?:ssh|aws|gnupg|kube|docker)\b)[^\n|]{0,40}\|\s?(?:base64\s?(?:-\w\s?)?\|\s?)?` +
        String.raw`${FETCH_CMD}\b`,
      String.raw`\b(?:nc|ncat|netcat|socat|telnet)\b[^\n|<]{0,100}<\s?${SECRET_FILE}`,
      String.raw`\b(?:scp|rsync|sftp)\b[^\n]{0,40}?\s(?:-\S+\s){0,4}${SECRET_FILE}\s[^\s]{0,100}?[@:]`,
      String.raw`\b${FETCH_CMD}\b[^\n]{0,200}?-(?:body|infile)\s\(?\s?(?:get-content\s|gc\s|cat\s)?` +
        String.raw`[^\s)]{0,60}?${SECRET_FILE}`,
      // code that posts the environment or cookies
      String.raw`\b(?:fetch|axios(?:\.\w+)?|requests\.\w+|httpx\.\w+|urlopen|http\.request|xmlhttprequest)\s?\(` +
        String.raw`[^\n]{0,200}?${SECRET_ENV}`,
      // the secret as a DNS label
      String.raw`\b(?:dig|nslookup|host|ping)\s[^\n]{0,40}?\$\(\s?(?:env|printenv|cat\s[^\n)]{0,40}?${SECRET_FILE})` +
        String.raw`[^\n)]{0,40}\)\.[\w-]+\.`
    )
  )
]
