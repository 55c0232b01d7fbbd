/**
 * A conservative classifier of what a shell command line may do, for the episode taint rule of spec episodes
 * §5.3 rule 4: a `shell`/`bg_start` call taints the episode when the command may reach the network
 * (`network_egress`), send data out (`network_upload`), or do something we cannot tell (`unknown`).
 *
 * Why unknown taints: a program we do not recognise might fetch anything, and its output then sits in the
 * conversation like any web page. The price is that a session using an unusual local tool (a workspace script
 * `./run.sh`, `mvn`, `bazel`, a shell function, a `case` statement) becomes pending review until a human
 * promotes it. Recognised local work (reading, building, testing, git on the local repository) keeps ordinary
 * coding sessions recallable.
 *
 * Parsing. The command is split into simple commands on `|`, `||`, `&&`, `;`, `&`, newlines and parentheses;
 * the contents of `$( … )`, backticks, `<( … )`, `>( … )`, `${ … }`, `$(( … ))` and the bodies of unquoted
 * here-documents are commands too (their commands run wherever they appear, even inside double quotes). Quotes
 * and escapes are honoured so quoted text is never mistaken for a command, and anything we cannot parse
 * (an unterminated quote or substitution) is `unknown`. Per simple command: leading `NAME=value` assignments and
 * the keywords `! { } if then else elif fi do done while until` are skipped; wrappers classify the command they
 * run (`sudo`, `doas`, `env` (incl. `-S`), `time`, `nice`, `nohup`, `timeout DURATION`, `xargs`, `exec`,
 * `command`, `builtin`, `stdbuf`, `setsid`, `ionice`, `watch`, `busybox`, `bundle exec`, `poetry run`,
 * `pnpm exec`, `yarn exec`, `find -exec`, `fd -x`, `git bisect run`); `sh|bash|zsh|dash|ksh|fish -c SCRIPT` and
 * `eval` classify their script (a shell without `-c` runs a file or stdin: unknown). A program named by a path
 * counts as its base name only in the system bin directories or `node_modules/.bin`; any other path
 * (`./build.sh`) is workspace code we cannot judge, so unknown. A program name that is not literal (`$CC`) is
 * unknown.
 *
 * Across every word and redirection target: a network URL (`http(s)://`, `ftp://`, `ssh://`, `git://`,
 * `s3://`, `gs://`, …) adds `network_egress`, even as the argument of a local program (`echo https://x` is a
 * false positive we accept); a socket path (`/dev/tcp/…`, `/dev/udp/…`, gawk's `/inet/tcp/…`) adds egress and
 * upload.
 *
 * Programs (anything not listed: unknown):
 * - egress and upload: `ssh sftp ftp lftp tftp nc ncat netcat socat telnet mosh ssh-copy-id`, database
 *   clients (`psql mysql mongo mongosh redis-cli`), `openssl s_client|s_server|ocsp`.
 * - egress, upload when sending data: `curl` (`-T -d -F --data* --json --form* --upload-file`, `-X` other than
 *   GET/HEAD/OPTIONS), `wget` (`--post-*`, `--body-*`, `--method`), httpie `http https xh xhs` (data items,
 *   mutating methods), `scp` and `rsync` (remote operand → egress, remote destination → upload; `rsync` between
 *   local paths is local), `gh glab` (mutating sub-commands, `api` with a body or method), cloud CLIs `aws gcloud
 *   gsutil az doctl heroku vercel netlify fly flyctl firebase wrangler pulumi rclone s3cmd` (deploy/publish/
 *   push/upload, copies to a remote), `kubectl oc helm terraform tofu` (mutations).
 * - egress only: `wget`-like fetchers (`aria2c yt-dlp youtube-dl lynx w3m links`), `ping ping6 traceroute
 *   tracepath mtr dig nslookup host whois nmap arping ssh-keyscan`, `npx pnpx bunx uvx` (may download; `--no-install`
 *   / `--offline` → local), `pipx`.
 * - by sub-command (network sub-commands below, every other listed one local, unlisted ones unknown unless
 *   noted): `git` (clone fetch pull ls-remote, `remote update|prune|show`, `submodule update|add`, `lfs`; push
 *   and send-email upload; `-c` with a config key that can run or redirect anything → unknown; `rebase --exec`
 *   classifies its command); `npm pnpm yarn bun` (install/add/ci/update/outdated/audit/view/dlx/create; publish
 *   and login upload; `npm exec` is `npx`; pnpm, yarn and bun run unlisted names as package scripts → local,
 *   bare `yarn` installs); `pip pip3 uv poetry conda mamba micromamba gem bundle twine` (install/download/add/
 *   sync/…; publish/push/upload upload; `uv run` syncs, so egress); `go` (get, `mod download|tidy|vendor|why|
 *   verify|graph`, `work sync|vendor`, anything naming `module@version`; `generate` runs what the source says →
 *   unknown); `cargo` (install fetch update search add info vendor generate-lockfile; publish login owner yank
 *   upload); `docker podman nerdctl docker-compose` (pull run build create search buildx, compose up|pull|
 *   build|run|create; push and login upload; `exec` → unknown); `apt apt-get aptitude yum dnf microdnf apk
 *   brew pacman zypper snap port` (install/update/upgrade/fetch/…), `rustup` (local only show/which/run),
 *   `deno` (fmt/lint local, install/add/cache egress, the rest unknown: it imports URLs), `meson`
 *   (subprojects/wrap egress).
 * - local: file and text tools (`ls cat head tail grep rg sed awk find fd wc sort uniq cut tr diff echo printf
 *   mkdir rm cp mv touch chmod ln tar zip unzip gzip jq yq sqlite3 …`), shell builtins (`cd pwd export set
 *   test [ true false read …`), build and test tools (`make cmake ninja tsc eslint prettier vitest jest pytest
 *   mypy ruff black gcc clang rustc javac …`) and interpreters (`node python python3 ruby perl php java lua`;
 *   `python -m pip|pipx|poetry|twine|uv` follow those rules). `awk` with `system(`, `| getline` or a pipe to a
 *   quoted command is unknown.
 *
 * Decisions. Interpreters, `make` and package scripts (`npm run`) run workspace code and count as local:
 * judging them unknown would make every coding session pending review. `cargo build|test|check|clippy|run` are
 * local like `go build|test` (spec §5.5.1's worked example keeps `go test ./...` trusted): both may download
 * missing dependencies, but only the ones the workspace's lock file (`Cargo.lock`, `go.sum`) pins by checksum,
 * so no content chosen at session time enters the conversation. `go install ./cmd/x` is a build, while
 * `go install tool@latest` fetches. Known gaps: GNU `sed`'s `e` command and editors' shell escapes are not
 * analysed; git hooks run on `commit`.
 */

/** What running a command may do: stay local, reach the network, send data out, or something we cannot tell. */
export type ShellEffect = "local" | "network_egress" | "network_upload" | "unknown"

type Effects = ReadonlySet<ShellEffect>

