import { atomFiles } from "../atoms/files.js"
import { NUDGES_STREAM, nudgeFiles } from "../atoms/nudges.js"
import { ATOMS_STREAM } from "../atoms/store.js"
import { USER_MODEL_STREAM } from "../atoms/userModel.js"
import { userModelFiles } from "../atoms/userModelFiles.js"
import { episodeFiles, EPISODES_STREAM } from "../episodes/stream.js"
import { DEFAULT_FACT_POLICY } from "../facts/decider.js"
import type { Target } from "../facts/schema.js"
import { factProjection, factStream } from "../facts/stream.js"
import type { Projections } from "../kernel/Stream.js"

/** Where each fact file's stream is projected, relative to the memory directory (odek's layout). */
export const FACT_FILES: Readonly<Record<Target, string>> = { user: "user.md", env: "env.md" }

/**
 * odek's directory as projections of the streams (DESIGN §3): `user.md` and `env.md`, files a person may edit, whose
 * hand edits must respect `caps` (the configured ones); the episode store's summary files and `index.json`; Extended
 * Memory's `extended/` files (atoms, user model, nudges). A store that keeps files is built with these; the
 * EventStore port never sees them.
 */
export const odekProjections = (caps: Readonly<Record<Target, number>> = DEFAULT_FACT_POLICY.caps): Projections =>
  new Map([
    [factStream("user"), { kind: "text", file: FACT_FILES.user, text: factProjection("user", caps.user) }],
    [factStream("env"), { kind: "text", file: FACT_FILES.env, text: factProjection("env", caps.env) }],
    [EPISODES_STREAM, { kind: "files", files: episodeFiles }],
    [ATOMS_STREAM, { kind: "files", files: atomFiles }],
    [USER_MODEL_STREAM, { kind: "files", files: userModelFiles }],
    [NUDGES_STREAM, { kind: "files", files: nudgeFiles }]
  ])
