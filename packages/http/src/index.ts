/** Embedding: `Pixgate.make(options)` -> node and web handlers on one engine runtime. */

/** The transport's building blocks, for hosts that assemble their own handlers. */
export * as Admin from "./Admin.js"
export * as Api from "./Api.js"
export * as Body from "./Body.js"
/** The standalone server and its database setting (what `pixgate serve` runs). */
export * as Database from "./Database.js"
export * as Handler from "./Handler.js"
export * as Incoming from "./Incoming.js"
export * as Log from "./Log.js"
export * as OpenApi from "./OpenApi.js"
export * as Pixgate from "./Pixgate.js"
export * as RateLimit from "./RateLimit.js"
export * as Respond from "./Respond.js"
export * as Route from "./Route.js"
export * as Router from "./Router.js"
export * as Server from "./Server.js"
/** The HTTP status of each engine error (core carries none). */
export * as Status from "./Status.js"
