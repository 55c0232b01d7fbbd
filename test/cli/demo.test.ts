import { spawnSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { BIN } from "../support/cli.js"

describe("tmem demo (the main job)", () => {
  it(
    "walks through adds, a merge, scanner refusals, a cap refusal, an eviction, the prompt block, " +
      "episodes and the journal",
    () => {
      const r = spawnSync(process.execPath, [BIN, "demo"], { encoding: "utf8" })
      expect(r.status, r.stderr).toBe(0)
      const out = r.stdout
      for (const line of [
        "✓ added to user: Prefers dark mode in all editors",
        "✓ merged into user: Prefers dark mode in all editors and terminals",
        "event  🧠 ⇄ memory[user] merged: Prefers dark mode in all editors and terminals",
        "✓ already in user: Writes commit messages in English, imperative mood",
        "✗ refused: memory: content contains ignore previous instructions",
        "✗ refused: memory: content contains potential credential material",
        "✗ refused: memory: fact looks unsafe (remote fetch piped to shell)",
        "✗ refused: memory: adding entry (79 chars) would exceed cap (330 chars); current: 278, max: 330.",
        "Free space by removing or replacing older entries (memory remove/replace), then retry",
        '✓ removed from env matching "Argo CD"',
        "⚠ env fact file 90% full — evict stale entries via memory remove before your next add.",
        "v5 facts/env  🧠 − memory[env] removed: Argo CD",
        "session demo-lexer: episode stored (extractive), trusted",
        "session demo-proxy: episode stored (extractive), pending review — untrusted: browser",
        "event  🔒 episode pending_review: demo-proxy",
        "event  💾 ✓ episode promoted: demo-proxy",
        // only what answers the question: the lexer session is about something else
        'recall "the staging proxy times out again" → demo-proxy\n',
        'recall "emoji input crashes the tokenizer" → demo-lexer',
        "v4 episodes   🔒 episode pending_review: demo-proxy"
      ])
        expect(out).toContain(line)
      // before the promotion the pending episode is never recalled
      expect(out).toMatch(/recall "the staging proxy times out again" → nothing\n.*episodes promote demo-proxy/)
    }
  )

  it("--json gives one machine-readable document", () => {
    const r = spawnSync(process.execPath, [BIN, "--json", "demo"], { encoding: "utf8" })
    expect(r.status).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(doc.ok).toBe(true)
    expect(doc.result.steps.length).toBe(18)
    expect(doc.result.steps[2].result.message).toBe("merged into user: Prefers dark mode in all editors and terminals")
    expect(doc.result.steps[2].events[0].type).toBe("fact_merged")
  })
})
