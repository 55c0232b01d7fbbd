import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { type Episode, newestFirst } from "../../../src/domain/episodes/store.js"
import { renderIndex } from "../../../src/domain/episodes/stream.js"
import { indexPreview, PREVIEW_CAP_BYTES } from "../../../src/domain/episodes/summary.js"
import { truncateBytes, utf8Bytes } from "../../../src/domain/text/utf8.js"

// what the preview and index.json were before each was made incremental: the references they must equal byte for byte
const previewReference = (text: string) => {
  const s = text.replace(/\p{Surrogate}/gu, "\uFFFD")
  return utf8Bytes(s) <= PREVIEW_CAP_BYTES ? s : `${truncateBytes(s, PREVIEW_CAP_BYTES - 3)}...`
}
const provenanceReference = (p: Episode["provenance"]) => ({
  ...(p.untrusted === true ? { untrusted: true } : {}),
  ...(p.sources !== undefined && p.sources.length > 0 ? { sources: [...p.sources] } : {}),
  ...(p.user_approved === true ? { user_approved: true } : {}),
  ...(p.auto_approved === true ? { auto_approved: true } : {})
})

// lone surrogates, pairs cut at the preview's edge, three-byte characters and newlines in the text
const text = fc.oneof(
  fc.string({ unit: "binary", maxLength: 300 }),
  fc.string({ unit: "grapheme", maxLength: 200 }),
  fc
    .tuple(
      fc.string({ unit: "grapheme-ascii", minLength: 110, maxLength: 125 }),
      fc.constantFrom("😀", "é", "語", "\uD83D", "\n")
    )
    .map(([a, b]) => `${a}${b}${a}`)
)
const episode = fc.record({
  sessionId: fc.stringMatching(/^2026[01][0-9][0-3][0-9]-[0-9a-f]{8}$/),
  turns: fc.nat(50),
  createdAt: fc
    .date({ min: new Date("2025-01-01"), max: new Date("2027-01-01"), noInvalidDate: true })
    .map((d) => d.toISOString()),
  summary: text,
  provenance: fc.record(
    {
      untrusted: fc.boolean(),
      sources: fc.array(fc.constantFrom("browser", "web_search", "mcp"), { maxLength: 2 }),
      user_approved: fc.boolean(),
      auto_approved: fc.boolean()
    },
    { requiredKeys: [] }
  ),
  source: fc.constantFrom("llm" as const, "extractive" as const)
})

describe("index.json and its previews, rendered incrementally", () => {
  it("the preview reads only the head of a summary and equals the whole-text cut", () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(indexPreview(t)).toBe(previewReference(t))
      }),
      { numRuns: 1000 }
    )
  })

  it("index.json equals odek's whole rendering byte for byte, however often the same episodes are rendered", () => {
    fc.assert(
      fc.property(fc.array(episode, { maxLength: 12 }), fc.nat(), (episodes, k) => {
        const reference = (list: ReadonlyArray<Episode>) =>
          JSON.stringify(
            newestFirst(list).map((e) => ({
              session_id: e.sessionId,
              turns: e.turns,
              created_at: e.createdAt,
              summary: previewReference(e.summary),
              provenance: provenanceReference(e.provenance),
              ...(e.source === "extractive" ? { extractive: true } : {})
            })),
            null,
            2
          )
        const state = { episodes }
        // the same episode objects again, in a later state with one fewer: entries remembered from the first rendering
        const later = { episodes: episodes.filter((_, i) => i !== k % Math.max(episodes.length, 1)) }
        expect(renderIndex(state)).toBe(reference(state.episodes))
        expect(renderIndex(later)).toBe(reference(later.episodes))
      }),
      { numRuns: 300 }
    )
  })
})
