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

import { EGRESS, type Effects, LOCAL, NONE, type ShellEffect, UNKNOWN, UPLOAD, union } from "./shell/effects.js"
import { Parser, type SimpleCommand, type Word } from "./shell/lexer.js"
import {
  type Context,
  NETWORK_URL,
  PASS_THROUGH_KEYWORDS,
  SOCKET_PATH,
  isAssignment,
  programName
} from "./shell/rules.js"
import { PROGRAMS } from "./shell/programs.js"

export type { ShellEffect } from "./shell/effects.js"

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
