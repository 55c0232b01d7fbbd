/** The PostgreSQL adapters, loaded together on demand (src/adapters/live.ts) when a postgres:// store is named. */
export * as PgDerivedFiles from "./PgDerivedFiles.js"
export * as PgEpisodeSearch from "./PgEpisodeSearch.js"
export * as PgEventStore from "./PgEventStore.js"
export { dropSchema } from "./dropSchema.js"