const NONE: Effects = new Set()
const LOCAL: Effects = new Set(["local"])
const EGRESS: Effects = new Set(["network_egress"])
const UPLOAD: Effects = new Set(["network_egress", "network_upload"])
const UNKNOWN: Effects = new Set(["unknown"])

const union = (...all: ReadonlyArray<Effects>): Effects => {
  const out = new Set<ShellEffect>()
  for (const s of all) for (const e of s) out.add(e)
  return out
}

// ---------------------------------------------------------------------------------------------------------
// Lexing: simple commands with their words and redirection targets

interface Word {
  /** The word after quote removal; expansions stay as written. */
  readonly text: string
  /** Some part was quoted or escaped (a quoted `if` is a command name, a quoted here-doc delimiter stops expansion). */
  readonly quoted: boolean
  /** No expansion: the shell passes `text` as it is. */
  readonly literal: boolean
  /** How many leading characters of `text` were written bare (an assignment needs a bare `NAME=`). */
  readonly bare: number
}

interface SimpleCommand {
  readonly words: ReadonlyArray<Word>
  readonly redirects: ReadonlyArray<Word>
}

class Unparseable {
  readonly _tag = "Unparseable"
}

// Deeper nesting than this is no honest command line; it is judged unknown rather than risk the stack.
const MAX_NESTING = 24
const METACHARACTERS = new Set([" ", "\t", "\r", "\n", ";", "&", "|", "(", ")", "<", ">"])
const NAME_START = /[A-Za-z_]/
const NAME_CHAR = /\w/
const SPECIAL_PARAMETER = /[0-9@*#?$!-]/

class Parser {
  private i = 0
  private nesting: number
  private readonly heredocs: Array<{
    readonly delimiter: string
    readonly expands: boolean
    readonly stripTabs: boolean
  }> = []
  readonly commands: Array<SimpleCommand> = []

  constructor(
    private readonly src: string,
    nesting: number
  ) {
    if (nesting > MAX_NESTING) throw new Unparseable()
    this.nesting = nesting
  }

  script(): ReadonlyArray<SimpleCommand> {
    this.list(false)
    return this.commands
  }

  /** Commands until the end, or (inside `$(`) until its closing parenthesis. */
  private list(inSubstitution: boolean): void {
    const s = this.src
    let words: Array<Word> = []
    let redirects: Array<Word> = []
    let parens = 0
    const flush = () => {
      if (words.length > 0 || redirects.length > 0) this.commands.push({ words, redirects })
      words = []
      redirects = []
    }
    while (this.i < s.length) {
      const c = s[this.i]!
      const next = s[this.i + 1]
      if (c === " " || c === "\t" || c === "\r") this.i++
      else if (c === "\\" && next === "\n") this.i += 2
      else if (c === "\n") {
        flush()
        this.i++
        this.heredocBodies()
      } else if (c === "#") {
        const end = s.indexOf("\n", this.i)
        this.i = end < 0 ? s.length : end
      } else if (c === "&" && next === ">") {
        this.i++
        redirects.push(this.redirect())
      } else if (c === ";" || c === "&" || c === "|") {
        flush()
        this.i += next === c || (c === "|" && next === "&") || (c === ";" && next === "&") ? 2 : 1
      } else if (c === "(") {
        flush()
        parens++
        this.i++
      } else if (c === ")") {
        flush()
        this.i++
        if (parens > 0) parens--
        else if (inSubstitution) return
      } else if ((c === "<" || c === ">") && next === "(") {
        this.i += 2
        this.substitution()
        words.push({ text: `${c}(…)`, quoted: false, literal: false, bare: 0 })
      } else if (c === "<" || c === ">") redirects.push(this.redirect())
      else {
        const word = this.word()
        const fd = /^\d+$/.test(word.text) && !word.quoted && (s[this.i] === "<" || s[this.i] === ">")
        if (!fd) words.push(word)
      }
    }
    flush()
    if (inSubstitution) throw new Unparseable()
  }

  private redirect(): Word {
    const s = this.src
    const op = s[this.i]!
    this.i++
    let heredoc: { stripTabs: boolean } | undefined
    if (op === "<" && s[this.i] === "<") {
      this.i++
      if (s[this.i] === "<") this.i++
      else if (s[this.i] === "-") {
        this.i++
        heredoc = { stripTabs: true }
      } else heredoc = { stripTabs: false }
    } else if (
      (op === "<" && (s[this.i] === ">" || s[this.i] === "&")) ||
      (op === ">" && (s[this.i] === ">" || s[this.i] === "|" || s[this.i] === "&"))
    ) {
      this.i++
    }
    while (s[this.i] === " " || s[this.i] === "\t") this.i++
    if (this.i >= s.length || METACHARACTERS.has(s[this.i]!)) throw new Unparseable()
    const target = this.word()
    if (heredoc !== undefined)
      this.heredocs.push({ delimiter: target.text, expands: !target.quoted, stripTabs: heredoc.stripTabs })
    return target
  }

  /** Here-document bodies start after the newline that ends their command. */
  private heredocBodies(): void {
    const s = this.src
    for (const h of this.heredocs.splice(0)) {
      const lines: Array<string> = []
      while (this.i < s.length) {
        const nl = s.indexOf("\n", this.i)
        const end = nl < 0 ? s.length : nl
        const line = s.slice(this.i, end)
        this.i = nl < 0 ? s.length : nl + 1
        if ((h.stripTabs ? line.replace(/^\t+/, "") : line) === h.delimiter) break
        lines.push(line)
      }
      // An unquoted delimiter leaves `$( … )` and backticks active in the body
      if (h.expands) this.merge(new Parser(lines.join("\n"), this.nesting + 1).expansionsOnly())
    }
  }

  /** Text where only substitutions run (a here-document body). */
  private expansionsOnly(): ReadonlyArray<SimpleCommand> {
    const s = this.src
    while (this.i < s.length) {
      const c = s[this.i]!
      if (c === "\\") this.i += 2
      else if (c === "$") this.dollar()
      else if (c === "`") this.backtick()
      else this.i++
    }
    return this.commands
  }

  private merge(commands: ReadonlyArray<SimpleCommand>): void {
    for (const c of commands) this.commands.push(c)
  }

  private word(): Word {
    const s = this.src
    let text = ""
    let quoted = false
    let literal = true
    let bare = -1
    const special = () => {
      if (bare < 0) bare = text.length
    }
    while (this.i < s.length) {
      const c = s[this.i]!
      if (METACHARACTERS.has(c)) break
      if (c === "\\") {
        special()
        quoted = true
        const n = s[this.i + 1]
        this.i += 2
        if (n !== undefined && n !== "\n") text += n
      } else if (c === "'") {
        special()
        quoted = true
        const end = s.indexOf("'", this.i + 1)
        if (end < 0) throw new Unparseable()
        text += s.slice(this.i + 1, end)
        this.i = end + 1
      } else if (c === '"') {
        special()
        quoted = true
        this.i++
        const inner = this.doubleQuoted()
        text += inner.text
        literal &&= inner.literal
      } else if (c === "$" && s[this.i + 1] === "'") {
        special()
        quoted = true
        const inner = this.ansiC()
        text += inner.text
        // escapes can spell any name (`$'\x63url'`): not a literal we can look up
        literal &&= !inner.escaped
      } else if (c === "$" && s[this.i + 1] === '"') {
        this.i++
      } else if (c === "$") {
        const d = this.dollar()
        if (d.expansion) {
          special()
          literal = false
        }
        text += d.text
      } else if (c === "`") {
        special()
        literal = false
        text += this.backtick()
      } else {
        text += c
        this.i++
      }
    }
    return { text, quoted, literal, bare: bare < 0 ? text.length : bare }
  }

  private doubleQuoted(): { text: string; literal: boolean } {
    const s = this.src
    let text = ""
    let literal = true
    while (this.i < s.length) {
      const c = s[this.i]!
      if (c === '"') {
        this.i++
        return { text, literal }
      }
      if (c === "\\") {
        const n = s[this.i + 1]
        if (n === "\n") this.i += 2
        else if (n !== undefined && '$`"\\'.includes(n)) {
          text += n
          this.i += 2
        } else {
          text += c
          this.i++
        }
      } else if (c === "$") {
        const d = this.dollar()
        if (d.expansion) literal = false
        text += d.text
      } else if (c === "`") {
        literal = false
        text += this.backtick()
      } else {
        text += c
        this.i++
      }
    }
    throw new Unparseable()
  }

  private ansiC(): { text: string; escaped: boolean } {
    const s = this.src
    let text = ""
    let escaped = false
    let j = this.i + 2
    while (j < s.length) {
      const c = s[j]!
      if (c === "\\") {
        escaped = true
        text += s[j + 1] ?? ""
        j += 2
      } else if (c === "'") {
        this.i = j + 1
        return { text, escaped }
      } else {
        text += c
        j++
      }
    }
    throw new Unparseable()
  }

  /** At a `$`: an expansion (its nested commands collected) or a plain dollar sign. */
  private dollar(): { text: string; expansion: boolean } {
    const s = this.src
    const n = s[this.i + 1]
    if (n === "(" && s[this.i + 2] === "(") {
      this.i += 3
      this.arithmetic()
      return { text: "$((…))", expansion: true }
    }
    if (n === "(") {
      this.i += 2
      this.substitution()
      return { text: "$(…)", expansion: true }
    }
    if (n === "{") {
      this.i += 2
      this.parameter()
      return { text: "${…}", expansion: true }
    }
    if (n !== undefined && NAME_START.test(n)) {
      let j = this.i + 2
      while (j < s.length && NAME_CHAR.test(s[j]!)) j++
      const text = s.slice(this.i, j)
      this.i = j
      return { text, expansion: true }
    }
    if (n !== undefined && SPECIAL_PARAMETER.test(n)) {
      this.i += 2
      return { text: `$${n}`, expansion: true }
    }
    this.i++
    return { text: "$", expansion: false }
  }

  /** After `$(`, `<(` or `>(`: the commands up to the matching `)`. */
  private substitution(): void {
    if (++this.nesting > MAX_NESTING) throw new Unparseable()
    this.list(true)
    this.nesting--
  }

  private arithmetic(): void {
    const s = this.src
    let depth = 0
    while (this.i < s.length) {
      const c = s[this.i]!
      if (c === "(") {
        depth++
        this.i++
      } else if (c === ")") {
        if (depth > 0) {
          depth--
          this.i++
        } else if (s[this.i + 1] === ")") {
          this.i += 2
          return
        } else throw new Unparseable()
      } else this.skipQuotedOrExpansion()
    }
    throw new Unparseable()
  }

  /** After `${`: up to the matching `}`; defaults such as `${x:-$(cmd)}` run commands too. */
  private parameter(): void {
    const s = this.src
    while (this.i < s.length) {
      if (s[this.i] === "}") {
        this.i++
        return
      }
      this.skipQuotedOrExpansion()
    }
    throw new Unparseable()
  }

  private skipQuotedOrExpansion(): void {
    const s = this.src
    const c = s[this.i]!
    if (c === "\\") this.i += 2
    else if (c === "'") {
      const end = s.indexOf("'", this.i + 1)
      if (end < 0) throw new Unparseable()
      this.i = end + 1
    } else if (c === '"') {
      this.i++
      this.doubleQuoted()
    } else if (c === "$") this.dollar()
    else if (c === "`") this.backtick()
    else this.i++
  }

  /** At a backtick: the old-style substitution, whose backslashes escape only `$`, `` ` `` and `\`. */
  private backtick(): string {
    const s = this.src
    let inner = ""
    let j = this.i + 1
    while (j < s.length) {
      const c = s[j]!
      if (c === "\\" && j + 1 < s.length) {
        const n = s[j + 1]!
        inner += "$`\\".includes(n) ? n : `\\${n}`
        j += 2
      } else if (c === "`") {
        this.i = j + 1
        this.merge(new Parser(inner, this.nesting + 1).script())
        return "`…`"
      } else {
        inner += c
        j++
      }
    }
    throw new Unparseable()
  }
}

// ---------------------------------------------------------------------------------------------------------
// Classification

interface Context {
  /** Effects of running the given words as a command. */
  readonly argv: (words: ReadonlyArray<Word>) => Effects
  /** Effects of running a shell script. */
  readonly script: (text: string) => Effects
}

type Rule = (args: ReadonlyArray<Word>, ctx: Context) => Effects

const NETWORK_URL = /\b(?:https?|ftps?|wss?|sftp|scp|ssh|git|rsync|s3|gs|telnet|ldaps?|smb|nfs):\/\//i
const SOCKET_PATH = /\/dev\/(?:tcp|udp)\/|\/inet[46]?\/(?:tcp|udp)\//
const ASSIGNMENT = /^[A-Za-z_]\w*(?:\[[^\]]*\])?\+?=/
// Reserved words that start or end a compound command: the command after them (if any) is what runs
const PASS_THROUGH_KEYWORDS = new Set([
  "!",
  "{",
  "}",
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "do",
  "done",
  "while",
  "until",
  "esac"
])
const SYSTEM_BIN =
  /^(?:\/usr(?:\/local)?)?\/s?bin\/[^/]+$|^\/opt\/homebrew\/bin\/[^/]+$|(?:^|\/)node_modules\/\.bin\/[^/]+$/

