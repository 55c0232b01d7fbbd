import { describe, it } from "vitest"
import {
  BufferLineAppended,
  decideSession,
  evolveSession,
  HistoryTrimmed,
  initialSession,
  MessageRecorded,
  SessionEnded,
  TaintObserved
} from "../../../src/domain/sessions/session.js"
import { specOf } from "../../support/deciderSpec.js"

const at = "2026-12-01T00:00:00.000Z"
const { given } = specOf({ initialState: initialSession, decide: decideSession, evolve: evolveSession })
const user = { role: "user" as const, content: "fix the parser" }
const reply = { role: "assistant" as const, content: "fixed" }
const record = (
  message: typeof user | typeof reply,
  over: { taintSources?: ReadonlyArray<string>; bufferLine?: string } = {}
) =>
  ({
    _tag: "RecordMessage",
    message,
    taintSources: over.taintSources ?? [],
    bufferCapacity: 4,
    at,
    ...(over.bufferLine === undefined ? {} : { bufferLine: over.bufferLine })
  }) as const

describe("session decider, given / when / then", () => {
  it("RecordMessage records the message, its new taint once, and its buffer line", () => {
    given()
      .when(record(user))
      .thenEvents(MessageRecorded.make({ message: user, at }))
    given()
      .when(record(user, { taintSources: ["web_search", "web_search"], bufferLine: "user: fix the parser" }))
      .thenEvents(
        MessageRecorded.make({ message: user, at }),
        TaintObserved.make({ sources: ["web_search"], at }),
        BufferLineAppended.make({ line: "user: fix the parser", capacity: 4, at })
      )
    // taint is sticky and seen once: a source already observed is not observed again
    given(MessageRecorded.make({ message: user, at }), TaintObserved.make({ sources: ["web_search"], at }))
      .when(record(reply, { taintSources: ["web_search"] }))
      .thenEvents(MessageRecorded.make({ message: reply, at }))
  })

  it("TrimHistory drops at most what there is, and nothing is no event", () => {
    const history = [MessageRecorded.make({ message: user, at }), MessageRecorded.make({ message: reply, at })]
    given(...history)
      .when({ _tag: "TrimHistory", dropOldest: 5, at })
      .thenEvents(HistoryTrimmed.make({ dropped: 2, at }))
    given(...history)
      .when({ _tag: "TrimHistory", dropOldest: 0, at })
      .thenNothing()
  })

  it("EndSession counts the user turns; an ended session takes nothing more", () => {
    given(MessageRecorded.make({ message: user, at }), MessageRecorded.make({ message: reply, at }))
      .when({ _tag: "EndSession", at })
      .thenEvents(SessionEnded.make({ turns: 1, at }))
    given(SessionEnded.make({ turns: 0, at }))
      .when(record(user))
      .thenRefused("SessionAlreadyEnded", "memory: this session has ended; start a new one")
    given(SessionEnded.make({ turns: 0, at }))
      .when({ _tag: "EndSession", at })
      .thenRefused("SessionAlreadyEnded")
  })
})
