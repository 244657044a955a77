/** Node-only adapters of `@pixgate/core` (import from `@pixgate/core/node`). */

/** A `HostResolver` backed by `node:dns`. */
export * as NodeHostResolver from "./NodeHostResolver.js"

/** Webhook POSTs over node:http / node:https with keep-alive agents. */
export * as NodeWebhookTransport from "./NodeWebhookTransport.js"