const isAssignment = (w: Word): boolean => {
  const m = ASSIGNMENT.exec(w.text)
  return m !== null && m[0].length <= w.bare
}

const isOption = (w: Word): boolean => w.text.length > 1 && w.text.startsWith("-")

/** The program a path names, when the path is one whose programs we may know by name. */
const programName = (text: string): string | undefined => {
  if (!text.includes("/")) return text
  return SYSTEM_BIN.test(text) ? text.slice(text.lastIndexOf("/") + 1) : undefined
}

/** Non-option words, skipping the values of `valued` options (given apart, not as `--opt=value` or `-ovalue`). */
const operands = (
  args: ReadonlyArray<Word>,
  valued: ReadonlySet<string> = new Set()
): Array<{ readonly word: Word; readonly at: number }> => {
  const out: Array<{ word: Word; at: number }> = []
  let options = true
  for (let j = 0; j < args.length; j++) {
    const w = args[j]!
    if (options && w.text === "--") options = false
    else if (options && isOption(w)) {
      if (valued.has(w.text)) j++
    } else out.push({ word: w, at: j })
  }
  return out
}

const nameSet = (spaced: string): ReadonlySet<string> => new Set(spaced.split(/\s+/).filter((w) => w !== ""))

/** The words after leading options (and their values), where a wrapped command starts. */
const afterOptions = (args: ReadonlyArray<Word>, valued: ReadonlySet<string>): ReadonlyArray<Word> => {
  let j = 0
  while (j < args.length) {
    const t = args[j]!.text
    if (t === "--") return args.slice(j + 1)
    if (!isOption(args[j]!)) break
    j += valued.has(t) ? 2 : 1
  }
  return args.slice(j)
}

