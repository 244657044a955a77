/**
 * The standalone Pixgate server (what `pixgate serve` runs), the database setting, and
 * everything of `@pixgate/http/node`, with `Pixgate.make` also taking a `database` URL: one
 * import for a Node host.
 */
export * from "@pixgate/http/node"
/** A store chosen by database URL (`sqlite:...`, `postgres://...`). */
export * as Database from "./Database.js"
export * as Pixgate from "./Pixgate.js"
export * as Server from "./Server.js"
