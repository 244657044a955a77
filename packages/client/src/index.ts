/** The Effect client, made from the server's HttpApi definition. */

/** The promise client and what it rejects with. */
export { Pixgate, type PixgateOptions, type RequestOptions } from "./Pixgate.js"
export { type Code, PixgateApiError, PixgateConnectionError } from "./PixgateApiError.js"
export * as PixgateClient from "./PixgateClient.js"
/** Verifying webhooks (Standard Webhooks signatures) and decoding their events. */
export * as Webhooks from "./Webhooks.js"