/** A wrapper: skip its options, then classify the command it runs (running nothing is local). */
const wrapper = (valued: string): Rule => {
  const options = nameSet(valued)
  return (args, ctx) => {
    const rest = afterOptions(args, options)
    return rest.length === 0 ? LOCAL : ctx.argv(rest)
  }
}

interface SubcommandTable {
  readonly local?: string
  readonly egress?: string
  readonly upload?: string
  /** Options before the sub-command that take a separate value. */
  readonly valued?: string
  /** No sub-command at all. */
  readonly bare?: Effects
  /** A sub-command the table does not list. */
  readonly other?: Effects
  /** Rules for the words after some sub-commands. */
  readonly special?: ReadonlyArray<readonly [string, Rule]>
}

const subcommands = (t: SubcommandTable): Rule => {
  const local = nameSet(t.local ?? "")
  const egress = nameSet(t.egress ?? "")
  const upload = nameSet(t.upload ?? "")
  const valued = nameSet(t.valued ?? "")
  const special = new Map(t.special ?? [])
  return (args, ctx) => {
    const first = operands(args, valued)[0]
    if (first === undefined) return t.bare ?? LOCAL
    if (!first.word.literal) return UNKNOWN
    const name = first.word.text
    const rest = args.slice(first.at + 1)
    const rule = special.get(name)
    if (rule !== undefined) return rule(rest, ctx)
    if (upload.has(name)) return UPLOAD
    if (egress.has(name)) return EGRESS
    if (local.has(name)) return LOCAL
    return t.other ?? UNKNOWN
  }
}

const always =
  (effects: Effects): Rule =>
  () =>
    effects

// host:path, user@host:path, host::module, scheme://…: a colon before any slash
const REMOTE_OPERAND = /^(?:[a-z][a-z0-9+.-]*:\/\/|[^/]*:)/i

/** `scp` and `rsync`: network when an operand is remote, upload when the destination (last operand) is. */
const remoteCopy = (valued: string): Rule => {
  const options = nameSet(valued)
  return (args) => {
    const ops = operands(args, options).map((o) => o.word.text)
    if (!ops.some((o) => REMOTE_OPERAND.test(o))) return LOCAL
    return REMOTE_OPERAND.test(ops[ops.length - 1] ?? "") ? UPLOAD : EGRESS
  }
}

const SAFE_METHODS = nameSet("GET HEAD OPTIONS")
const CURL_DATA_LONG = nameSet(
  "--data --data-binary --data-raw --data-ascii --data-urlencode --json --form --form-string --upload-file"
)

const curl: Rule = (args) => {
  for (let j = 0; j < args.length; j++) {
    const t = args[j]!.text
    const next = args[j + 1]?.text
    if (t.startsWith("--")) {
      const eq = t.indexOf("=")
      const name = eq < 0 ? t : t.slice(0, eq)
      if (CURL_DATA_LONG.has(name)) return UPLOAD
      const method = eq < 0 ? next : t.slice(eq + 1)
      if (name === "--request" && method !== undefined && !SAFE_METHODS.has(method.toUpperCase())) return UPLOAD
    } else if (t.startsWith("-")) {
      // a short cluster such as -sSd: an option with a value ends it
      for (let k = 1; k < t.length; k++) {
        const f = t[k]!
        if (f === "T" || f === "d" || f === "F") return UPLOAD
        if (f === "X") {
          const method = t.slice(k + 1) || next
          if (method !== undefined && !SAFE_METHODS.has(method.toUpperCase())) return UPLOAD
          break
        }
        if ("oHAeubcDEKmrwyYzCxQ".includes(f)) break
      }
    }
  }
  return EGRESS
}

const wget: Rule = (args) => {
  for (let j = 0; j < args.length; j++) {
    const t = args[j]!.text
    if (/^--(?:post|body)-(?:data|file)(?:=|$)/.test(t)) return UPLOAD
    if (t.startsWith("--method")) {
      const method = t.includes("=") ? t.slice(t.indexOf("=") + 1) : args[j + 1]?.text
      if (method !== undefined && !SAFE_METHODS.has(method.toUpperCase())) return UPLOAD
    }
  }
  return EGRESS
}

/** httpie and xh: `key=value`, `key:=json` and `field@file` items are a body; `key==value` is a query. */
const httpie: Rule = (args) => {
  const ops = operands(args).map((o) => o.word.text)
  if (args.some((w) => /^(?:-f|--form|--multipart|--raw(?:=|$))/.test(w.text))) return UPLOAD
  if (ops.length > 1 && /^[A-Z]+$/.test(ops[0]!) && !SAFE_METHODS.has(ops[0]!)) return UPLOAD
  if (ops.some((o) => !/^[^=:@]+==/.test(o) && /^[^=:@/]+(?::=|=|@)/.test(o))) return UPLOAD
  return EGRESS
}

const GH_MUTATIONS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["release", nameSet("create upload edit delete delete-asset")],
  ["pr", nameSet("create comment edit merge review close reopen ready")],
  ["mr", nameSet("create comment note edit merge approve close reopen update")],
  ["issue", nameSet("create comment note edit close reopen delete transfer")],
  ["gist", nameSet("create edit delete")],
  ["repo", nameSet("create fork edit delete rename archive")],
  ["secret", nameSet("set delete")],
  ["variable", nameSet("set delete")],
  ["workflow", nameSet("run enable disable")],
  ["run", nameSet("rerun cancel delete")],
  ["label", nameSet("create edit delete clone")]
])

/** The method an `-X`/`--method`/`--request` option at `j` names, if it is one. */
const methodAt = (args: ReadonlyArray<Word>, j: number, flags: ReadonlyArray<string>): string | undefined => {
  const t = args[j]!.text
  for (const f of flags) {
    if (t === f) return args[j + 1]?.text ?? ""
    if (f.startsWith("--") && t.startsWith(`${f}=`)) return t.slice(f.length + 1)
  }
  return undefined
}

const mutating = (method: string | undefined): boolean =>
  method !== undefined && !SAFE_METHODS.has(method.toUpperCase())

