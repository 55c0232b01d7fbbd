import { FastCheck as fc, Schema } from "effect"
import { describe, expect, it } from "vitest"
import type { ChatMessage } from "../../../src/domain/sessions/message.js"
import {
  deriveSessionProvenance,
  EpisodeProvenance,
  episodeTaintSources,
  labelTaintsEpisode,
  stickyEpisodeUntrusted,
  untrustedIngested,
  wrapperLabels
} from "../../../src/domain/sessions/provenance.js"
import { TAINTING_CALLS, TAINTING_LABELS, TRUSTED_CALLS, TRUSTED_LABELS, wrap, zone } from "./fixtures.js"

/** A message with the oracle's verdict: does it, on its own, make the episode untrusted? */
interface Judged {
  readonly message: ChatMessage
  readonly taints: boolean
}

const judgedCall = (taintWeight: number) =>
  fc.oneof(
    { weight: taintWeight, arbitrary: fc.constantFrom(...TAINTING_CALLS).map((c) => ({ call: c, taints: true })) },
    { weight: 100 - taintWeight, arbitrary: fc.constantFrom(...TRUSTED_CALLS).map((c) => ({ call: c, taints: false })) }
  )

const judgedLabel = (taintWeight: number) =>
  fc.oneof(
    { weight: taintWeight, arbitrary: fc.constantFrom(...TAINTING_LABELS).map((label) => ({ label, taints: true })) },
    {
      weight: 100 - taintWeight,
      arbitrary: fc.constantFrom(...TRUSTED_LABELS).map((label) => ({ label, taints: false }))
    }
  )

const prose = fc.constantFrom("", "fix the lexer", "see <untrusted_content_ in the docs", "done.", "ok ")

/** Messages of every role; `taintWeight` percent of calls and labels taint. */
const judgedMessage = (taintWeight: number): fc.Arbitrary<Judged> =>
  fc.oneof(
    fc
      .record({ calls: fc.array(judgedCall(taintWeight), { minLength: 1, maxLength: 3 }), text: prose })
      .map(({ calls, text }) => ({
        message: { role: "assistant" as const, content: text, toolCalls: calls.map((c) => c.call) },
        taints: calls.some((c) => c.taints)
      })),
    fc
      .record({
        role: fc.constantFrom("user" as const, "system" as const, "assistant" as const),
        labels: fc.array(judgedLabel(taintWeight), { maxLength: 2 }),
        text: prose
      })
      .map(({ role, labels, text }) => ({
        message: { role, content: text + labels.map((l) => wrap(l.label)).join(text) },
        taints: labels.some((l) => l.taints)
      })),
    // tool output is judged by its call, so even tainting labels here never count
    fc.array(fc.constantFrom(...TAINTING_LABELS, ...TRUSTED_LABELS), { maxLength: 2 }).map((labels) => ({
      message: { role: "tool" as const, content: labels.map((l) => wrap(l)).join(""), toolName: "read_file" },
      taints: false
    }))
  )

const firstOccurrenceUnion = (parts: ReadonlyArray<ReadonlyArray<string>>): ReadonlyArray<string> => [
  ...new Set(parts.flat())
]

