import type { StreamCodec } from "../kernel/Stream.js"
import { scanContent } from "../scan/index.js"
import { parseEntries, renderEntries } from "./codec.js"
import { evolveFact, initialFactFile } from "./decider.js"
import { FactEvent, type FactFileState, FactsEditedExternally, FactsImported, type Target } from "./schema.js"

/** Stream name of a fact file. */
export const factStream = (target: Target): string => `facts/${target}`

const make = (target: Target): StreamCodec<FactFileState, FactEvent> => ({
  initialState: initialFactFile,
  evolve: evolveFact,
  events: FactEvent,
  text: {
    render: (s) => renderEntries(s.entries),
    parse: (text) => ({ entries: parseEntries(text) }),
    imported: (text, at) => [FactsImported.make({ target, entries: parseEntries(text), at })],
    // A person's edit is kept as written; what the scanner thinks of it is recorded, and the prompt block warns.
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
    }
  }
})

const codecs = { user: make("user"), env: make("env") } as const

/** How stores keep a fact file: fold, event schema and the odek text projection. */
export const factCodec = (target: Target): StreamCodec<FactFileState, FactEvent> => codecs[target]