const gh: Rule = (args) => {
  const [group, action] = operands(args, nameSet("-R --repo -X --method")).map((o) => o.word.text)
  if (group === "api") {
    const body = args.some(
      (w, j) =>
        /^(?:-f|-F|--field|--raw-field|--input)(?:=|$)/.test(w.text) || mutating(methodAt(args, j, ["-X", "--method"]))
    )
    return body ? UPLOAD : EGRESS
  }
  return group !== undefined && action !== undefined && GH_MUTATIONS.get(group)?.has(action) === true ? UPLOAD : EGRESS
}

const CLOUD_UPLOAD_VERBS = nameSet("deploy publish push upload submit up apply put-object")
const CLOUD_COPY_VERBS = nameSet("cp mv sync rsync copy move copyto moveto")

/** Cloud CLIs always reach the network; deploying or copying to a remote sends data out. */
const cloud =
  (bare: Effects = EGRESS): Rule =>
  (args) => {
    const ops = operands(args).map((o) => o.word.text)
    if (ops.length === 0) return bare
    if (ops.some((o) => CLOUD_UPLOAD_VERBS.has(o))) return UPLOAD
    const copy = ops.findIndex((o) => CLOUD_COPY_VERBS.has(o))
    if (copy >= 0 && REMOTE_OPERAND.test(ops[ops.length - 1] ?? "") && ops.length - 1 > copy + 1) return UPLOAD
    return EGRESS
  }

// Config keys git uses to run programs, reach hosts or rewrite URLs can turn any sub-command into anything
const GIT_SAFE_CONFIG =
  /^(?:color\.|advice\.|user\.(?:name|email)=|core\.(?:quotepath|autocrlf|safecrlf|filemode|longpaths|abbrev|ignorecase)=|init\.defaultbranch=|safe\.directory=|log\.|format\.pretty=|diff\.(?:renames|algorithm|noprefix|mnemonicprefix|colormoved)=|merge\.conflictstyle=|pull\.rebase=|(?:commit|tag)\.gpgsign=|gc\.auto=|status\.)/i

const gitRemote: Rule = (args) => {
  const ops = operands(args).map((o) => o.word.text)
  const has = (...flags: ReadonlyArray<string>) => args.some((w) => flags.includes(w.text))
  switch (ops[0]) {
    case "update":
    case "prune":
      return EGRESS
    case "show":
      return has("-n") ? LOCAL : EGRESS
    case "set-head":
      return has("-a", "--auto") ? EGRESS : LOCAL
    case "add":
      return has("-f", "--fetch") ? EGRESS : LOCAL
    default:
      return LOCAL
  }
}

const gitRebase: Rule = (args, ctx) => {
  const runs: Array<Effects> = [LOCAL]
  for (let j = 0; j < args.length; j++) {
    const w = args[j]!
    if (w.text === "-x" || w.text === "--exec") {
      const command = args[++j]
      runs.push(command?.literal === true ? ctx.script(command.text) : UNKNOWN)
    } else if (w.text.startsWith("--exec=") || /^-x./.test(w.text)) {
      runs.push(w.literal ? ctx.script(w.text.slice(w.text.startsWith("--") ? 7 : 2)) : UNKNOWN)
    }
  }
  return union(...runs)
}

const gitSubcommands = subcommands({
  valued: "-C -c --git-dir --work-tree --namespace --super-prefix --config-env",
  bare: LOCAL,
  local:
    "status diff log show add commit branch checkout switch merge stash reset restore tag rev-parse blame grep init mv rm config " +
    "shortlog describe cherry-pick revert reflog ls-files ls-tree cat-file apply am format-patch worktree clean notes show-ref " +
    "for-each-ref rev-list merge-base diff-tree diff-index diff-files name-rev gc fsck prune check-ignore check-attr hash-object " +
    "update-index write-tree read-tree commit-tree symbolic-ref update-ref count-objects var whatchanged range-diff help version " +
    "mailinfo stripspace interpret-trailers sparse-checkout maintenance show-branch cherry difftool mergetool request-pull " +
    "verify-commit verify-tag bundle fast-export fast-import repack pack-refs annotate",
  egress: "clone fetch pull ls-remote svn p4",
  upload: "push send-email",
  special: [
    ["remote", gitRemote],
    ["rebase", gitRebase],
    ["archive", (args) => (args.some((w) => w.text.startsWith("--remote")) ? EGRESS : LOCAL)],
    [
      "submodule",
      subcommands({
        bare: LOCAL,
        local: "init status summary deinit absorbgitdirs set-url set-branch sync",
        egress: "update add",
        special: [["foreach", (args, ctx) => joinedScript(afterOptions(args, new Set()), ctx)]]
      })
    ],
    [
      "bisect",
      subcommands({
        bare: LOCAL,
        other: LOCAL,
        special: [["run", (args, ctx) => (args.length === 0 ? LOCAL : union(LOCAL, ctx.argv(args)))]]
      })
    ],
    ["lfs", subcommands({ bare: LOCAL, other: LOCAL, egress: "fetch pull clone fsck prune migrate", upload: "push" })]
  ]
})

const git: Rule = (args, ctx) => {
  let risky = false
  for (let j = 0; j < args.length; j++) {
    const t = args[j]!.text
    if (!t.startsWith("-")) break
    if (t === "-c" || t === "--config-env") {
      const setting = args[j + 1]
      if (setting === undefined || !setting.literal || t === "--config-env" || !GIT_SAFE_CONFIG.test(setting.text))
        risky = true
      j++
    } else if (t === "-C" || t === "--git-dir" || t === "--work-tree" || t === "--namespace") j++
  }
  return risky ? union(UNKNOWN, gitSubcommands(args, ctx)) : gitSubcommands(args, ctx)
}

/** Words joined into one script, as `watch` and `git submodule foreach` run them. */
const joinedScript = (args: ReadonlyArray<Word>, ctx: Context): Effects =>
  args.length === 0 ? LOCAL : args.every((w) => w.literal) ? ctx.script(args.map((w) => w.text).join(" ")) : UNKNOWN

/** `go` sub-commands that name `module@version` fetch that module. */
const goFetchesVersion =
  (otherwise: Effects): Rule =>
  (args) =>
    operands(args).some((o) => o.word.text.includes("@")) ? EGRESS : otherwise

const go = subcommands({
  bare: LOCAL,
  local: "build test vet fmt doc env version clean fix tool help telemetry",
  egress: "get",
  special: [
    ["run", goFetchesVersion(LOCAL)],
    ["install", goFetchesVersion(LOCAL)],
    [
      "list",
      (args) => (args.some((w) => /^-(?:u|versions|retracted)$/.test(w.text) || w.text.includes("@")) ? EGRESS : LOCAL)
    ],
    ["mod", subcommands({ local: "init edit", egress: "download tidy vendor why verify graph" })],
    ["work", subcommands({ local: "init use edit", egress: "sync vendor" })]
  ]
})

const cargoTable = subcommands({
  valued: "--manifest-path --config -Z --color --target-dir",
  bare: LOCAL,
  local:
    "build b test t check c clippy fmt run r doc d bench clean tree metadata new init locate-project pkgid version help fix " +
    "rustc rustdoc verify-project read-manifest package remove rm",
  egress: "install fetch update search add info vendor generate-lockfile uninstall",
  upload: "publish login owner yank logout"
})
// `cargo +nightly build` names a toolchain before the sub-command
const cargo: Rule = (args, ctx) =>
  cargoTable(
    args.filter((w) => !w.text.startsWith("+")),
    ctx
  )

