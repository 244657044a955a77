/** The Pixgate storage port over `@effect/sql`, shared by `@pixgate/store-sqlite` and `@pixgate/store-pg`. */
export * as DataKeys from "./DataKeys.js"
export * as Migrations from "./Migrations.js"
export * as RateLimits from "./RateLimits.js"
export * as SqlStore from "./SqlStore.js"
