/** Embedding: `Pixgate.make(options)` -> node and web handlers on one engine runtime. */

/** The transport's building blocks, for hosts that assemble their own handlers. */
export * as Admin from "./Admin.js"
/** Admin-API input checks (the `pixgate` command uses them too). */
export * as AdminInput from "./AdminInput.js"
export * as Api from "./Api.js"
/** The live bank's callback routes. */
export * as BankCallbacks from "./BankCallbacks.js"
export * as Body from "./Body.js"
/** A store chosen by database URL (`sqlite:...`, `postgres://...`). */
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
