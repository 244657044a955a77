/**
 * The web entry: `Pixgate.make({ store })` -> a `(Request) => Promise<Response>` handler on one
 * engine runtime, and the transport's building blocks. It imports no node built-in and no store
 * or driver package (a test bundles it and checks), so it runs on any web-standard host; Node
 * hosts use `@pixgate/http/node`, which has all of this plus the node handlers.
 */

/** The transport's building blocks, for hosts that assemble their own handlers. */
export * as Admin from "./AdminRoutes.js"
/** The least admin token scope each admin API operation needs. */
export * as AdminScopes from "./AdminScopes.js"
export * as ApiErrors from "./ApiErrors.js"
/** The live bank's callback routes. */
export * as BankCallbacks from "./BankCallbacks.js"
export * as Body from "./Body.js"
export * as Handlers from "./EndpointHandlers.js"
export * as EventStream from "./EventStream.js"
/** The event stream's contract and its Server-Sent Events answers. */
export * as EventsApi from "./EventsApi.js"
/** Pixgate's API as `HttpApiBuilder` layers, for Effect applications. */
export * as HttpApiLayer from "./HttpApiLayer.js"
export * as Incoming from "./Incoming.js"
export * as Log from "./Log.js"
export * as OpenApi from "./OpenApiDocuments.js"
export * as Pixgate from "./Pixgate.js"
export * as PixgateApi from "./PixgateApi.js"
export * as Api from "./PublicRoutes.js"
export * as RateLimit from "./RateLimit.js"
export * as Respond from "./Respond.js"
export * as Route from "./Route.js"
export * as Router from "./Router.js"
/** The HTTP status of each engine error (core carries none). */
export * as Status from "./Status.js"
export * as Handler from "./WebHandler.js"