// `bundle exec`, `poetry run`, `pnpm exec`…: a program run inside the tool's environment decides for itself
const runsProgram = wrapper("")
const uvRun = wrapper("--with --python -p --package --extra --group --env-file")

const npxLike: Rule = (args) =>
  args.some((w) => w.text === "--no-install" || w.text === "--offline" || w.text === "--no") ? LOCAL : EGRESS

const NPM_EGRESS =
  "install i in ins inst insta instal isnt isnta isntal isntall add ci clean-install install-clean ic install-ci-test cit " +
  "install-test it update up upgrade udpate outdated audit view info show v search s se find dlx create doctor rebuild rb ping " +
  "link ln dedupe ddp"
const NPM_UPLOAD =
  "publish unpublish deprecate login adduser add-user logout dist-tag owner access team token star unstar hook org profile"

const npm = subcommands({
  valued: "--prefix -w --workspace --registry --cache --userconfig --loglevel",
  bare: LOCAL,
  local:
    "run run-script rum urn test tst t start stop restart ls list ll la root bin prefix help why explain pack version config get set " +
    "pkg query fund completion prune help-search edit",
  egress: NPM_EGRESS,
  upload: NPM_UPLOAD,
  special: [
    ["exec", npxLike],
    ["x", npxLike],
    ["init", (args) => (operands(args).length > 0 ? EGRESS : LOCAL)]
  ]
})

// pnpm, yarn and bun run a name they do not know as a package script
const pnpm = subcommands({
  valued: "-C --dir --filter -F --reporter --loglevel --workspace-dir",
  bare: LOCAL,
  other: LOCAL,
  egress:
    "install i add update up upgrade outdated audit dlx create import fetch install-test it rebuild rb env view info show search patch deploy licenses link ln",
  upload: "publish login logout adduser unpublish deprecate dist-tag owner access",
  special: [
    ["exec", runsProgram],
    ["store", subcommands({ egress: "add", other: LOCAL })]
  ]
})

const yarn: Rule = (args, ctx) => yarnTable(args, ctx)
const yarnTable: Rule = subcommands({
  valued: "--cwd",
  bare: EGRESS,
  other: LOCAL,
  egress:
    "install add upgrade up upgrade-interactive outdated audit dlx create init import info remove set plugin global unplug rebuild",
  upload: "publish login logout owner tag",
  special: [
    ["exec", runsProgram],
    ["npm", subcommands({ upload: "publish login logout tag", other: EGRESS })],
    ["workspace", (args, ctx) => yarn(args.slice(1), ctx)],
    ["workspaces", subcommands({ other: LOCAL, special: [["foreach", () => UNKNOWN]] })]
  ]
})

const bun = subcommands({
  bare: LOCAL,
  other: LOCAL,
  egress: "install i add a update upgrade remove rm outdated x create link pm",
  upload: "publish"
})

const pip = subcommands({
  valued: "--proxy --cert --client-cert --cache-dir --log --timeout --retries",
  bare: LOCAL,
  local: "uninstall list show freeze check config cache debug inspect hash help completion",
  egress: "install download wheel search index lock"
})

const uv = subcommands({
  valued: "--directory --project --cache-dir --python -p --config-file",
  bare: LOCAL,
  local: "init help version cache",
  egress: "add sync lock tool python venv remove tree export build self",
  upload: "publish",
  special: [
    ["pip", (args, ctx) => pip(args, ctx)],
    ["run", (args, ctx) => union(EGRESS, uvRun(args, ctx))]
  ]
})

const poetry = subcommands({
  valued: "-C --directory -P --project",
  bare: LOCAL,
  local: "shell check build init new env config export version about help list",
  egress: "install add update lock remove search self source",
  upload: "publish",
  special: [
    ["run", runsProgram],
    ["show", (args) => (args.some((w) => /^(?:-o|--outdated|-l|--latest)$/.test(w.text)) ? EGRESS : LOCAL)]
  ]
})

const conda = subcommands({
  valued: "-n --name -p --prefix -c --channel",
  bare: LOCAL,
  local: "list info activate deactivate remove uninstall clean config run",
  egress: "install create update upgrade search",
  special: [["env", subcommands({ local: "list remove export config", egress: "create update" })]]
})

const gem = subcommands({
  bare: LOCAL,
  local: "list env which contents uninstall build help cleanup specification environment",
  egress: "install update fetch search sources query outdated pristine",
  upload: "push owner yank signin signout"
})

const bundle = subcommands({
  bare: EGRESS,
  local: "check list show config help init console platform",
  egress: "install update add outdated lock package cache binstubs",
  special: [["exec", runsProgram]]
})

const compose = subcommands({
  valued: "-f --file -p --project-name --profile --env-file --project-directory",
  local: "ps logs down stop start restart config ls images top rm kill pause unpause version port events",
  egress: "up pull build run create",
  upload: "push"
})
const docker = subcommands({
  valued: "-H --host --context -c --config --log-level -l",
  bare: LOCAL,
  local:
    "ps images logs inspect stop start rm rmi version info tag kill restart cp volume network stats top port diff history events " +
    "save load export pause unpause wait rename attach context system",
  egress: "pull run build create search buildx manifest import",
  upload: "push login",
  special: [
    ["compose", compose],
    ["image", subcommands({ egress: "pull build import", upload: "push", other: LOCAL })],
    ["container", subcommands({ egress: "run create", other: LOCAL, special: [["exec", always(UNKNOWN)]] })]
  ]
})

const packageManager = (local: string, egress: string, valued = ""): Rule =>
  subcommands({ local, egress, valued, bare: LOCAL })

const pacman: Rule = (args) => {
  const op =
    args.find((w) => w.text.startsWith("-") && !w.text.startsWith("--"))?.text ??
    args.find((w) => w.text.startsWith("--"))?.text
  if (op === undefined) return LOCAL
  if (/^-[A-Za-z]*[SU]/.test(op) || op === "--sync" || op === "--upgrade" || /^-F[a-z]*y/.test(op)) return EGRESS
  if (/^-[QRTDFV]/.test(op) || ["--query", "--remove", "--deptest", "--database", "--files", "--version"].includes(op))
    return LOCAL
  return UNKNOWN
}

const python: Rule = (args, ctx) => {
  for (let j = 0; j < args.length; j++) {
    const t = args[j]!.text
    if (t === "-m" || (t.startsWith("-m") && t.length > 2)) {
      const module = t === "-m" ? args[j + 1]?.text : t.slice(2)
      const rule = module === undefined ? undefined : PYTHON_MODULES.get(module)
      return rule === undefined ? LOCAL : rule(args.slice(t === "-m" ? j + 2 : j + 1), ctx)
    }
    if (t === "-c" || !t.startsWith("-")) return LOCAL
    if (t === "-W" || t === "-X") j++
  }
  return LOCAL
}

