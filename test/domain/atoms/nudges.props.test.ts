import { Either, FastCheck as fc, Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  decideNudges,
  DeliverNudges,
  evolveNudges,
  foldNudges,
  initialNudgeLedger,
  NUDGE_KINDS,
  type Nudge,
  type NudgeConfig,
  nudgeCodec,
  type NudgeEvent,
  type NudgeLedger,
  parseNudges,
  planDelivery,
  remainingToday,
  utcDay
} from "../../../src/domain/atoms/nudges.js"
import { trimSpace, utf8Bytes } from "../../../src/domain/text/utf8.js"

const HOUR = 3_600_000
const START = Date.parse("2026-03-01T18:00:00.000Z")

// Few kinds and up to eight candidates per call, so kinds repeat within a call and across calls; caps of 1 to 3 a day.
const kind = fc.constantFrom(...NUDGE_KINDS)
const candidate: fc.Arbitrary<Nudge> = fc.record({
  text: fc.constantFrom("Pick the DB?", "Ship v2?", "Back to tmem?", "é".repeat(10)),
  kind,
  source_atom_ids: fc.array(fc.constantFrom("g1", "q1", "i1"), { maxLength: 2 })
})
const configArb: fc.Arbitrary<NudgeConfig> = fc.record({
  maxPerDay: fc.integer({ min: 1, max: 3 }),
  // from a few hours to past a day, so cooldowns both end within a day and reach into the next one
  cooldownHours: fc.integer({ min: 1, max: 36 }),
  staleGoalDays: fc.constant(7),
  openQuestionMinAgeHours: fc.constant(24)
})
// Non-decreasing clocks: repeated instants, minutes and hours apart, and jumps across one or more UTC midnights.
const step = fc.oneof(
  { weight: 2, arbitrary: fc.constant(0) },
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 3 * HOUR }) },
  { weight: 3, arbitrary: fc.integer({ min: 3 * HOUR, max: 20 * HOUR }) },
  { weight: 1, arbitrary: fc.integer({ min: 20 * HOUR, max: 50 * HOUR }) }
)
const call = fc.record({ step, candidates: fc.array(candidate, { minLength: 0, maxLength: 8 }) })
const calls = fc.array(call, { minLength: 10, maxLength: 40 })

interface Run {
  readonly ledger: NudgeLedger
  readonly events: ReadonlyArray<NudgeEvent>
  readonly deliveries: ReadonlyArray<{ readonly at: string; readonly kind: Nudge["kind"] }>
}

/** Every call decided against the ledger so far and folded step by step. */
const run = (
  config: NudgeConfig,
  steps: ReadonlyArray<{ readonly step: number; readonly candidates: ReadonlyArray<Nudge> }>,
  each?: (ledger: NudgeLedger, candidates: ReadonlyArray<Nudge>, at: string) => void
): Run => {
  let ledger = initialNudgeLedger
  let t = START
  const events: Array<NudgeEvent> = []
  const deliveries: Array<{ at: string; kind: Nudge["kind"] }> = []
  for (const s of steps) {
    t += s.step
    const at = new Date(t).toISOString()
    each?.(ledger, s.candidates, at)
    const decided = Either.getOrThrow(
      decideNudges(config)(DeliverNudges.make({ candidates: s.candidates, at }), ledger)
    )
    for (const e of decided) {
      events.push(e)
      for (const n of e.nudges) deliveries.push({ at: e.at, kind: n.kind })
      ledger = evolveNudges(ledger, e)
    }
  }
  return { ledger, events, deliveries }
}

