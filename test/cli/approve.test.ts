import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { PassThrough } from "node:stream"
import * as Approvals from "../../src/adapters/approval/Approvals.js"
import { Approval } from "../../src/ports/Approval.js"
import { BIN, tempDirs, tmem } from "../support/cli.js"

const { fresh } = tempDirs(afterAll)

describe("tmem --approve", () => {
  it("deny refuses every write; ask shows the call and takes y or no", async () => {
    const dir = fresh()
    expect(await tmem(["--dir", dir, "--approve", "deny", "facts", "add", "user", "Prefers vim"])).toMatchObject({
      code: 1,
      stderr: "memory: add on user was not approved; nothing written\n"
    })
    // a pipe is not a person: even a piped "y" is not an answer
    const piped = await tmem(["--dir", dir, "--approve", "ask", "facts", "add", "user", "Prefers vim"], {
      input: "y\n"
    })
    expect(piped).toMatchObject({
      code: 1,
      stderr:
        'memory add user: "Prefers vim"\ntmem: cannot ask for approval: stdin is not a terminal; ' +
        "answered no (use --approve auto or deny in scripts)\n" +
        "memory: add on user was not approved; nothing written\n"
    })
    expect(fs.existsSync(path.join(dir, "user.md"))).toBe(false)
    expect((await tmem(["--dir", dir, "facts", "add", "user", "Prefers vim"])).code).toBe(0)
    // reads need no approval
    expect((await tmem(["--dir", dir, "--approve", "deny", "facts", "show", "user"])).code).toBe(0)
    expect((await tmem(["--dir", dir, "--approve", "maybe", "facts", "show"])).code).toBe(2)
  })

  it("ask does not wait on a stdin that stays open without a terminal: it answers no at once", async () => {
    const dir = fresh()
    // stdin is a pipe nobody writes to or closes (an agent's harness); the old code waited for a line forever
    const child = spawn(
      process.execPath,
      [BIN, "--dir", dir, "--approve", "ask", "facts", "add", "user", "Prefers vim"],
      {
        env: { ...process.env, TMEM_DIR: "", TMEM_CONFIG: "" },
        stdio: ["pipe", "pipe", "pipe"]
      }
    )
    let stderr = ""
    child.stderr.on("data", (d) => (stderr += d))
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve))
    child.stdin.destroy()
    expect(code).toBe(1)
    expect(stderr).toContain("stdin is not a terminal; answered no")
    expect(fs.existsSync(path.join(dir, "user.md"))).toBe(false)
  }, 20_000) // generous: only proves it does not wait for input
})

describe("Approvals.askOn (the terminal question)", () => {
  const tty = () => Object.assign(new PassThrough(), { isTTY: true })
  const sink = () => {
    const out = { text: "", write: (t: string) => void (out.text += t) }
    return out
  }

  it("on a terminal: shows the question and returns the typed line", async () => {
    const input = tty()
    const output = sink()
    const answer = Approvals.askOn({ input, output })('memory add user: "x"\napprove? [y/N] ')
    input.write("yes\n")
    expect(await answer).toBe("yes")
    expect(output.text).toBe('memory add user: "x"\napprove? [y/N] ')
  })

  it("end of input on a terminal answers no, with a one-line message", async () => {
    const input = tty()
    const output = sink()
    const answer = Approvals.askOn({ input, output })("q\napprove? [y/N] ")
    input.end()
    expect(await answer).toBeUndefined()
    expect(output.text).toBe("q\napprove? [y/N] \ntmem: no answer (end of input); answered no\n")
  })

  it("the layer approves only y or yes", async () => {
    for (const [line, approved] of [
      ["y", true],
      [" YES ", true],
      ["n", false],
      ["", false],
      [undefined, false]
    ] as const) {
      const layer = Approvals.interactive(() => Promise.resolve(line))
      const r = await Effect.runPromise(
        Effect.provide(
          Effect.flatMap(Approval, (a) => a.approve({ action: "add", resource: "r" })),
          layer
        )
      )
      expect(r, String(line)).toBe(approved)
    }
  })
})
