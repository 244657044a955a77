/**
 * The errors only a transport raises (405, 410, 413, 429): tagged errors like core's, with a
 * stable code and message, and no status (`ApiErrors` declares each one's wire form and status).
 */
import { Errors } from "@pixgate/core"
import { Schema } from "effect"

/** A `code` property that is always `code`: a literal in the schema, filled in by the constructor. */
const fixedCode = <const C extends string>(code: C) =>
  Schema.propertySignature(Schema.Literal(code)).pipe(Schema.withConstructorDefault(() => code))

/** Too many requests: retry after `retryAfter` seconds. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  code: fixedCode("rate_limited"),
  retryAfter: Schema.Number
}) {
  override get message() {
    return "Too many requests"
  }
}

/** One of the endpoints removed in version 2.0.0. */
export class Gone extends Schema.TaggedError<Gone>()("Gone", {
  code: fixedCode("endpoint_removed")
}) {
  override get message() {
    return "This endpoint was removed in version 2.0.0"
  }
}

/** The path exists but not with this method; `allowed` lists the methods it has. */
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", {
  code: fixedCode("method_not_allowed"),
  allowed: Schema.Array(Schema.String)
}) {
  override get message() {
    return "Method not allowed"
  }
}

/** The body is larger than the configured limit. */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  code: fixedCode("payload_too_large")
}) {
  override get message() {
    return "Request body too large"
  }
}

/** The errors only a transport raises. */
export type TransportError = RateLimited | Gone | MethodNotAllowed | PayloadTooLarge

/** The errors only a transport raises. */
export const TransportError = Schema.Union(RateLimited, Gone, MethodNotAllowed, PayloadTooLarge)

/** Every error of the contract: the engine's and the transport's. */
export type ApiError = Errors.PixgateError | TransportError

/** Every error of the contract (tagged by `_tag`). */
export const ApiError = Schema.Union(...Errors.PixgateError.members, ...TransportError.members)

const transportTags: ReadonlySet<string> = new Set(TransportError.members.map((member) => member._tag))

/** True for any error of the contract (an instance of one of its classes). */
export const isApiError = (u: unknown): u is ApiError =>
  Errors.isPixgateError(u) ||
  (typeof u === "object" &&
    u !== null &&
    "_tag" in u &&
    typeof u._tag === "string" &&
    transportTags.has(u._tag) &&
    TransportError.members.some((member) => u instanceof member))
