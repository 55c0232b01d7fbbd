import { EGRESS, type Effects, LOCAL, UNKNOWN, UPLOAD, union } from "./effects.js"
import { type Word } from "./lexer.js"

/**
 * The shell classifier's rules (../shell.ts): what one program does with its arguments, as a set of effects. A rule
 * that runs another command or script (a wrapper, `sh -c`, `git submodule foreach`) classifies it through the
 * context it is given, so the rules need not know the classifier.
 */

export interface Context {
  /** Effects of running the given words as a command. */
  readonly argv: (words: ReadonlyArray<Word>) => Effects
  /** Effects of running a shell script. */
  readonly script: (text: string) => Effects
}

export type Rule = (args: ReadonlyArray<Word>, ctx: Context) => Effects

export const NETWORK_URL = /\b(?:https?|ftps?|wss?|sftp|scp|ssh|git|rsync|s3|gs|telnet|ldaps?|smb|nfs):\/\//i
export const SOCKET_PATH = /\/dev\/(?:tcp|udp)\/|\/inet[46]?\/(?:tcp|udp)\//
export const ASSIGNMENT = /^[A-Za-z_]\w*(?:\[[^\]]*\])?\+?=/
// Reserved words that start or end a compound command: the command after them (if any) is what runs
export const PASS_THROUGH_KEYWORDS = new Set([
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
export const SYSTEM_BIN =
  /^(?:\/usr(?:\/local)?)?\/s?bin\/[^/]+$|^\/opt\/homebrew\/bin\/[^/]+$|(?:^|\/)node_modules\/\.bin\/[^/]+$/

export const isAssignment = (w: Word): boolean => {
  const m = ASSIGNMENT.exec(w.text)
  return m !== null && m[0].length <= w.bare
}

export const isOption = (w: Word): boolean => w.text.length > 1 && w.text.startsWith("-")

/** The program a path names, when the path is one whose programs we may know by name. */
export const programName = (text: string): string | undefined => {
  if (!text.includes("/")) return text
  return SYSTEM_BIN.test(text) ? text.slice(text.lastIndexOf("/") + 1) : undefined
}

/** Non-option words, skipping the values of `valued` options (given apart, not as `--opt=value` or `-ovalue`). */
export const operands = (
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

export const nameSet = (spaced: string): ReadonlySet<string> => new Set(spaced.split(/\s+/).filter((w) => w !== ""))

/** The words after leading options (and their values), where a wrapped command starts. */
export const afterOptions = (args: ReadonlyArray<Word>, valued: ReadonlySet<string>): ReadonlyArray<Word> => {
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
export const wrapper = (valued: string): Rule => {
  const options = nameSet(valued)
  return (args, ctx) => {
    const rest = afterOptions(args, options)
    return rest.length === 0 ? LOCAL : ctx.argv(rest)
  }
}

export interface SubcommandTable {
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

export const subcommands = (t: SubcommandTable): Rule => {
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

export const always =
  (effects: Effects): Rule =>
  () =>
    effects

// host:path, user@host:path, host::module, scheme://…: a colon before any slash
export const REMOTE_OPERAND = /^(?:[a-z][a-z0-9+.-]*:\/\/|[^/]*:)/i

/** `scp` and `rsync`: network when an operand is remote, upload when the destination (last operand) is. */
export const remoteCopy = (valued: string): Rule => {
  const options = nameSet(valued)
  return (args) => {
    const ops = operands(args, options).map((o) => o.word.text)
    if (!ops.some((o) => REMOTE_OPERAND.test(o))) return LOCAL
    return REMOTE_OPERAND.test(ops[ops.length - 1] ?? "") ? UPLOAD : EGRESS
  }
}

export const SAFE_METHODS = nameSet("GET HEAD OPTIONS")
export const CURL_DATA_LONG = nameSet(
  "--data --data-binary --data-raw --data-ascii --data-urlencode --json --form --form-string --upload-file"
)

export const curl: Rule = (args) => {
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

export const wget: Rule = (args) => {
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
export const httpie: Rule = (args) => {
  const ops = operands(args).map((o) => o.word.text)
  if (args.some((w) => /^(?:-f|--form|--multipart|--raw(?:=|$))/.test(w.text))) return UPLOAD
  if (ops.length > 1 && /^[A-Z]+$/.test(ops[0]!) && !SAFE_METHODS.has(ops[0]!)) return UPLOAD
  if (ops.some((o) => !/^[^=:@]+==/.test(o) && /^[^=:@/]+(?::=|=|@)/.test(o))) return UPLOAD
  return EGRESS
}

export const GH_MUTATIONS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
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
export const methodAt = (args: ReadonlyArray<Word>, j: number, flags: ReadonlyArray<string>): string | undefined => {
  const t = args[j]!.text
  for (const f of flags) {
    if (t === f) return args[j + 1]?.text ?? ""
    if (f.startsWith("--") && t.startsWith(`${f}=`)) return t.slice(f.length + 1)
  }
  return undefined
}

export const mutating = (method: string | undefined): boolean =>
  method !== undefined && !SAFE_METHODS.has(method.toUpperCase())

export const gh: Rule = (args) => {
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

export const CLOUD_UPLOAD_VERBS = nameSet("deploy publish push upload submit up apply put-object")
export const CLOUD_COPY_VERBS = nameSet("cp mv sync rsync copy move copyto moveto")

/** Cloud CLIs always reach the network; deploying or copying to a remote sends data out. */
export const cloud =
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
export const GIT_SAFE_CONFIG = new RegExp(
  String.raw`^(?:color\.|advice\.|user\.(?:name|email)=` +
    String.raw`|core\.(?:quotepath|autocrlf|safecrlf|filemode|longpaths|abbrev|ignorecase)=` +
    String.raw`|init\.defaultbranch=|safe\.directory=|log\.|format\.pretty=` +
    String.raw`|diff\.(?:renames|algorithm|noprefix|mnemonicprefix|colormoved)=` +
    String.raw`|merge\.conflictstyle=|pull\.rebase=|(?:commit|tag)\.gpgsign=|gc\.auto=|status\.)`,
  "i"
)

export const gitRemote: Rule = (args) => {
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

export const gitRebase: Rule = (args, ctx) => {
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

export const gitSubcommands = subcommands({
  valued: "-C -c --git-dir --work-tree --namespace --super-prefix --config-env",
  bare: LOCAL,
  local:
    "status diff log show add commit branch checkout switch merge stash reset restore tag rev-parse blame " +
    "grep init mv rm config shortlog describe cherry-pick revert reflog ls-files ls-tree cat-file apply am " +
    "format-patch worktree clean notes show-ref for-each-ref rev-list merge-base diff-tree diff-index " +
    "diff-files name-rev gc fsck prune check-ignore check-attr hash-object update-index write-tree read-tree " +
    "commit-tree symbolic-ref update-ref count-objects var whatchanged range-diff help version mailinfo " +
    "stripspace interpret-trailers sparse-checkout maintenance show-branch cherry difftool mergetool " +
    "request-pull verify-commit verify-tag bundle fast-export fast-import repack pack-refs annotate",
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

export const git: Rule = (args, ctx) => {
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
export const joinedScript = (args: ReadonlyArray<Word>, ctx: Context): Effects =>
  args.length === 0 ? LOCAL : args.every((w) => w.literal) ? ctx.script(args.map((w) => w.text).join(" ")) : UNKNOWN

/** `go` sub-commands that name `module@version` fetch that module. */
export const goFetchesVersion =
  (otherwise: Effects): Rule =>
  (args) =>
    operands(args).some((o) => o.word.text.includes("@")) ? EGRESS : otherwise

export const go = subcommands({
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

export const cargoTable = subcommands({
  valued: "--manifest-path --config -Z --color --target-dir",
  bare: LOCAL,
  local:
    "build b test t check c clippy fmt run r doc d bench clean tree metadata new init locate-project " +
    "pkgid version help fix rustc rustdoc verify-project read-manifest package remove rm",
  egress: "install fetch update search add info vendor generate-lockfile uninstall",
  upload: "publish login owner yank logout"
})
// `cargo +nightly build` names a toolchain before the sub-command
export const cargo: Rule = (args, ctx) =>
  cargoTable(
    args.filter((w) => !w.text.startsWith("+")),
    ctx
  )

// `bundle exec`, `poetry run`, `pnpm exec`…: a program run inside the tool's environment decides for itself
export const runsProgram = wrapper("")
export const uvRun = wrapper("--with --python -p --package --extra --group --env-file")

export const npxLike: Rule = (args) =>
  args.some((w) => w.text === "--no-install" || w.text === "--offline" || w.text === "--no") ? LOCAL : EGRESS

export const NPM_EGRESS =
  "install i in ins inst insta instal isnt isnta isntal isntall add ci clean-install " +
  "install-clean ic install-ci-test cit install-test it update up upgrade udpate outdated " +
  "audit view info show v search s se find dlx create doctor rebuild rb ping link ln dedupe ddp"
export const NPM_UPLOAD =
  "publish unpublish deprecate login adduser add-user logout " +
  "dist-tag owner access team token star unstar hook org profile"

export const npm = subcommands({
  valued: "--prefix -w --workspace --registry --cache --userconfig --loglevel",
  bare: LOCAL,
  local:
    "run run-script rum urn test tst t start stop restart ls list ll la root bin prefix help " +
    "why explain pack version config get set pkg query fund completion prune help-search edit",
  egress: NPM_EGRESS,
  upload: NPM_UPLOAD,
  special: [
    ["exec", npxLike],
    ["x", npxLike],
    ["init", (args) => (operands(args).length > 0 ? EGRESS : LOCAL)]
  ]
})

// pnpm, yarn and bun run a name they do not know as a package script
export const pnpm = subcommands({
  valued: "-C --dir --filter -F --reporter --loglevel --workspace-dir",
  bare: LOCAL,
  other: LOCAL,
  egress:
    "install i add update up upgrade outdated audit dlx create import fetch " +
    "install-test it rebuild rb env view info show search patch deploy licenses link ln",
  upload: "publish login logout adduser unpublish deprecate dist-tag owner access",
  special: [
    ["exec", runsProgram],
    ["store", subcommands({ egress: "add", other: LOCAL })]
  ]
})

export const yarn: Rule = (args, ctx) => yarnTable(args, ctx)
export const yarnTable: Rule = subcommands({
  valued: "--cwd",
  bare: EGRESS,
  other: LOCAL,
  egress:
    "install add upgrade up upgrade-interactive outdated audit dlx " +
    "create init import info remove set plugin global unplug rebuild",
  upload: "publish login logout owner tag",
  special: [
    ["exec", runsProgram],
    ["npm", subcommands({ upload: "publish login logout tag", other: EGRESS })],
    ["workspace", (args, ctx) => yarn(args.slice(1), ctx)],
    ["workspaces", subcommands({ other: LOCAL, special: [["foreach", () => UNKNOWN]] })]
  ]
})

export const bun = subcommands({
  bare: LOCAL,
  other: LOCAL,
  egress: "install i add a update upgrade remove rm outdated x create link pm",
  upload: "publish"
})

export const pip = subcommands({
  valued: "--proxy --cert --client-cert --cache-dir --log --timeout --retries",
  bare: LOCAL,
  local: "uninstall list show freeze check config cache debug inspect hash help completion",
  egress: "install download wheel search index lock"
})

export const uv = subcommands({
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

export const poetry = subcommands({
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

export const conda = subcommands({
  valued: "-n --name -p --prefix -c --channel",
  bare: LOCAL,
  local: "list info activate deactivate remove uninstall clean config run",
  egress: "install create update upgrade search",
  special: [["env", subcommands({ local: "list remove export config", egress: "create update" })]]
})

export const gem = subcommands({
  bare: LOCAL,
  local: "list env which contents uninstall build help cleanup specification environment",
  egress: "install update fetch search sources query outdated pristine",
  upload: "push owner yank signin signout"
})

export const bundle = subcommands({
  bare: EGRESS,
  local: "check list show config help init console platform",
  egress: "install update add outdated lock package cache binstubs",
  special: [["exec", runsProgram]]
})

export const compose = subcommands({
  valued: "-f --file -p --project-name --profile --env-file --project-directory",
  local: "ps logs down stop start restart config ls images top rm kill pause unpause version port events",
  egress: "up pull build run create",
  upload: "push"
})
export const docker = subcommands({
  valued: "-H --host --context -c --config --log-level -l",
  bare: LOCAL,
  local:
    "ps images logs inspect stop start rm rmi version info tag kill restart cp volume network stats " +
    "top port diff history events save load export pause unpause wait rename attach context system",
  egress: "pull run build create search buildx manifest import",
  upload: "push login",
  special: [
    ["compose", compose],
    ["image", subcommands({ egress: "pull build import", upload: "push", other: LOCAL })],
    ["container", subcommands({ egress: "run create", other: LOCAL, special: [["exec", always(UNKNOWN)]] })]
  ]
})

export const packageManager = (local: string, egress: string, valued = ""): Rule =>
  subcommands({ local, egress, valued, bare: LOCAL })

export const pacman: Rule = (args) => {
  const op =
    args.find((w) => w.text.startsWith("-") && !w.text.startsWith("--"))?.text ??
    args.find((w) => w.text.startsWith("--"))?.text
  if (op === undefined) return LOCAL
  if (/^-[A-Za-z]*[SU]/.test(op) || op === "--sync" || op === "--upgrade" || /^-F[a-z]*y/.test(op)) return EGRESS
  if (/^-[QRTDFV]/.test(op) || ["--query", "--remove", "--deptest", "--database", "--files", "--version"].includes(op))
    return LOCAL
  return UNKNOWN
}

export const python: Rule = (args, ctx) => {
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

export const shellProgram: Rule = (args, ctx) => {
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

export const env: Rule = (args, ctx) => {
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

export const sudo: Rule = (args, ctx) => {
  const rest = afterOptions(
    args,
    nameSet(
      "-u -g -C -D -p -r -t -U -T -R -h --user --group --chdir " +
        "--prompt --role --type --other-user --close-from --chroot --host"
    )
  )
  return rest.length === 0 ? UNKNOWN : ctx.argv(rest)
}

export const timeout: Rule = (args, ctx) => {
  const rest = afterOptions(args, nameSet("-s --signal -k --kill-after"))
  return rest.length <= 1 ? LOCAL : ctx.argv(rest.slice(1))
}

export const nice: Rule = (args, ctx) => {
  const rest = afterOptions(args, nameSet("-n --adjustment"))
  return rest.length === 0 ? LOCAL : ctx.argv(rest)
}

export const command: Rule = (args, ctx) => {
  if (args.some((w) => w.text === "-v" || w.text === "-V")) return LOCAL
  const rest = afterOptions(args, new Set())
  return rest.length === 0 ? LOCAL : ctx.argv(rest)
}

export const watch: Rule = (args, ctx) => {
  const rest = afterOptions(args, nameSet("-n --interval -q --equexit"))
  return args.some((w) => w.text === "-x" || w.text === "--exec")
    ? rest.length === 0
      ? LOCAL
      : ctx.argv(rest)
    : joinedScript(rest, ctx)
}

export const evalRule: Rule = (args, ctx) => joinedScript(args, ctx)

/** `find -exec … ;` and friends run a command per file. */
export const find: Rule = (args, ctx) => {
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

export const fd: Rule = (args, ctx) => {
  const at = args.findIndex((w) => ["-x", "--exec", "-X", "--exec-batch"].includes(w.text))
  if (at < 0) return LOCAL
  let end = at + 1
  while (end < args.length && args[end]!.text !== ";") end++
  return union(LOCAL, end > at + 1 ? ctx.argv(args.slice(at + 1, end)) : UNKNOWN)
}

export const awk: Rule = (args) =>
  args.some((w) => /\bsystem\s*\(|\|\s*getline|\|&|\|\s*"/.test(w.text)) ? UNKNOWN : LOCAL

export const openssl: Rule = (args) => {
  const sub = operands(args)[0]?.word.text
  return sub === "s_client" || sub === "s_server" || sub === "ocsp" ? UPLOAD : LOCAL
}

export const deno = subcommands({
  bare: UNKNOWN,
  local: "fmt lint help types completions",
  egress: "install add cache upgrade"
})
export const meson = subcommands({ bare: LOCAL, other: LOCAL, egress: "subprojects wrap" })
export const rustup = subcommands({
  bare: LOCAL,
  other: EGRESS,
  local: "show which help",
  special: [["run", (args, ctx) => (args.length <= 1 ? LOCAL : ctx.argv(afterOptions(args, new Set()).slice(1)))]]
})
export const terraform = subcommands({
  bare: LOCAL,
  other: EGRESS,
  local: "fmt validate version help graph",
  upload: "apply destroy import login push"
})
export const helm = subcommands({
  bare: LOCAL,
  other: EGRESS,
  local: "template lint version create package env completion help",
  upload: "install upgrade push uninstall rollback",
  special: [["dependency", subcommands({ local: "list", other: EGRESS })]]
})
export const kubectl = subcommands({
  valued: "-n --namespace --context --kubeconfig -s --server",
  bare: LOCAL,
  other: EGRESS,
  upload: "apply create replace patch cp edit scale delete"
})
export const twine = subcommands({ bare: LOCAL, local: "check", upload: "upload register" })
export const pipx = subcommands({
  bare: LOCAL,
  local: "list environment help ensurepath completions uninstall uninstall-all",
  other: EGRESS
})
export const playwright = subcommands({ bare: LOCAL, other: LOCAL, egress: "install install-deps" })

export const PYTHON_MODULES: ReadonlyMap<string, Rule> = new Map([
  ["pip", pip],
  ["pipx", pipx],
  ["poetry", poetry],
  ["twine", twine],
  ["uv", uv]
])
