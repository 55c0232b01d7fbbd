import { Context, Effect, Layer, Ref } from "effect"
import type { Atom } from "../domain/atoms/atom.js"

/** The most trusted atoms the process remembers for user-model inference (spec extended §14.2). */
export const RECENT_ATOMS = 100
/** The user messages the intent predictor sees (spec extended §9.4). */
export const RECENT_MESSAGES = 10

/** What Extended Memory remembers within one process, and only there (spec extended §14.2–14.3, §9.4–9.5). */
export interface ActivityState {
  /** Trusted atoms this process stored, oldest first, at most RECENT_ATOMS. */
  readonly recent: ReadonlyArray<Atom>
  /** Projects of atoms stored since the last inference: one other than the model's focus makes inference due. */
  readonly projects: ReadonlyArray<string>
  /** User messages seen since the process started. */
  readonly turns: number
  /** The last RECENT_MESSAGES user messages, oldest first. */
  readonly messages: ReadonlyArray<string>
  /** An inference is running: another trigger is dropped, not queued. */
  readonly inferring: boolean
  /** The last recall's follow-up suggestions (§9.5), replaced by every recall. */
  readonly followUps: ReadonlyArray<string>
}

const initial: ActivityState = { recent: [], projects: [], turns: 0, messages: [], inferring: false, followUps: [] }

export class AtomActivity extends Context.Tag("tmem/AtomActivity")<AtomActivity, Ref.Ref<ActivityState>>() {
  static readonly layer = Layer.effect(AtomActivity, Ref.make(initial))
}

/** Remembers the trusted atoms just stored (§14.2). */
export const rememberStored = (atoms: ReadonlyArray<Atom>) =>
  atoms.length === 0
    ? Effect.void
    : Effect.flatMap(AtomActivity, (ref) =>
        Ref.update(ref, (s) => ({
          ...s,
          recent: [...s.recent, ...atoms].slice(-RECENT_ATOMS),
          projects: [...new Set([...s.projects, ...atoms.map((a) => a.context.project ?? "").filter((p) => p !== "")])]
        }))
      )

/** Counts a user message and remembers it for the predictor; the new count. */
export const countUserTurn = (message: string) =>
  Effect.flatMap(AtomActivity, (ref) =>
    Ref.modify(ref, (s): [number, ActivityState] => [
      s.turns + 1,
      { ...s, turns: s.turns + 1, messages: [...s.messages, message].slice(-RECENT_MESSAGES) }
    ])
  )