const shellProgram: Rule = (args, ctx) => {
  for (let j = 0; j < args.length; j++) {
    const t = args[j]!.text
    if (t === "--rcfile" || t === "--init-file" || t === "-o" || t === "+o" || t === "-O" || t === "+O") {
      j++
      continue
    }
    if (/^-[A-Za-z]+$/.test(t) && t.includes("c")) {
      const script = args.slice(j + 1).find((w) => !isOption(w))
      if (script === undefined || !script.literal) return UNKNOWN
      return ctx.script(script.text)
    }
    if (t.startsWith("-") || t.startsWith("+")) continue
    break
  }
  // a script file or stdin: code we cannot see
  return UNKNOWN
}

const env: Rule = (args, ctx) => {
  let j = 0
  while (j < args.length) {
    const w = args[j]!
    const t = w.text
    if (t === "--") {
      j++
      break
    }
    const split = /^(?:-[iv0]*S|--split-string=?)(.*)$/s.exec(t)
    // -S hands env one string that it splits into a command line of its own
    if (split !== null)
      return joinedScript(split[1] === "" ? args.slice(j + 1) : [{ ...w, text: split[1]! }, ...args.slice(j + 1)], ctx)
    if (t === "-u" || t === "--unset" || t === "-C" || t === "--chdir") j += 2
    else if (t === "-" || isOption(w)) j++
    else break
  }
  const rest = args.slice(j)
  return rest.length === 0 ? LOCAL : ctx.argv(rest)
}

const sudo: Rule = (args, ctx) => {
  const rest = afterOptions(
    args,
    nameSet(
      "-u -g -C -D -p -r -t -U -T -R -h --user --group --chdir --prompt --role --type --other-user --close-from --chroot --host"
    )
  )
  return rest.length === 0 ? UNKNOWN : ctx.argv(rest)
}

const timeout: Rule = (args, ctx) => {
  const rest = afterOptions(args, nameSet("-s --signal -k --kill-after"))
  return rest.length <= 1 ? LOCAL : ctx.argv(rest.slice(1))
}

const nice: Rule = (args, ctx) => {
  const rest = afterOptions(args, nameSet("-n --adjustment"))
  return rest.length === 0 ? LOCAL : ctx.argv(rest)
}

const command: Rule = (args, ctx) => {
  if (args.some((w) => w.text === "-v" || w.text === "-V")) return LOCAL
  const rest = afterOptions(args, new Set())
  return rest.length === 0 ? LOCAL : ctx.argv(rest)
}

const watch: Rule = (args, ctx) => {
  const rest = afterOptions(args, nameSet("-n --interval -q --equexit"))
  return args.some((w) => w.text === "-x" || w.text === "--exec")
    ? rest.length === 0
      ? LOCAL
      : ctx.argv(rest)
    : joinedScript(rest, ctx)
}

const evalRule: Rule = (args, ctx) => joinedScript(args, ctx)

/** `find -exec … ;` and friends run a command per file. */
const find: Rule = (args, ctx) => {
  const runs: Array<Effects> = [LOCAL]
  for (let j = 0; j < args.length; j++) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(args[j]!.text)) continue
    let end = j + 1
    while (end < args.length && args[end]!.text !== ";" && args[end]!.text !== "+") end++
    runs.push(end > j + 1 ? ctx.argv(args.slice(j + 1, end)) : UNKNOWN)
    j = end
  }
  return union(...runs)
}

const fd: Rule = (args, ctx) => {
  const at = args.findIndex((w) => ["-x", "--exec", "-X", "--exec-batch"].includes(w.text))
  if (at < 0) return LOCAL
  let end = at + 1
  while (end < args.length && args[end]!.text !== ";") end++
  return union(LOCAL, end > at + 1 ? ctx.argv(args.slice(at + 1, end)) : UNKNOWN)
}

