import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { tempDirs, tmem } from "../support/cli.js"

const { fresh } = tempDirs(afterAll)

describe("tmem --approve", () => {
  it("deny refuses every write; ask shows the call and takes y or no", async () => {
    const dir = fresh()
    expect(await tmem(["--dir", dir, "--approve", "deny", "facts", "add", "user", "Prefers vim"])).toMatchObject({
      code: 1,
      stderr: "memory: add on user was not approved; nothing written\n"
    })
    const no = await tmem(["--dir", dir, "--approve", "ask", "facts", "add", "user", "Prefers vim"], { input: "n\n" })
    expect(no.code).toBe(1)
    expect(no.stderr).toBe('memory add user: "Prefers vim"\napprove? [y/N] memory: add on user was not approved; nothing written\n')
    const yes = await tmem(["--dir", dir, "--approve", "ask", "facts", "add", "user", "Prefers vim"], { input: "y\n" })
    expect(yes).toMatchObject({ code: 0, stdout: "added to user: Prefers vim\n" })
    expect(fs.readFileSync(path.join(dir, "user.md"), "utf8")).toBe("Prefers vim")
    // reads need no approval
    expect((await tmem(["--dir", dir, "--approve", "deny", "facts", "show", "user"])).code).toBe(0)
    expect((await tmem(["--dir", dir, "--approve", "maybe", "facts", "show"])).code).toBe(2)
  })
})
