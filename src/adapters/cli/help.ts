import { CliConfig, Command, CommandDescriptor, HelpDoc, Usage } from "@effect/cli"
import type { Span } from "@effect/cli/HelpDoc/Span"
import { Option } from "effect"

/**
 * tmem's own help and argument front end. @effect/cli's help repeats its built-in options on every page, prints
 * a subcommand's usage without the words before it (`$ add <target> <content>`) and colours it whatever the
 * terminal; its parser rejects global options after the subcommand and `--help` after a global option. The
 * command tree stays the library's; this module reads it (usage, descriptions, options) and renders plain text.
 */

/** One command of the tree as the front end needs it. */
export interface CommandSpec {
  readonly path: ReadonlyArray<string>
  /** The command's own usage, its name first: `search [--limit integer] <query>`. */
  readonly usage: string
  readonly description: string
  /** Option name (every alias) → whether it takes a value. */
  readonly options: ReadonlyMap<string, boolean>
  readonly children: ReadonlyArray<CommandSpec>
  readonly help: HelpDoc.HelpDoc
}

const config = CliConfig.make({ showBuiltIns: false, showTypes: false })

export const spanText = (s: Span): string => {
  switch (s._tag) {
    case "Text":
    case "URI":
      return s.value
    case "Sequence":
      return spanText(s.left) + spanText(s.right)
    default:
      return spanText(s.value)
  }
}

const usageOptions = (u: Usage.Usage, into: Map<string, boolean>): Map<string, boolean> => {
  switch (u._tag) {
    case "Named":
      // positional arguments are Named too, without dashes
      for (const n of u.names) if (n.startsWith("-")) into.set(n, Option.isSome(u.acceptedValues))
      return into
    case "Optional":
    case "Repeated":
      return usageOptions(u.usage, into)
    case "Alternation":
    case "Concat":
      return usageOptions(u.right, usageOptions(u.left, into))
    default:
      return into
  }
}

/** The sentences @effect/cli adds to every option and argument; the type is already in the usage. */
const BOILERPLATE = new RegExp(
  [
    String.raw`^(A user-defined piece of text|A true or false value|An integer|A floating point number|`,
    String.raw`A path to a file|A file|One of the following: .*|This setting is optional)\.?$`
  ].join("")
)

/** A help document as plain text: sections as `Title:`, definition lists as aligned two-column rows. */
export const plainHelp = (doc: HelpDoc.HelpDoc, skipSections: ReadonlyArray<string> = []): string => {
  const lines: Array<string> = []
  let skipping = false
  const walk = (d: HelpDoc.HelpDoc): void => {
    switch (d._tag) {
      case "Sequence":
        return (walk(d.left), walk(d.right))
      case "Header": {
        const title = spanText(d.value)
        skipping = skipSections.includes(title)
        // the description needs no title: it follows the usage line
        if (!skipping)
          lines.push("", ...(title === "DESCRIPTION" ? [] : [`${title.charAt(0)}${title.slice(1).toLowerCase()}:`]))
        return
      }
      case "Paragraph":
        if (!skipping) lines.push(spanText(d.value))
        return
      case "DescriptionList":
        if (skipping) return
        for (const [name, body] of d.definitions) {
          const text = paragraphs(body)
            .map((p) => p.replace(/^This setting is optional\. Defaults to: (.*)$/, "(default $1)"))
            .filter((p) => !BOILERPLATE.test(p))
          lines.push(row(spanText(name).replace(/^\((.*)\)$/, "$1"), text.join(" "), 28))
        }
        return
      case "Enumeration":
        if (!skipping) for (const e of d.elements) lines.push(`  ${plainHelp(e).trim()}`)
        return
      case "Empty":
        return
    }
  }
  walk(doc)
  return lines.join("\n")
}

/** Two columns; a name too wide for the first gets its own line. */
const row = (left: string, right: string, width: number) =>
  (left.length > width ? `  ${left}\n  ${"".padEnd(width)}  ${right}` : `  ${left.padEnd(width)}  ${right}`).trimEnd()

