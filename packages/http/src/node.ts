/**
 * The Node entry (`@pixgate/http/node`): everything of the web entry, with `Pixgate` and
 * `Handler` extended for Node hosts: `nodeHandler` for node:http / Express / Connect / Fastify,
 * the Express body-parser error middleware, webhooks over node:http, the optional merchant panel.
 */
export * from "./index.js"
export * as Handler from "./NodeHandler.js"
export * as Pixgate from "./NodePixgate.js"
export * as NodeTransport from "./NodeTransport.js"
