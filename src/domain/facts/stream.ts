import type { StreamCodec, TextProjection } from "../kernel/Stream.js"
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

const codecs = new Map<Target, StreamCodec<FactFileState, FactEvent>>()

/** How stores keep a fact file's stream: fold and event schema. */
export const factCodec = (target: Target): StreamCodec<FactFileState, FactEvent> => {
  let codec = codecs.get(target)
  if (codec === undefined) {
    codec = { initialState: initialFactFile, evolve: evolveFact, events: FactEvent }
    codecs.set(target, codec)
  }
  return codec
}

/**
 * The odek text projection of a fact file (`user.md`, `env.md`): entries joined by `\n§\n`, a file a person may
 * edit. `cap` (the configured one) is the limit a hand edit must respect.
 */
export const factProjection = (
  target: Target,
  cap: number = DEFAULT_FACT_POLICY.caps[target]
): TextProjection<FactFileState, FactEvent> => ({
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
  // What odek or an older tmem wrote is taken in whole; the scanner then blocks what it refuses on every read
  // (app/facts.ts screenFacts) instead of one entry costing a person the whole file.
  importProblem: (text) => handEditProblem(parseEntries(text), cap, false),
  maxBytes: cap + WHITESPACE_SLACK,
  rejected: (reason, keptAs, bytes, at) => [FactsEditRejected.make({ target, reason, keptAs, bytes, at })]
})
