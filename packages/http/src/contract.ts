/**
 * `@pixgate/http/api`: the contract alone, for clients and any host (no Node built-in, store or
 * driver is imported): the `HttpApi` definition and the errors as they travel.
 */
export * as ApiErrors from "./ApiErrors.js"
export * from "./PixgateApi.js"
