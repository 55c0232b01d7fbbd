import { Schema } from "effect"

/**
 * When something happened: an ISO-8601 UTC instant as `Date.prototype.toISOString` writes it (the Effect clock's
 * time, stamped by the command handler). One type for every stream's events and commands.
 */
export const Instant = Schema.String.annotations({ identifier: "Instant", description: "an ISO-8601 UTC instant" })
export type Instant = typeof Instant.Type