describe("provenance properties", () => {
  it(
    "(1) union law: " + "the sources of a concatenation are the first-occurrence union of the parts' sources (§5.5.1)",
    () => {
      let ordered = 0
      fc.assert(
        fc.property(
          fc.array(judgedMessage(30), { minLength: 2, maxLength: 30 }),
          fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
          (judged, rawCuts) => {
            const messages = judged.map((j) => j.message)
            const cuts = [...new Set(rawCuts.map((c) => c % (messages.length + 1)))].sort((a, b) => a - b)
            const bounds = [0, ...cuts, messages.length]
            const parts = bounds.slice(1).map((end, k) => messages.slice(bounds[k], end))
            const partSources = parts.map((p) => episodeTaintSources(p, zone))
            const whole = episodeTaintSources(messages, zone)
            expect(whole).toEqual(firstOccurrenceUnion(partSources))
            // and the oracle agrees on whether there is any source at all
            expect(whole.length > 0).toBe(judged.some((j) => j.taints))
            if (partSources.filter((s) => s.length > 0).length >= 2) ordered++
          }
        ),
        { numRuns: 1000 }
      )
      // the law is only interesting when several parts contribute sources
      expect(ordered).toBeGreaterThan(300)
    }
  )

  it(
    "(2) stickiness: " + "once a tainting message was in a saved list the flag stays true and the provenance untrusted",
    () => {
      const save = fc.record({
        grow: fc.nat(6),
        dropPrefix: fc.nat(12),
        keep: fc.array(fc.boolean(), { minLength: 24, maxLength: 24 })
      })
      let tainted = 0
      let untainted = 0
      let trimmedOnly = 0
      fc.assert(
        fc.property(
          fc.array(judgedMessage(25), { minLength: 4, maxLength: 24 }),
          fc.array(save, { minLength: 1, maxLength: 8 }),
          (history, saves) => {
            let flag = false
            let seen = false
            let length = 0
            for (const s of saves) {
              length = Math.min(history.length, length + s.grow)
              // an arbitrary trimming or compaction of the history so far: a dropped prefix and any subset, in order
              const saved = history.slice(0, length).filter((_, i) => i >= s.dropPrefix && s.keep[i] === true)
              flag = stickyEpisodeUntrusted(
                flag,
                saved.map((j) => j.message),
                zone
              )
              seen ||= saved.some((j) => j.taints)
              expect(flag).toBe(seen)
              const p = deriveSessionProvenance({ messages: saved.map((j) => j.message), episodeUntrusted: flag }, zone)
              expect(p.untrusted === true).toBe(seen)
              if (seen && !saved.some((j) => j.taints)) {
                expect(p.sources).toEqual(["trimmed_history"])
                trimmedOnly++
              }
            }
            if (seen) tainted++
            else untainted++
          }
        ),
        { numRuns: 1000 }
      )
      expect(tainted).toBeGreaterThan(300)
      expect(untainted).toBeGreaterThan(300)
      expect(trimmedOnly).toBeGreaterThan(200)
    }
  )

  it(
    "every wrapper label that taints the episode also sets the delegation taint " +
      "(§5.9: the episode taint is narrower)",
    () => {
      fc.assert(
        fc.property(fc.array(judgedMessage(30), { maxLength: 12 }), (judged) => {
          const messages = judged.map((j) => j.message)
          const labelTaint = messages.some(
            (m) => m.role !== "tool" && wrapperLabels(m.content).some(labelTaintsEpisode)
          )
          if (labelTaint) expect(untrustedIngested(messages)).toBe(true)
        }),
        { numRuns: 1000 }
      )
    }
  )

  it("wrapperLabels finds exactly the labels written, in order, in arbitrary prose", () => {
    const label = fc.string({ maxLength: 12 }).filter((s) => !s.includes('">') && !s.endsWith('"'))
    const text = fc.string({ maxLength: 12 }).filter((s) => !s.includes("<untrusted_content_"))
    const nonce = fc.stringMatching(/^[0-9a-f]{1,16}$/)
    fc.assert(
      fc.property(fc.array(fc.tuple(text, nonce, label), { maxLength: 6 }), text, (pieces, tail) => {
        const content = pieces.map(([t, n, l]) => `${t}<untrusted_content_${n} source="${l}">`).join("") + tail
        // prose may itself complete a `">` or a prefix with a neighbour; keep only unambiguous layouts
        fc.pre(!content.replace(/<untrusted_content_[0-9a-f]+ source="[^"]*">/g, "").includes("<untrusted_content_"))
        expect(wrapperLabels(content)).toEqual(pieces.map(([, , l]) => l))
      }),
      { numRuns: 1000 }
    )
  })

  it("EpisodeProvenance: JSON round-trips, and the encoding never carries false or empty fields", () => {
    const Json = Schema.parseJson(EpisodeProvenance)
    const canonical = fc.record(
      {
        untrusted: fc.constant(true as const),
        sources: fc.array(fc.constantFrom("read_file", "web_search", "trimmed_history", "attachment:x"), {
          minLength: 1,
          maxLength: 3
        }),
        user_approved: fc.constant(true as const),
        auto_approved: fc.constant(true as const)
      },
      { requiredKeys: [] }
    )
    const loose = fc.record(
      {
        untrusted: fc.boolean(),
        sources: fc.array(fc.string(), { maxLength: 2 }),
        user_approved: fc.boolean(),
        auto_approved: fc.boolean()
      },
      { requiredKeys: [] }
    )
    fc.assert(
      fc.property(canonical, loose, (json, value) => {
        const text = JSON.stringify(json)
        expect(Schema.encodeSync(Json)(Schema.decodeSync(Json)(text))).toBe(text)
        const encoded = Schema.encodeSync(EpisodeProvenance)(value)
        for (const v of Object.values(encoded)) expect(v === false || (Array.isArray(v) && v.length === 0)).toBe(false)
        expect(Schema.encodeSync(EpisodeProvenance)(Schema.decodeSync(EpisodeProvenance)(encoded))).toEqual(encoded)
      }),
      { numRuns: 1000 }
    )
  })
})
