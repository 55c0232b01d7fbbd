import type { StreamCodec } from "../kernel/Stream.js"
import { scanContent } from "../scan/index.js"
import { parseEntries, renderEntries } from "./codec.js"
import { DEFAULT_FACT_POLICY, evolveFact, handEditProblem, initialFactFile } from "./decider.js"
import {
  FactEvent,
  FactsEditedExternally,
  FactsEditRejected,
  type FactFileState,
  FactsImported,
  type Target
} from "./schema.js"

/** Stream name of a fact file. */
export const factStream = (target: Target): string => `facts/${target}`

// Room for the blanks around the entries that a re-read trims (an editor's final newline and more).
const WHITESPACE_SLACK = 64 * 1024

const make = (target: Target, cap: number): StreamCodec<FactFileState, FactEvent> => ({
  initialState: initialFactFile,
  evolve: evolveFact,
  events: FactEvent,
  text: {
    render: (s) => renderEntries(s.entries),
    parse: (text) => ({ entries: parseEntries(text) }),
    imported: (text, at) => [FactsImported.make({ target, entries: parseEntries(text), at })],
    editedExternally: (text, state, at, note) => {
      const entries = parseEntries(text)
      const findings = [...new Set(entries.flatMap((e) => scanContent(e).map((f) => f.label)))]
      return [
        FactsEditedExternally.make({
          target,
          entries,
          previous: state.entries,
          findings,
          ...(note !== undefined ? { note } : {}),
          at
        })
      ]
    },
    // A hand edit obeys the rules of any write (DESIGN §7): what breaks them never reaches the prompt.
    problem: (text) => handEditProblem(parseEntries(text), cap),
    maxBytes: cap + WHITESPACE_SLACK,
    rejected: (reason, keptAs, bytes, at) => [FactsEditRejected.make({ target, reason, keptAs, bytes, at })]
  }
})

const codecs = new Map<string, StreamCodec<FactFileState, FactEvent>>()

/**
 * How stores keep a fact file: fold, event schema and the odek text projection. `cap` (the configured one) is the
 * limit a hand edit must respect; reading the journal does not depend on it. One codec per (target, cap).
 */
export const factCodec = (
  target: Target,
  cap: number = DEFAULT_FACT_POLICY.caps[target]
): StreamCodec<FactFileState, FactEvent> => {
  const key = `${target}:${cap}`
  let codec = codecs.get(key)
  if (codec === undefined) {
    codec = make(target, cap)
    codecs.set(key, codec)
  }
  return codec
}
