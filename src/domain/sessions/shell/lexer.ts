/**
 * The shell classifier's lexer (../shell.ts): a command line split into simple commands, each with its words (quote
 * removal done, expansions kept as written) and its redirection targets; nested scripts (`$(…)`, backquotes,
 * here-documents) are parsed as their own command lines.
 */

export interface Word {
  /** The word after quote removal; expansions stay as written. */
  readonly text: string
  /** Some part was quoted or escaped (a quoted `if` is a command name, a quoted here-doc delimiter stops expansion). */
  readonly quoted: boolean
  /** No expansion: the shell passes `text` as it is. */
  readonly literal: boolean
  /** How many leading characters of `text` were written bare (an assignment needs a bare `NAME=`). */
  readonly bare: number
}

export interface SimpleCommand {
  readonly words: ReadonlyArray<Word>
  readonly redirects: ReadonlyArray<Word>
}

export class Unparseable {
  readonly _tag = "Unparseable"
}

// Deeper nesting than this is no honest command line; it is judged unknown rather than risk the stack.
export const MAX_NESTING = 24
export const METACHARACTERS = new Set([" ", "\t", "\r", "\n", ";", "&", "|", "(", ")", "<", ">"])
export const NAME_START = /[A-Za-z_]/
export const NAME_CHAR = /\w/
export const SPECIAL_PARAMETER = /[0-9@*#?$!-]/

export class Parser {
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
