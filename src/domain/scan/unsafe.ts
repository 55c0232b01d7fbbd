/**
 * Spec §7.2: a fact that tells the agent to download and execute. The spec's two regexes, and the variants
 * attackers write instead (issue 12): a shell behind sudo or env, an interpreter fed from a pipe, process
 * substitution, `sh -c "$(curl …)"`, PowerShell's download-and-invoke idioms, and a download run as a script.
 */

// Without the `u` flag `\w` is ASCII, as the spec requires.
const REMOTE_EXEC = /\b(curl|wget|fetch|iwr|invoke-webrequest)\b[^\n|]*\|\s*\w*sh\b/i
const EVAL_FETCH = /\b(eval|exec|source)\b[^\n]*\$\(\s*(curl|wget|fetch)\b/i
// Each full regex needs its tail somewhere in the text. Testing the tail first is exact and keeps a line of
// many fetch verbs and no pipe from costing time quadratic in the line length.
const PIPE_TO_SHELL = /\|\s*\w*sh\b/
const FETCH_SUBSHELL = /\$\(\s*(curl|wget|fetch)\b/i

const FETCH = String.raw`(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod)`
const SHELL = String.raw`(?:ba|z|k|da|fi|c|tc|a)?sh|pwsh|powershell`
// what may stand between a pipe and the program it feeds: sudo or doas (with their options, `-u root` included)
// and variable assignments. An option's argument is never a prefix word, so each text parses one way only.
const PREFIX =
  String.raw`(?:(?:sudo|doas)(?:\s+(?:-u|-g|--user|--group)\s+(?!sudo\b|doas\b|env\b|-)[\w.-]+` +
  String.raw`|\s+-{1,2}[\w-]+)*\s+|env\s+|\w+=\S*\s+)*`
// a copy kept on the way: `curl … | tee /tmp/i.sh | bash`
const TEE = String.raw`(?:tee\b[^\n|]*\|\s*)?`
// an interpreter that runs what it reads on stdin: no arguments, or only "-"
const STDIN_INTERPRETER = String.raw`(?:python[23]?(?:\.\d+)?|perl|ruby|node|php|${SHELL})(?:\s+-)?\s*(?:$|[;&|)\n])`

const VARIANTS: ReadonlyArray<{ readonly tail: RegExp; readonly full: RegExp }> = [
  // curl … | sudo bash, curl … | env X=1 sh, curl … | python3 - (not `| python -m json.tool`: that reads data)
  {
    tail: /\|/,
    full: new RegExp(String.raw`\b${FETCH}\b[^\n|]*\|\s*${TEE}${PREFIX}(?:(?:${SHELL})\b|${STDIN_INTERPRETER})`, "im")
  },
  // bash <(curl …), source <(wget …), python <(curl …)
  { tail: /<\(/, full: new RegExp(String.raw`<\(\s*${PREFIX}${FETCH}\b`, "i") },
  // sh -c "$(curl …)", ruby -e "$(curl …)", python3 -c "`wget -O- …`", eval `curl …`
  {
    tail: /\$\(|\x60/,
    full: new RegExp(
      String.raw`\b(?:${SHELL}|python[23]?|perl|ruby|node|php)\s+(?:-\w+\s+)*-[ce]\s+["']?(?:\$\(|\x60)\s*` +
        String.raw`${PREFIX}${FETCH}\b|\b(?:eval|exec|source)\s+["']?(?:\$\(|\x60)\s*${PREFIX}${FETCH}\b`,
      "i"
    )
  },
  // iwr … | iex, iex (iwr …), Invoke-Expression (New-Object Net.WebClient).DownloadString(…), but not Elixir's
  // `iex -S mix`
  {
    tail: /\b(?:iex|invoke-expression|scriptblock)\b/i,
    full: new RegExp(
      String.raw`\b${FETCH}\b[^\n|]*\|\s*(?:iex|invoke-expression)\b` +
        String.raw`|\b(?:iex|invoke-expression)\s*\(+\s*(?:${FETCH}\b|new-object\b[^\n]*\bnet\.webclient\b)` +
        String.raw`|\[scriptblock\]::create\(\s*\(*\s*${FETCH}\b`,
      "i"
    )
  },
  // exec(urlopen(…).read()), eval(requests.get(…).text): an interpreter's own download handed to exec
  {
    tail: /\b(?:exec|eval)\s*\(/i,
    full: /\b(?:exec|eval)\s*\([^\n)]{0,40}?\b(?:urlopen|urlretrieve|requests\.get|httpx\.get|fetch)\s*\(/i
  }
]

// A file a fetch saves (`-o name`, `--output=name`, or wget's URL basename), and a shell run on a file after `&&`
// or `;`. Matched one by one and compared, so a long line costs linear time (one regex with a back-reference took
// seconds on 8 KB of `curl -o a`).
const SAVED = new RegExp(
  String.raw`\b(?:curl|wget)\b[^\n&;|]*?\s(?:-o|-O|--output(?:-document)?)(?:\s+|=)(?:\S*\/)?([\w.-]+)` +
    String.raw`|\bwget\s+(?:-\S+\s+)*\S*\/([\w.-]+)`,
  "gi"
)
const RUN = new RegExp(
  String.raw`(?:&&|;)\s*${PREFIX}(?:(?:${SHELL})\s+(?:\S*\/)?|(?:\.{0,2}|~)\/(?:[^\s\/;&|]+\/)*)([\w.-]+)`,
  "gi"
)

/**
 * curl -o setup.sh URL && bash setup.sh, wget https://x/install.sh; sudo sh ./install.sh, curl -o /tmp/a.sh URL &&
 * chmod +x /tmp/a.sh && /tmp/a.sh: the file just fetched, run by a shell or by its path.
 */
const runsWhatItFetched = (text: string): boolean => {
  if (!/&&|;/.test(text)) return false
  for (const line of text.split("\n")) {
    const saved = new Map<string, number>()
    for (const m of line.matchAll(SAVED)) {
      const name = m[1] ?? m[2]!
      if (!saved.has(name)) saved.set(name, m.index)
    }
    if (saved.size === 0) continue
    for (const m of line.matchAll(RUN)) {
      const at = saved.get(m[1]!)
      if (at !== undefined && at < m.index) return true
    }
  }
  return false
}

/** §7.2 download-and-execute filter, with the variants above. */
export const factLooksUnsafe = (text: string): boolean =>
  (PIPE_TO_SHELL.test(text) && REMOTE_EXEC.test(text)) ||
  (FETCH_SUBSHELL.test(text) && EVAL_FETCH.test(text)) ||
  VARIANTS.some((v) => v.tail.test(text) && v.full.test(text)) ||
  runsWhatItFetched(text)
