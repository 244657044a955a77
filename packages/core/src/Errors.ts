/**
 * Every error the engine reports to a merchant, one tagged class per case. Each is a Schema (an
 * HttpApi can list it) with a stable snake_case `code` and its message, verbatim from the spec
 * where it has one; validation failures carry the fields at fault. No HTTP status here: the HTTP
 * package maps each case to its status (`@pixgate/http` `Status.statusOf`).
 */
import { Schema } from "effect"

/** One field at fault in a validation failure. */
export const ErrorDetail = Schema.Struct({
  path: Schema.String.annotations({ description: "The field, query parameter or header at fault" }),
  message: Schema.String.annotations({ description: "What is wrong with it" })
}).annotations({ identifier: "ErrorDetail" })

/** One field at fault in a validation failure. */
export interface ErrorDetail extends Schema.Schema.Type<typeof ErrorDetail> {}

const Details = Schema.Array(ErrorDetail)

/** A `code` property that is always `code`: a literal in the schema, filled in by the constructor. */
const fixedCode = <const C extends string>(code: C) =>
  Schema.propertySignature(Schema.Literal(code)).pipe(Schema.withConstructorDefault(() => code))

/** What went wrong underneath, for the log only: never part of the answer. */
const cause = Schema.optional(Schema.Unknown)

/** A request field (or query parameter, or header) is invalid: 422 with every field at fault. */
export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", {
  code: Schema.String,
  message: Schema.String,
  details: Details
}) {}

/** The body is not a JSON object (or could not be read as one). */
export class InvalidJson extends Schema.TaggedError<InvalidJson>()("InvalidJson", {
  code: fixedCode("invalid_json"),
  details: Schema.optional(Details)
}) {
  override get message() {
    return "Invalid JSON body"
  }
}

/** No valid API key (or admin token). */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {
  code: fixedCode("unauthorized")
}) {
  override get message() {
    return "Unauthorized"
  }
}

/** A resource the caller named does not exist (`<resource> not found`), or no route matched. */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  code: fixedCode("not_found"),
  /** What was not found (`Merchant`, `Transaction`, ...); absent for an unknown path. */
  resource: Schema.optional(Schema.String)
}) {
  override get message() {
    return this.resource === undefined ? "Not found" : `${this.resource} not found`
  }
}

/** The available balance does not cover a payout or payment and its fee. */
export class InsufficientBalance extends Schema.TaggedError<InsufficientBalance>()("InsufficientBalance", {
  code: fixedCode("insufficient_balance")
}) {
  override get message() {
    return "Insufficient balance"
  }
}

/** A request with this Idempotency-Key is still being processed. */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  code: fixedCode("idempotency_in_flight")
}) {
  override get message() {
    return "A request with this Idempotency-Key is still being processed"
  }
}

/** The Idempotency-Key was already used with a different request. */
export class IdempotencyMismatch extends Schema.TaggedError<IdempotencyMismatch>()("IdempotencyMismatch", {
  code: fixedCode("idempotency_mismatch")
}) {
  override get message() {
    return "Idempotency-Key was already used with a different request"
  }
}

/**
 * The operation is not possible in the resource's current state (a chargeback refusal, a sandbox
 * action on live mode, a charge or payout no longer pending, an e-mail taken).
 */
export class Refused extends Schema.TaggedError<Refused>()("Refused", {
  code: Schema.String,
  message: Schema.String
}) {}

/** Operations whose bank call can fail, each with the spec's message. */
export const GatewayOperation = Schema.Literal("charge", "payout", "refund")

/** The spec's 502 message for charges. */
export const chargeGatewayMessage = "Failed to create charge"
/** The spec's 502 message for payouts. */
export const payoutGatewayMessage = "Failed to process payout"
/** The 502 message for refunds (beyond the spec, in the payouts' words). */
export const refundGatewayMessage = "Failed to process refund"

/** The bank gateway failed (or is not configured for the mode, or answered an unusable location). */
export class GatewayUnavailable extends Schema.TaggedError<GatewayUnavailable>()("GatewayUnavailable", {
  operation: GatewayOperation,
  code: Schema.propertySignature(
    Schema.Literal("gateway_error", "gateway_not_configured", "invalid_location")
  ).pipe(Schema.withConstructorDefault(() => "gateway_error" as const)),
  cause
}) {
  override get message() {
    return this.operation === "charge"
      ? chargeGatewayMessage
      : this.operation === "refund"
        ? refundGatewayMessage
        : payoutGatewayMessage
  }
}

/**
 * Storage is unavailable: a server-side failure, never blamed on the input. `outcome` is
 * `"unknown"` when the change may have been kept (the connection was lost at COMMIT): not a
 * failure, so its Idempotency-Key is not released (see `Idempotency.run`). `retryAfter` is the
 * seconds the client should wait before retrying.
 */