const paragraphs = (d: HelpDoc.HelpDoc): ReadonlyArray<string> =>
  d._tag === "Sequence"
    ? [...paragraphs(d.left), ...paragraphs(d.right)]
    : d._tag === "Paragraph"
      ? [spanText(d.value)]
      : []

const descriptionOf = (help: HelpDoc.HelpDoc): string => {
  const ps: Array<string> = []
  let inDescription = false
  const walk = (d: HelpDoc.HelpDoc): void => {
    if (d._tag === "Sequence") return (walk(d.left), walk(d.right))
    if (d._tag === "Header") inDescription = spanText(d.value) === "DESCRIPTION"
    else if (d._tag === "Paragraph" && inDescription) ps.push(spanText(d.value))
  }
  walk(help)
  return ps.join(" ")
}

/**
 * The shape @effect/cli gives a command descriptor at run time (0.77): its public getters flatten the tree to one
 * level, so the nesting is read from the descriptor itself.
 */
type Node =
  | { readonly _tag: "Standard" | "GetUserInput" }
  | { readonly _tag: "Map"; readonly command: Node }
  | { readonly _tag: "Subcommands"; readonly parent: Node; readonly children: ReadonlyArray<Node> }

const specOf = (node: Node, parent: ReadonlyArray<string>): CommandSpec => {
  if (node._tag === "Map") return specOf(node.command, parent)
  const own = node._tag === "Subcommands" ? node.parent : node
  const d = own as unknown as CommandDescriptor.Command<unknown>
  const path = [...parent, ...CommandDescriptor.getNames(d)]
  const help = CommandDescriptor.getHelp(d, config)
  const usage = CommandDescriptor.getUsage(d)
  return {
    path,
    usage: spanText(HelpDoc.getSpan(Usage.getHelp(usage))).trim(),
    description: descriptionOf(help),
    options: usageOptions(usage, new Map()),
    children: node._tag === "Subcommands" ? node.children.map((c) => specOf(c, path)) : [],
    help
  }
}

/** The tree of a root command. */
export const commandTree = <N extends string, R, E, A>(root: Command.Command<N, R, E, A>): CommandSpec =>
  specOf(root.descriptor as unknown as Node, [])

/** A group with more commands than this is one line of `tmem --help`; `tmem <group> --help` lists them. */
const LISTED_GROUP_MAX = 8

/** The lines of `tmem --help`: every command, except that a large group is shown as the group. */
const listed = (s: CommandSpec): ReadonlyArray<CommandSpec> =>
  s.children.length === 0 || (s.path.length > 1 && s.children.length > LISTED_GROUP_MAX)
    ? [s]
    : s.children.flatMap(listed)

/** The full command line: `tmem episodes search [--limit integer] <query>`, or `tmem atoms <command>`. */
const line = (s: CommandSpec) =>
  [...s.path.slice(0, -1), s.usage, ...(s.children.length > 0 ? ["<command>"] : [])].join(" ")

/** The widest command line `tmem --help` shows beside its description. */
const COMMAND_COLUMN = 64

/**
 * A command line as the top-level help lists it: whole, unless it would not fit its column; then its options are
 * `[options]` (its own --help shows them), so that every command keeps one line.
 */
const listedLine = (s: CommandSpec) => {
  const whole = line(s)
  return whole.length <= COMMAND_COLUMN || s.options.size === 0
    ? whole
    : [
        ...s.path.slice(0, -1),
        s.path[s.path.length - 1],
        "[options]",
        ...s.usage.split(" ").filter((w) => w.startsWith("<"))
      ].join(" ")
}

/** `tmem --help`: what tmem is, its commands with their usage, the global options. Short on purpose. */
export const rootHelp = (root: CommandSpec, version: string): string =>
  [
    `tmem ${version}: ${root.description}`,
    "",
    "Usage: tmem [global options] <command> [arguments]   (global options may also follow the command)",
    "",
    "Commands:",
    // wide enough that the common command lines keep their description on the same line
    ...listed(root).map((s) =>
      row(
        listedLine(s),
        s.children.length > 0 ? `${s.description} (tmem ${s.path[1]} --help)` : s.description,
        COMMAND_COLUMN
      )
    ),
    plainHelp(root.help, ["COMMANDS", "DESCRIPTION"]).replace("\nOptions:", "\nGlobal options:"),
    row("-h, --help", "this help; `tmem <command> --help` for one command", 28),
    row("--version", "print the version", 28),
    "",
    "Shell completions: tmem --completions bash|zsh|fish|sh (see docs/CLI.md). Documentation: docs/CLI.md."
  ].join("\n")

