/** Pixgate's storage on SQLite. */
export * as SqliteStore from "./SqliteStore.js"