export class StorageUnavailable extends Schema.TaggedError<StorageUnavailable>()("StorageUnavailable", {
  code: fixedCode("service_unavailable"),
  outcome: Schema.optional(Schema.Literal("unknown")),
  retryAfter: Schema.optional(Schema.Number),
  cause
}) {
  override get message() {
    return "Service temporarily unavailable"
  }
}

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

/** The body is larger than the configured limit (`too_large` is the merchant panel's code). */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  code: Schema.propertySignature(Schema.Literal("payload_too_large", "too_large")).pipe(
    Schema.withConstructorDefault(() => "payload_too_large" as const)
  )
}) {
  override get message() {
    return "Request body too large"
  }
}

/** A bug on our side, never the input's fault. */
export class Internal extends Schema.TaggedError<Internal>()("Internal", {
  code: fixedCode("internal_error"),
  cause
}) {
  override get message() {
    return "Internal server error"
  }
}

/** Every error of the engine and its transports. */
export type PixgateError =
  | ValidationError
  | InvalidJson
  | Unauthorized
  | NotFound
  | InsufficientBalance
  | Conflict
  | IdempotencyMismatch
  | Refused
  | GatewayUnavailable
  | StorageUnavailable
  | RateLimited
  | Gone
  | MethodNotAllowed
  | PayloadTooLarge
  | Internal

/** The schema of every error (tagged by `_tag`). */
export const PixgateError = Schema.Union(
  ValidationError,
  InvalidJson,
  Unauthorized,
  NotFound,
  InsufficientBalance,
  Conflict,
  IdempotencyMismatch,
  Refused,
  GatewayUnavailable,
  StorageUnavailable,
  RateLimited,
  Gone,
  MethodNotAllowed,
  PayloadTooLarge,
  Internal
)

const tags: ReadonlySet<string> = new Set(PixgateError.members.map((member) => member._tag))

/** True for any error of the union (an instance of one of its classes). */
export const isPixgateError = (u: unknown): u is PixgateError =>
  typeof u === "object" &&
  u !== null &&
  "_tag" in u &&
  typeof u._tag === "string" &&
  tags.has(u._tag) &&
  PixgateError.members.some((member) => u instanceof member)

/**
 * Server-side failures: the input was not at fault, and nothing may have been done (the bank or
 * the storage failed, or a bug). Every other error is a refusal of the request as it stands.
 */
export const isServerSide = (
  error: PixgateError
): error is GatewayUnavailable | StorageUnavailable | Internal =>
  error._tag === "GatewayUnavailable" || error._tag === "StorageUnavailable" || error._tag === "Internal"

/** The error body of docs/decisions.md: `{ error, code, details? }`. */
export interface ErrorBody {
  readonly error: string
  readonly code: string
  readonly details?: ReadonlyArray<ErrorDetail>
}

/** The error body of docs/decisions.md: `{ error, code, details? }`. */
export const body = (error: PixgateError): ErrorBody => {
  const details = "details" in error ? error.details : undefined
  return details === undefined
    ? { error: error.message, code: error.code }
    : { error: error.message, code: error.code, details }
}

const replays = new WeakSet<PixgateError>()

/** Marks an error as the idempotent replay of an earlier request's answer. */
export const replayed = <E extends PixgateError>(error: E): E => {
  replays.add(error)
  return error
}

/** True when the error is the idempotent replay of an earlier request's answer. */
export const isReplayed = (error: PixgateError): boolean => replays.has(error)

/** A 422 for one invalid field. */
export const validation = (code: string, path: string, message: string): ValidationError =>
  new ValidationError({ code, message, details: [{ path, message }] })

/** `Invalid JSON body`, with what was wrong when known (e.g. the content type). */
export const invalidJson = (details?: ReadonlyArray<ErrorDetail>): InvalidJson =>
  new InvalidJson(details === undefined ? {} : { details })

/** `Unauthorized`. */
export const unauthorized = (): Unauthorized => new Unauthorized()

/** `<what> not found`, for an id the caller named that does not exist. */
export const notFound = (what: string): NotFound => new NotFound({ resource: what })

/** `Insufficient balance`. */
export const insufficientBalance = (): InsufficientBalance => new InsufficientBalance()

/**
 * Storage is unavailable. With the store's error as `cause`, keeps its outcome (`"unknown"` when
 * the change may have been kept).
 */
export const unavailable = (cause?: { readonly outcome?: "unknown" | undefined }): StorageUnavailable =>
  new StorageUnavailable(cause === undefined ? {} : { cause, outcome: cause.outcome })