/** `tmem facts add --help`: the full command line, then the command's own description, arguments and options. */
export const commandHelp = (s: CommandSpec): string => {
  const sub = s.children.map((c) => row(line(c), c.description, 44))
  return [
    `Usage: ${line(s)}`,
    plainHelp(s.help),
    ...(sub.length > 0 ? ["", "Commands:", ...sub] : []),
    "",
    "Global options (--dir, --memory, --store, --config, --json, -v, --llm-url, --llm-model, --approve) " +
      "go before or after the command: see tmem --help"
  ].join("\n")
}

/** What to do with a command line, decided before @effect/cli parses it. */
export type FrontEnd =
  | { readonly _tag: "Help"; readonly text: string }
  | { readonly _tag: "Version" }
  | { readonly _tag: "Usage"; readonly message: string; readonly json: boolean }
  | { readonly _tag: "Run"; readonly args: ReadonlyArray<string>; readonly json: boolean }

/** A word that is an option, not a value: `-` is stdin and `-5` a number. */
const isOption = (w: string) => w.startsWith("-") && w !== "-" && !/^-\d/.test(w)

/**
 * Reads the command line once: `--help`/`-h` and `--version` anywhere (after global options too), an unknown
 * option as a one-line usage error, and global options moved before the command so that they work in the same
 * places for every command (`tmem facts show --json`). Words after `--` are passed on as they are.
 */
export const frontEnd = (root: CommandSpec, version: string, args: ReadonlyArray<string>): FrontEnd => {
  const globals: Array<string> = []
  const path: Array<string> = []
  const rest: Array<string> = []
  let node = root
  let help = false
  let showVersion = false
  // known before any mistake is met, so that even a usage error answers in JSON
  const end = args.indexOf("--")
  const json = (end < 0 ? args : args.slice(0, end)).includes("--json")
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!
    if (word === "--") {
      rest.push(...args.slice(i))
      break
    }
    if (word === "-h" || word === "--help") help = true
    else if (word === "--version") showVersion = true
    else if (isOption(word)) {
      const [name, inline] = word.includes("=")
        ? [word.slice(0, word.indexOf("=")), word.slice(word.indexOf("=") + 1)]
        : [word, undefined]
      const own = root.options.has(name) ? globals : node.options.has(name) ? rest : undefined
      // the library's shell completions stay reachable at the top; its wizard and log level are not offered
      if (own === undefined && !(name === "--completions" && node === root))
        return { _tag: "Usage", message: `unknown option ${name}`, json }
      const takesValue =
        (root.options.get(name) ?? node.options.get(name) ?? name === "--completions") && inline === undefined
      if (takesValue && i + 1 >= args.length) return { _tag: "Usage", message: `option ${name} needs a value`, json }
      ;(own ?? rest).push(word, ...(takesValue ? [args[++i]!] : []))
    } else {
      const child = rest.length === 0 ? node.children.find((c) => c.path[c.path.length - 1] === word) : undefined
      if (child === undefined && node.children.length > 0)
        return {
          _tag: "Usage",
          message:
            `unknown command ${[...node.path, word].join(" ")} ` +
            `(one of: ${node.children.map((c) => c.path[c.path.length - 1]).join(", ")})`,
          json
        }
      if (child !== undefined) node = child
      ;(child !== undefined ? path : rest).push(word)
    }
  }
  // `tmem` alone, or a group without its command (`tmem atoms`), is a request for help, not a mistake
  if (help || args.length === 0 || (!showVersion && node.children.length > 0 && rest.length === 0))
    return { _tag: "Help", text: node === root ? rootHelp(root, version) : commandHelp(node) }
  if (showVersion) return { _tag: "Version" }
  return { _tag: "Run", args: [...globals, ...path, ...rest], json }
}
