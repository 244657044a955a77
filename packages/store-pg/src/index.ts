/** Pixgate's storage on PostgreSQL. */
export * as PgStore from "./PgStore.js"
