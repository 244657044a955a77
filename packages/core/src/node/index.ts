/** Node-only adapters of `@pixgate/core` (import from `@pixgate/core/node`). */

/** The client behind trusted proxies (address, HTTPS, host), as Express's `trust proxy` reads it. */
export * as ClientAddress from "./ClientAddress.js"
/** AES-256-GCM and HMAC-SHA256 over node:crypto, for the SQL stores' sealed columns. */
export * as NodeDataCipher from "./NodeDataCipher.js"
/** A `HostResolver` backed by `node:dns`. */
export * as NodeHostResolver from "./NodeHostResolver.js"
/** Webhook POSTs over node:http / node:https with keep-alive agents. */
export * as NodeWebhookTransport from "./NodeWebhookTransport.js"
