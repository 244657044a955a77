/** Node-only adapters of `@pixgate/core` (import from `@pixgate/core/node`). */

/** AES-256-GCM and HMAC-SHA256 over node:crypto, for the SQL stores' sealed columns. */
export * as NodeDataCipher from "./NodeDataCipher.js"
/** A `HostResolver` backed by `node:dns`. */
export * as NodeHostResolver from "./NodeHostResolver.js"
/** Webhook POSTs over node:http / node:https with keep-alive agents. */
export * as NodeWebhookTransport from "./NodeWebhookTransport.js"