describe("nudge ledger properties (§15.5)", () => {
  it("nudges delivered within any one UTC day never exceed maxPerDay", () => {
    let daysAtCap = 0
    let daysCrossed = 0
    fc.assert(
      fc.property(configArb, calls, (config, steps) => {
        const perDay = new Map<string, number>()
        for (const d of run(config, steps).deliveries) {
          const day = utcDay(d.at)!
          perDay.set(day, (perDay.get(day) ?? 0) + 1)
        }
        for (const n of perDay.values()) {
          expect(n).toBeLessThanOrEqual(config.maxPerDay)
          if (n === config.maxPerDay) daysAtCap++
        }
        if (perDay.size > 1) daysCrossed++
      }),
      { numRuns: 300 }
    )
    // the generator reaches the cap and crosses midnights, or the property would pass vacuously
    expect(daysAtCap).toBeGreaterThan(600)
    expect(daysCrossed).toBeGreaterThan(200)
  })

  it("no kind is delivered twice within cooldownHours", () => {
    let skippedForCooldown = 0
    fc.assert(
      fc.property(configArb, calls, (config, steps) => {
        const { deliveries } = run(config, steps, (ledger, candidates, at) => {
          const cooling = (k: Nudge["kind"]) => {
            const last = ledger.last_fired_by_kind[k]
            return last !== undefined && Date.parse(at) - Date.parse(last) < config.cooldownHours * HOUR
          }
          if (remainingToday(ledger, at, config.maxPerDay) > 0 && candidates.some((c) => cooling(c.kind)))
            skippedForCooldown++
        })
        const lastAt = new Map<string, number>()
        for (const d of deliveries) {
          const t = Date.parse(d.at)
          const prev = lastAt.get(d.kind)
          if (prev !== undefined) expect(t - prev).toBeGreaterThanOrEqual(config.cooldownHours * HOUR)
          lastAt.set(d.kind, t)
        }
      }),
      { numRuns: 300 }
    )
    // with room left in the day, candidates keep meeting a kind that is cooling down: only the cooldown holds it back
    expect(skippedForCooldown).toBeGreaterThan(300)
  })

  it("replaying the events gives the step-by-step ledger, in one pass or in two", () => {
    fc.assert(
      fc.property(configArb, calls, fc.nat(), (config, steps, cut) => {
        const { ledger, events } = run(config, steps)
        expect(events.reduce(evolveNudges, initialNudgeLedger)).toStrictEqual(ledger)
        const k = events.length === 0 ? 0 : cut % events.length
        expect(foldNudges(foldNudges(initialNudgeLedger, events.slice(0, k)), events.slice(k))).toStrictEqual(ledger)
      }),
      { numRuns: 200 }
    )
  })

  it("events and reachable ledgers survive their schemas through JSON", () => {
    const batch = Schema.Array(nudgeCodec.events)
    const snapshot = nudgeCodec.snapshot!
    fc.assert(
      fc.property(configArb, calls, (config, steps) => {
        const { ledger, events } = run(config, steps)
        const json = JSON.parse(JSON.stringify(Schema.encodeSync(batch)(events)))
        expect(Schema.decodeUnknownSync(batch)(json)).toStrictEqual(events)
        const state = JSON.parse(JSON.stringify(Schema.encodeSync(snapshot)(ledger)))
        expect(Schema.decodeUnknownSync(snapshot)(state)).toStrictEqual(ledger)
      }),
      { numRuns: 200 }
    )
  })

  it("planDelivery returns an in-order selection of its candidates, no more than the day has left", () => {
    let atRemaining = 0
    fc.assert(
      fc.property(configArb, calls, (config, steps) => {
        run(config, steps, (ledger, candidates, at) => {
          const planned = planDelivery(ledger, candidates, at, config)
          const left = remainingToday(ledger, at, config.maxPerDay)
          expect(planned.length).toBeLessThanOrEqual(Math.min(left, candidates.length))
          expect(left).toBeLessThanOrEqual(config.maxPerDay)
          // a subsequence of the input, by identity
          let i = 0
          for (const p of planned) {
            while (i < candidates.length && candidates[i] !== p) i++
            expect(i).toBeLessThan(candidates.length)
            i++
          }
          expect(new Set(planned.map((p) => p.kind)).size).toBe(planned.length)
          if (planned.length > 0 && planned.length === left) atRemaining++
        })
      }),
      { numRuns: 200 }
    )
    expect(atRemaining).toBeGreaterThan(400)
  })
})

describe("parsing properties (§15.4)", () => {
  const entry = fc.oneof(
    fc.record(
      {
        text: fc.oneof(fc.string({ maxLength: 400 }), fc.string({ unit: "binary", maxLength: 200 })),
        kind: fc.oneof(kind, fc.string({ maxLength: 12 })),
        source_atom_ids: fc.oneof(fc.array(fc.string({ maxLength: 8 })), fc.jsonValue())
      },
      { requiredKeys: [] }
    ),
    fc.jsonValue()
  )
  const reply = fc.oneof(
    fc.array(entry, { minLength: 1, maxLength: 8 }).map((es) => JSON.stringify(es)),
    fc.array(entry, { maxLength: 8 }).map((es) => `Sure!\n\`\`\`json\n${JSON.stringify(es)}\n\`\`\``),
    fc.string({ maxLength: 200 })
  )

  it("never throws, and keeps at most maxN nudges of known kinds with 1 to 300 bytes of text", () => {
    let capped = 0
    fc.assert(
      fc.property(reply, fc.integer({ min: -1, max: 4 }), (text, maxN) => {
        const nudges = parseNudges(text, maxN)
        expect(nudges.length).toBeLessThanOrEqual(Math.max(0, maxN))
        for (const n of nudges) {
          expect(NUDGE_KINDS).toContain(n.kind)
          expect(trimSpace(n.text)).not.toBe("")
          expect(utf8Bytes(n.text)).toBeLessThanOrEqual(300)
        }
        if (maxN > 0 && nudges.length === maxN) capped++
      }),
      { numRuns: 500 }
    )
    expect(capped).toBeGreaterThan(20)
  })
})
