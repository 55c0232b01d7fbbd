import { Args, Command } from "@effect/cli"
import type { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import {
  atomIndexStatus,
  atomPolicy,
  compactAtoms,
  consolidateAtoms,
  expireQuarantine,
  forgetAtom,
  listQuarantine,
  loadAtoms,
  pinAtom,
  promoteAtom
} from "../../app/atoms.js"
import { previewNudges } from "../../app/nudges.js"
import { Settings } from "../../app/Settings.js"
import {
  confirmPendingReview,
  expirePendingReviews,
  listPendingReviews,
  rejectPendingReview
} from "../../app/userModel.js"
import { renderNudgePreview } from "../../domain/atoms/nudges.js"
import { PendingNotFound } from "../../domain/atoms/userModel.js"
import { truncate, validAtomId } from "../../domain/atoms/atom.js"
import { type QuarantinedAtom, storeBytes } from "../../domain/atoms/store.js"
import { goFixed2, invalidIdMessage } from "../../domain/atoms/toolMessages.js"
import type { ExtendedConfig } from "../../domain/config/MemoryConfig.js"
import { printable } from "../../domain/text/printable.js"
import { goQuote, plural } from "../../domain/text/utf8.js"
import type { Globals, LiveServices } from "./globals.js"
import { type Output, refuse, report } from "./output.js"
import { tmem } from "./root.js"
import { terminalIo, triageWalk } from "./triage.js"

/**
 * `tmem atoms <sub>`: a person's view of Extended Memory (spec extended §18). It works on a disabled store too, so
 * that someone can inspect and fix it: the resolved config, with `memory.extended.enabled` forced on (§18.5).
 */
const atomsReport = <E extends { readonly message: string }>(
  g: Globals,
  program: (configured: ExtendedConfig) => Effect.Effect<Output, E, LiveServices | FileSystem.FileSystem>
) =>
  report(
    g,
    Effect.flatMap(Settings, (config) =>
      program(config.extended).pipe(
        Effect.provideService(Settings, { ...config, extended: { ...config.extended, enabled: true } })
      )
    )
  )

/** An atom id from the command line, refused before the store is touched when it could not name an atom. */
const checkedId = (param: "atom_id" | "pending_id", id: string) =>
  validAtomId(id) ? Effect.succeed(id) : Effect.fail({ message: invalidIdMessage(param, id) })

const atomIdArg = Args.text({ name: "atom_id" })
const pendingIdArg = Args.text({ name: "pending_id" })

const MIB = 1024 * 1024
const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`

/** A quarantine reason's kind: `scan_rejected: …` → `scan_rejected`; an entry older than reasons → `unknown`. */
const reasonKind = (reason: string): string => {
  const colon = reason.indexOf(":")
  const kind = (colon < 0 ? reason : reason.slice(0, colon)).trim()
  return kind === "" ? "unknown" : kind
}

const reasonCounts = (quarantine: ReadonlyArray<QuarantinedAtom>): Record<string, number> => {
  const counts: Record<string, number> = {}
  for (const q of quarantine) counts[reasonKind(q.reason)] = (counts[reasonKind(q.reason)] ?? 0) + 1
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

const stats = Command.make("stats", {}, () =>
  Effect.flatMap(tmem, (g) =>
    atomsReport(g, (configured) =>
      Effect.gen(function* () {
        // what is past its TTL is gone for every reader (§5.5), so it is not counted here either
        yield* expireQuarantine()
        const { state } = yield* loadAtoms()
        const reasons = reasonCounts(state.quarantine)
        const bytes = storeBytes(state)
        const cap = atomPolicy(configured).maxBytes
        // the persisted index, never built here (§16.2): a CLI process should not pay for an embedding pass
        const index = yield* atomIndexStatus()
        const indexState = index.current ? "current" : index.saved ? "stale" : "none"
        const row = (label: string, value: string | number) => `  ${`${label}:`.padEnd(18)} ${value}`
        const lines = [
          "Extended Memory stats:",
          row("live atoms", state.live.length),
          row("quarantined atoms", state.quarantine.length),
          ...Object.entries(reasons).map(([kind, n]) => `    ${`${printable(kind)}:`.padEnd(16)} ${n}`),
          row("index vectors", `${index.vectors} (${indexState})`),
          row("store size", `${mib(bytes)} (cap ${configured.maxSizeMb} MiB)`),
          ...(configured.enabled
            ? []
            : [row("enabled", "no (memory.extended.enabled is false: sessions neither store nor recall atoms)")])
        ]
        return {
          text: lines.join("\n"),
          json: {
            enabled: configured.enabled,
            live: state.live.length,
            quarantined: state.quarantine.length,
            reasons,
            index: { vectors: index.vectors, state: indexState },
            store_bytes: bytes,
            cap_bytes: cap
          }
        }
      })
    )
  )
).pipe(
  Command.withDescription(
    "live and quarantined atoms (quarantine by reason), the vector index, the store's size against its cap"
  )
)

const quarantine = Command.make("quarantine", {}, () =>
  Effect.flatMap(tmem, (g) =>
    atomsReport(g, () =>
      Effect.map(listQuarantine(), (entries) => ({
        text:
          entries.length === 0
            ? "No atoms in quarantine."
            : [
                `${entries.length} atom(s) in quarantine (excluded from recall):`,
                "",
                ...entries.flatMap((q) => [
                  `• ${q.atom.id} [${printable(q.atom.source_class)}] ${printable(truncate(q.atom.text, 120))}`,
                  ...(q.reason === "" ? [] : [`  reason: ${printable(truncate(q.reason, 120))}`])
                ]),
                "",
                "Review and restore with: tmem atoms promote <atom_id>"
              ].join("\n"),
        json: entries.map((q) => ({
          id: q.atom.id,
          source_class: q.atom.source_class,
          type: q.atom.type,
          text: q.atom.text,
          reason: q.reason,
          quarantined_at: q.quarantined_at
        }))
      }))
    )
  )
).pipe(Command.withDescription("the atoms held out of recall (newest first), with why"))

/** A command that acts on one atom by id: the id checked first, then the act, then its one line. */
const onAtom = <E extends { readonly message: string }>(
  name: string,
  act: (id: string) => Effect.Effect<void, E, LiveServices>,
  said: (quoted: string) => string,
  done: "promoted" | "forgotten" | "pinned",
  description: string
) =>
  Command.make(name, { id: atomIdArg }, ({ id }) =>
    Effect.flatMap(tmem, (g) =>
      atomsReport(g, () =>
        Effect.flatMap(checkedId("atom_id", id), (checked) =>
          Effect.as(act(checked), { text: said(goQuote(checked)), json: { atom_id: checked, [done]: true } })
        )
      )
    )
  ).pipe(Command.withDescription(description))

const promote = onAtom(
  "promote",
  promoteAtom,
  (id) => `promoted atom ${id} — it can now be recalled into future sessions`,
  "promoted",
  "release a quarantined atom after review: stored as user_approved (a person's act; agents cannot do this)"
)

const forget = onAtom(
  "forget",
  forgetAtom,
  (id) => `forgot atom ${id}`,
  "forgotten",
  "remove an atom from the live store or the quarantine (the journal keeps the record)"
)

const pin = onAtom("pin", pinAtom, (id) => `pinned atom ${id}`, "pinned", "keep a live atom through every eviction")

const prune = Command.make("prune", {}, () =>
  Effect.flatMap(tmem, (g) =>
    atomsReport(g, () =>
      Effect.map(Effect.all([expireQuarantine(), expirePendingReviews()]), ([q, p]) => ({
        text:
          `pruned ${plural(q, "expired quarantine entry", "expired quarantine entries")} and ` +
          `${plural(p, "expired pending review", "expired pending reviews")}`,
        json: { quarantine_expired: q, pending_expired: p }
      }))
    )
  )
).pipe(
  Command.withDescription(
    "run the expiry passes now: quarantine entries past quarantine_ttl_days, pending user-model reviews past " +
      "user_state_pending_max_age_days"
  )
)

const NO_TERMINAL =
  "tmem: atoms triage needs a terminal on stdin; use tmem atoms quarantine, promote and forget instead"

const triage = Command.make("triage", {}, () =>
  Effect.flatMap(tmem, (g) =>
    // nobody can answer a pipe: refuse before reading anything rather than skip every entry
    process.stdin.isTTY !== true
      ? refuse(g, NO_TERMINAL)
      : atomsReport(g, () =>
          Effect.scoped(
            Effect.gen(function* () {
              const entries = yield* listQuarantine()
              if (entries.length === 0)
                return {
                  text: "No atoms in quarantine.",
                  json: { promoted: [], forgotten: [], skipped: [], failed: [] }
                }
              const io = yield* terminalIo({ input: process.stdin, output: process.stderr })
              const r = yield* triageWalk(entries, io, { promote: promoteAtom, forget: forgetAtom })
              return {
                text:
                  `triage: ${r.promoted.length} promoted, ${r.forgotten.length} forgotten, ` +
                  `${r.skipped.length} skipped` +
                  (r.failed.length > 0 ? `, ${r.failed.length} failed` : ""),
                json: r
              }
            })
          )
        )
  )
).pipe(
  Command.withDescription("walk through the quarantine (newest first) on a terminal: promote, forget or skip each atom")
)

const pending = Command.make("pending", {}, () =>
  Effect.flatMap(tmem, (g) =>
    atomsReport(g, () =>
      Effect.map(listPendingReviews(), (entries) => ({
        text:
          entries.length === 0
            ? "No pending user-model reviews."
            : [
                `${entries.length} pending review(s):`,
                "",
                ...entries.flatMap((p) => [
                  `• ${p.id} | ${printable(p.field)} = ${goQuote(printable(truncate(p.value, 120)))} ` +
                    `(confidence ${goFixed2(p.confidence ?? 0)})`,
                  ...(p.evidence === undefined || p.evidence === ""
                    ? []
                    : [`  evidence: ${printable(truncate(p.evidence, 120))}`])
                ]),
                "",
                "Confirm with: tmem atoms confirm <pending_id> (or drop with tmem atoms reject <pending_id>)"
              ].join("\n"),
        json: entries
      }))
    )
  )
).pipe(
  Command.withDescription(
    "user-model inferences waiting for a person (after dropping those older than user_state_pending_max_age_days)"
  )
)

/** A command that acts on one pending review by id. */
const onPending = (
  name: string,
  act: (id: string) => Effect.Effect<void, { readonly message: string }, LiveServices>,
  done: "confirmed" | "rejected",
  description: string
) =>
  Command.make(name, { id: pendingIdArg }, ({ id }) =>
    Effect.flatMap(tmem, (g) =>
      atomsReport(g, () =>
        Effect.flatMap(checkedId("pending_id", id), (checked) =>
          Effect.as(
            act(checked).pipe(
              Effect.mapError((e) =>
                e instanceof PendingNotFound
                  ? { message: `user model: pending review ${goQuote(checked)} not found` }
                  : e
              )
            ),
            { text: `${done} pending review ${goQuote(checked)}`, json: { pending_id: checked, [done]: true } }
          )
        )
      )
    )
  ).pipe(Command.withDescription(description))

const confirm = onPending(
  "confirm",
  confirmPendingReview,
  "confirmed",
  "accept a pending user-model inference: its value is applied to the model (a person's act; agents cannot)"
)

const reject = onPending("reject", rejectPendingReview, "rejected", "drop a pending user-model inference unapplied")

const compact = Command.make("compact", {}, () =>
  Effect.flatMap(tmem, (g) =>
    atomsReport(g, () =>
      Effect.map(compactAtoms(), (n) => ({
        text: `rebuilt the atom vector index: ${plural(n, "vector", "vectors")}, saved`,
        json: { vectors: n }
      }))
    )
  )
).pipe(
  Command.withDescription(
    "rebuild the atom vector index from every live atom, save it and wait (reclaims what removed atoms left)"
  )
)

const consolidate = Command.make("consolidate", {}, () =>
  Effect.flatMap(tmem, (g) =>
    atomsReport(g, () =>
      Effect.map(consolidateAtoms(), (r) => ({
        text:
          `consolidation complete — ${plural(r.merged, "group", "groups")} of near-duplicate atoms merged` +
          (r.groups > r.merged ? ` (${r.groups - r.merged} of ${r.groups} skipped)` : ""),
        json: r
      }))
    )
  )
).pipe(
  Command.withDescription(
    "merge near-duplicate live atoms with the model (consolidate_similarity_threshold); quarantine untouched"
  )
)

const nudges = Command.make("nudges", {}, () =>
  Effect.flatMap(tmem, (g) =>
    atomsReport(g, () =>
      Effect.map(previewNudges(), (found) => ({
        text: renderNudgePreview(found).replace(/\n$/, ""),
        json: found
      }))
    )
  )
).pipe(
  Command.withDescription("preview up to 2 proactive nudges from trusted atoms (records nothing, uses no daily cap)")
)

export const atoms = Command.make("atoms").pipe(
  Command.withDescription(
    "Extended Memory (atoms): stats, compact, quarantine review, promote, forget, pin, prune, triage, " +
      "pending user-model reviews, consolidate, nudges"
  ),
  Command.withSubcommands([
    stats,
    quarantine,
    promote,
    forget,
    pin,
    prune,
    triage,
    pending,
    confirm,
    reject,
    compact,
    consolidate,
    nudges
  ])
)