const awk: Rule = (args) => (args.some((w) => /\bsystem\s*\(|\|\s*getline|\|&|\|\s*"/.test(w.text)) ? UNKNOWN : LOCAL)

const openssl: Rule = (args) => {
  const sub = operands(args)[0]?.word.text
  return sub === "s_client" || sub === "s_server" || sub === "ocsp" ? UPLOAD : LOCAL
}

const deno = subcommands({
  bare: UNKNOWN,
  local: "fmt lint help types completions",
  egress: "install add cache upgrade"
})
const meson = subcommands({ bare: LOCAL, other: LOCAL, egress: "subprojects wrap" })
const rustup = subcommands({
  bare: LOCAL,
  other: EGRESS,
  local: "show which help",
  special: [["run", (args, ctx) => (args.length <= 1 ? LOCAL : ctx.argv(afterOptions(args, new Set()).slice(1)))]]
})
const terraform = subcommands({
  bare: LOCAL,
  other: EGRESS,
  local: "fmt validate version help graph",
  upload: "apply destroy import login push"
})
const helm = subcommands({
  bare: LOCAL,
  other: EGRESS,
  local: "template lint version create package env completion help",
  upload: "install upgrade push uninstall rollback",
  special: [["dependency", subcommands({ local: "list", other: EGRESS })]]
})
const kubectl = subcommands({
  valued: "-n --namespace --context --kubeconfig -s --server",
  bare: LOCAL,
  other: EGRESS,
  upload: "apply create replace patch cp edit scale delete"
})
const twine = subcommands({ bare: LOCAL, local: "check", upload: "upload register" })
const pipx = subcommands({
  bare: LOCAL,
  local: "list environment help ensurepath completions uninstall uninstall-all",
  other: EGRESS
})
const playwright = subcommands({ bare: LOCAL, other: LOCAL, egress: "install install-deps" })

const PYTHON_MODULES: ReadonlyMap<string, Rule> = new Map([
  ["pip", pip],
  ["pipx", pipx],
  ["poetry", poetry],
  ["twine", twine],
  ["uv", uv]
])

const LOCAL_PROGRAMS =
  // files and text
  "ls cat head tail grep egrep fgrep rg ag sed wc sort uniq cut tr diff diff3 sdiff cmp comm paste join column nl tee echo printf " +
  "mkdir rmdir rm cp mv touch chmod chown chgrp ln readlink realpath basename dirname stat file du df tree less more exa eza lsd " +
  "bat tar zip unzip gzip gunzip zcat bzip2 bunzip2 xz unxz zstd unzstd lz4 7z cpio jq yq sqlite3 patch iconv dos2unix unix2dos " +
  "strings xxd od hexdump base64 base32 md5sum sha1sum sha224sum sha256sum sha384sum sha512sum shasum b2sum cksum sum split " +
  "csplit fold fmt pr expand unexpand rev tac shuf truncate mktemp install dd sync shred seq yes bc dc expr factor numfmt cal " +
  // shell builtins and keywords whose words are data
  "cd pwd pushd popd dirs export unset set shopt alias unalias declare typeset local readonly read exit return shift getopts " +
  "hash trap wait jobs fg bg disown history let break continue true false test [ [[ : for select case function type which " +
  "whereis printenv ulimit umask " +
  // the system, read or signalled locally
  "sleep date whoami id uname hostname uptime free ps pgrep pkill kill killall lsof locale nproc arch getconf tty groups tput " +
  "clear reset stty " +
  // build, test, lint, interpreters
  "make gmake cmake ninja tsc eslint prettier vitest jest mocha ava biome esbuild vite webpack rollup tsx ts-node node " +
  "pytest py.test mypy ruff black isort flake8 pylint pyright coverage ruby rspec rake irb perl php lua java javac jar " +
  "gcc g++ cc c++ clang clang++ ld ar nm objdump strip gdb lldb valgrind rustc rustfmt gofmt goimports golangci-lint " +
  "staticcheck shellcheck clang-format ssh-keygen ssh-add"

const PROGRAMS: ReadonlyMap<string, Rule> = (() => {
  const table = new Map<string, Rule>()
  const add = (names: string, rule: Rule) => {
    for (const n of nameSet(names)) table.set(n, rule)
  }
  add(LOCAL_PROGRAMS, always(LOCAL))
  add("python python3 python2 py", python)
  add("awk gawk mawk nawk", awk)
  add("find", find)
  add("fd fdfind", fd)
  add("sh bash zsh dash ksh mksh fish", shellProgram)
  add("eval", evalRule)
  add("sudo doas", sudo)
  add("env", env)
  add("time", wrapper("-o -f --output --format"))
  add("nice", nice)
  add("nohup builtin", wrapper(""))
  add("timeout", timeout)
  add(
    "xargs",
    wrapper(
      "-I -n -L -P -d -E -s -a --arg-file --delimiter --max-args --max-procs --max-lines --eof --max-chars --process-slot-var"
    )
  )
  add("exec", wrapper("-a"))
  add("command", command)
  add("stdbuf", wrapper("-i -o -e"))
  add("setsid", wrapper(""))
  add("ionice", wrapper("-c -n --class --classdata"))
  add("watch", watch)
  add("busybox", (args, ctx) => (args.length === 0 ? LOCAL : ctx.argv(args)))
  add("curl", curl)
  add("wget", wget)
  add("http https xh xhs", httpie)
  add(
    "ssh sftp ftp lftp tftp nc ncat netcat socat telnet mosh ssh-copy-id psql mysql mongo mongosh redis-cli",
    always(UPLOAD)
  )
  add("scp", remoteCopy("-P -i -o -F -c -l -S -J"))
  add(
    "rsync",
    remoteCopy(
      "-e --rsh --exclude --include --filter -f --files-from --exclude-from --include-from --port --password-file --log-file -T --temp-dir --backup-dir --link-dest --compare-dest --copy-dest --partial-dir --chmod --chown -M --remote-option --out-format --bwlimit --timeout --contimeout --max-size --min-size --suffix --info --debug"
    )
  )
  add(
    "ping ping6 traceroute tracepath mtr dig nslookup host whois nmap arping ssh-keyscan aria2c yt-dlp youtube-dl lynx w3m links",
    always(EGRESS)
  )
  add("npx pnpx bunx", npxLike)
  add("uvx", always(EGRESS))
  add("openssl", openssl)
  add("gh glab hub", gh)
  add("aws gcloud gsutil az doctl heroku netlify fly flyctl firebase wrangler pulumi rclone s3cmd", cloud())
  add("vercel now", cloud(UPLOAD))
  add("kubectl oc", kubectl)
  add("helm", helm)
  add("terraform tofu", terraform)
  add("git", git)
  add("go", go)
  add("cargo", cargo)
  add("rustup", rustup)
  add("npm", npm)
  add("pnpm", pnpm)
  add("yarn", yarn)
  add("bun", bun)
  add("pip pip3", pip)
  add("uv", uv)
  add("pipx", pipx)
  add("poetry", poetry)
  add("conda mamba micromamba", conda)
  add("twine", twine)
  add("gem", gem)
  add("bundle bundler", bundle)
  add("docker podman nerdctl", docker)
  add("docker-compose podman-compose", compose)
  add(
    "apt apt-get aptitude",
    packageManager(
      "remove purge autoremove autoclean clean list show policy search depends rdepends showsrc",
      "install update upgrade dist-upgrade full-upgrade download source build-dep changelog reinstall",
      "-o -c -t --target-release"
    )
  )
  add(
    "yum dnf microdnf",
    packageManager(
      "remove erase autoremove clean history",
      "install update upgrade downgrade reinstall makecache search info list download check-update distro-sync groupinstall"
    )
  )
  add("apk", packageManager("del info list search version stats audit", "add update upgrade fetch"))
  add(
    "brew",
    packageManager(
      "list ls config uninstall remove rm cleanup link unlink pin unpin leaves deps",
      "install reinstall upgrade update fetch tap search info outdated bundle doctor"
    )
  )
  add("pacman", pacman)
  add("zypper", packageManager("remove rm", "install in update up refresh ref dist-upgrade dup source-install si"))
  add("snap", packageManager("list remove", "install refresh download find info"))
  add("port", packageManager("list installed uninstall", "install upgrade selfupdate sync fetch"))
  add("deno", deno)
  add("meson", meson)
  add("playwright", playwright)
  return table
})()

/** Effects a word has wherever it appears: a URL or a socket path. */
const wordEffects = (w: Word): Effects => {
  if (SOCKET_PATH.test(w.text)) return UPLOAD
  return NETWORK_URL.test(w.text) ? EGRESS : NONE
}

const MAX_SCRIPT_DEPTH = 8

const classifyScript = (text: string, depth: number): Effects => {
  if (depth > MAX_SCRIPT_DEPTH) return UNKNOWN
  let commands: ReadonlyArray<SimpleCommand>
  try {
    commands = new Parser(text, depth).script()
  } catch {
    // an unterminated quote or substitution, or absurd nesting: we cannot tell what runs
    return UNKNOWN
  }
  const ctx: Context = {
    argv: (ws) => classifyArgv(ws, ctx),
    script: (t) => classifyScript(t, depth + 1)
  }
  return union(
    ...commands.map((c) =>
      union(...c.words.map(wordEffects), ...c.redirects.map(wordEffects), classifyArgv(c.words, ctx))
    )
  )
}

const classifyArgv = (ws: ReadonlyArray<Word>, ctx: Context): Effects => {
  let k = 0
  while (k < ws.length && (isAssignment(ws[k]!) || (!ws[k]!.quoted && PASS_THROUGH_KEYWORDS.has(ws[k]!.text)))) k++
  const program = ws[k]
  // only assignments, keywords or redirections
  if (program === undefined) return LOCAL
  if (!program.literal) return UNKNOWN
  const name = programName(program.text)
  const rule = name === undefined ? undefined : PROGRAMS.get(name)
  return rule === undefined ? UNKNOWN : rule(ws.slice(k + 1), ctx)
}

/** The effects a shell command line may have; empty for a blank line. Unparseable or unrecognised → `unknown`. */
export const classifyCommand = (command: string): ReadonlySet<ShellEffect> => {
  try {
    return new Set(classifyScript(command, 0))
  } catch {
    // a stack overflow on pathological nesting still fails closed
    return new Set(UNKNOWN)
  }
}
