/**
 * The errors of the contract as they travel: each of core's tagged errors as a schema whose
 * Encoded side is the JSON body `{ error, code, details? }` (docs/decisions.md) with the codes
 * that case may carry, and whose Type side is the tagged error itself. `PixgateApi` lists them
 * with their HTTP status; the OpenAPI document shows the bodies; a client decodes a body back
 * into the tagged error.
 */
import { Errors } from "@pixgate/core"
import { Option, ParseResult, Schema, SchemaAST } from "effect"

/** The refusals of a due-date charge's terms (one list, spread into the two below). */
const dueChargeCodes = [
  "invalid_due_date",
  "due_date_in_past",
  "due_date_required",
  "expires_in_with_due_date",
  "client_name_required",
  "client_doc_required",
  "invalid_days_after_due",
  "invalid_fine",
  "invalid_interest",
  "invalid_discount",
  "invalid_abatement",
  "abatement_too_large",
  "discount_too_large"
] as const

/**
 * Every `code` the public API answers with: the router's and transport's own (404, 405, 410,
 * 413, 429, 500, and the HTTP server's 400/408/431), authentication, idempotency, validation
 * (docs/decisions.md), the engine's business refusals and the bank gateway's 502s, and 503.
 */
export const errorCodes = [
  "invalid_json",
  "bad_request",
  "unauthorized",
  "not_found",
  "method_not_allowed",
  "request_timeout",
  "idempotency_in_flight",
  "endpoint_removed",
  "payload_too_large",
  "headers_too_large",
  "invalid_text",
  "invalid_idempotency_key",
  "idempotency_mismatch",
  "invalid_amount",
  "amount_above_maximum",
  "amount_below_fee",
  "invalid_client_name",
  "invalid_client_doc",
  "invalid_description",
  "invalid_expires_in",
  ...dueChargeCodes,
  "pix_key_required",
  "invalid_pix_key",
  "insufficient_balance",
  "invalid_query",
  "rate_limited",
  "internal_error",
  "gateway_error",
  "gateway_not_configured",
  "bank_rejected",
  "invalid_location",
  "service_unavailable"
] as const

/** The admin API's own codes besides those of `errorCodes`. */
export const adminErrorCodes = [
  "invalid_field",
  "invalid_name",
  "invalid_fee_plan",
  "invalid_secret",
  "invalid_overlap",
  "invalid_webhook_url",
  "invalid_email",
  "email_taken",
  "invalid_recipient",
  "charge_not_pending",
  "payout_not_pending",
  "sandbox_only",
  "chargeback_not_completed",
  "chargeback_already_open",
  "chargeback_invalid_amount",
  "chargeback_not_open",
  "refund_not_refundable",
  "refund_window_closed",
  "refund_exceeds_received"
] as const

/** The codes of the validation failures of the public API. */
export const validationCodes = [
  "invalid_text",
  "invalid_idempotency_key",
  "invalid_amount",
  "amount_above_maximum",
  "amount_below_fee",
  "invalid_client_name",
  "invalid_client_doc",
  "invalid_description",
  "invalid_expires_in",
  ...dueChargeCodes,
  "pix_key_required",
  "invalid_pix_key",
  "invalid_query"
] as const

/** One field at fault in a validation failure. */
export const ErrorDetail = Schema.Struct({
  path: Schema.String.annotations({ description: "The field, query parameter or header at fault" }),
  message: Schema.String.annotations({ description: "What is wrong with it" })
})

const message = Schema.String.annotations({
  description: "Human-readable message (the spec's text where it has one)"
})
const details = Schema.Array(ErrorDetail).annotations({
  description: "Fields at fault (validation failures only)"
})

/** The annotation naming the tagged error a wire schema carries (its `_tag`). */
export const ErrorTag: unique symbol = Symbol.for("@pixgate/http/ApiErrors/ErrorTag")

/** The `_tag` of the tagged error a wire schema carries, if it is one. */
export const errorTagOf = (ast: SchemaAST.AST): string | undefined =>
  Option.getOrUndefined(SchemaAST.getAnnotation<string>(ast, ErrorTag))

/** An error body with one of `codes`. */
const bodyOf = <const Codes extends ReadonlyArray<string>>(codes: Codes) =>
  Schema.Struct({
    error: message,
    code: Schema.Literal(...codes).annotations({ description: "Stable snake_case code" }),
    details: Schema.optional(details)
  })

/** The body of an error with one of `Codes`. */
export type Body<Codes extends ReadonlyArray<string>> = Schema.Schema.Type<ReturnType<typeof bodyOf<Codes>>>

const isCode = <const Codes extends ReadonlyArray<string>>(codes: Codes) => {
  const set: ReadonlySet<string> = new Set(codes)
  return (code: string): code is Codes[number] => set.has(code)
}

/**
 * The wire schema of one tagged error: the body with one of `codes` <-> the error, built back
 * from the body by `make`. Encoding an error whose code is not among `codes` fails: the
 * definition would not document it.
 */
const wire = <
  C extends new (
    ...args: never
  ) => Errors.PixgateError,
  const Codes extends ReadonlyArray<string>
>(
  self: C,
  tag: InstanceType<C>["_tag"],
  codes: Codes,
  make: (body: Body<Codes>) => InstanceType<C>,
  annotations: { readonly identifier: string; readonly description: string; readonly example: Body<Codes> }
) => {
  const known = isCode(codes)
  return Schema.transformOrFail(
    bodyOf(codes).annotations({
      identifier: annotations.identifier,
      description: annotations.description,
      examples: [annotations.example]
    }),
    Schema.instanceOf(self, { description: annotations.description }),
    {
      strict: true,
      decode: (body) => ParseResult.succeed(make(body)),
      encode: (error, _, ast) => {
        const { code, ...rest } = Errors.body(error)
        return known(code)
          ? ParseResult.succeed({ ...rest, code })
          : ParseResult.fail(
              new ParseResult.Type(ast, error, `code ${code} is not one of ${codes.join(", ")}`)
            )
      }
    }
  ).annotations({ description: annotations.description, [ErrorTag]: tag })
}

/** 400: the body is not a JSON object. */
export const InvalidJson = wire(
  Errors.InvalidJson,
  "InvalidJson",
  ["invalid_json"],
  (b) => Errors.invalidJson(b.details),
  {
    identifier: "InvalidJson",
    description: "Invalid JSON body: malformed, not a JSON object, or not `application/json`",
    example: { error: "Invalid JSON body", code: "invalid_json" }
  }
)

/** 401. */
export const Unauthorized = wire(
  Errors.Unauthorized,
  "Unauthorized",
  ["unauthorized"],
  () => Errors.unauthorized(),
  {
    identifier: "Unauthorized",
    description: "API key (or admin token) missing, malformed, unknown or revoked",
    example: { error: "Unauthorized", code: "unauthorized" }
  }
)

const notFoundSuffix = " not found"

/** 404: an unknown path, or an id that does not exist. */
export const NotFound = wire(
  Errors.NotFound,
  "NotFound",
  ["not_found"],
  (b) =>
    b.error.endsWith(notFoundSuffix) && b.error !== "Not found"
      ? Errors.notFound(b.error.slice(0, -notFoundSuffix.length))
      : new Errors.NotFound({}),
  { identifier: "NotFound", description: "Not found", example: { error: "Not found", code: "not_found" } }
)

/** 405: the path has other methods (`Allow` lists them). */
export const MethodNotAllowed = wire(
  Errors.MethodNotAllowed,
  "MethodNotAllowed",
  ["method_not_allowed"],
  () => new Errors.MethodNotAllowed({ allowed: [] }),
  {
    identifier: "MethodNotAllowed",
    description: "Method not allowed on this path; `Allow` lists the methods it has",
    example: { error: "Method not allowed", code: "method_not_allowed" }
  }
)

/** 409: the first request with this Idempotency-Key still runs. */
export const Conflict = wire(
  Errors.Conflict,
  "Conflict",
  ["idempotency_in_flight"],
  () => new Errors.Conflict(),
  {
    identifier: "IdempotencyInFlight",
    description: "A request with this Idempotency-Key is still being processed",
    example: {
      error: "A request with this Idempotency-Key is still being processed",
      code: "idempotency_in_flight"
    }
  }
)

/** 410: removed in 2.0.0. */
export const Gone = wire(Errors.Gone, "Gone", ["endpoint_removed"], () => new Errors.Gone(), {
  identifier: "EndpointRemoved",
  description: "This endpoint was removed in version 2.0.0",
  example: { error: "This endpoint was removed in version 2.0.0", code: "endpoint_removed" }
})

/** 413. */
export const PayloadTooLarge = wire(
  Errors.PayloadTooLarge,
  "PayloadTooLarge",
  ["payload_too_large"],
  () => new Errors.PayloadTooLarge(),
  {
    identifier: "PayloadTooLarge",
    description: "Request body too large",
    example: { error: "Request body too large", code: "payload_too_large" }
  }
)

/** 422: a field, query parameter or header is invalid. */
export const ValidationError = wire(
  Errors.ValidationError,
  "ValidationError",
  validationCodes,
  (b) => new Errors.ValidationError({ code: b.code, message: b.error, details: b.details ?? [] }),
  {
    identifier: "ValidationError",
    description:
      "Validation failed: `details` lists every field at fault; `error` is the first one's message",
    example: {
      error: "amount must be a positive number",
      code: "invalid_amount",
      details: [{ path: "amount", message: "amount must be a positive number" }]
    }
  }
)

/** 422: the Idempotency-Key was used with another body. */
export const IdempotencyMismatch = wire(
  Errors.IdempotencyMismatch,
  "IdempotencyMismatch",
  ["idempotency_mismatch"],
  () => new Errors.IdempotencyMismatch(),
  {
    identifier: "IdempotencyMismatch",
    description: "Idempotency-Key reused with a different request",
    example: {
      error: "Idempotency-Key was already used with a different request",
      code: "idempotency_mismatch"
    }
  }
)

/** 422: the balance does not cover the payout and its fee. */
export const InsufficientBalance = wire(
  Errors.InsufficientBalance,
  "InsufficientBalance",
  ["insufficient_balance"],
  () => Errors.insufficientBalance(),
  {
    identifier: "InsufficientBalance",
    description: "The available balance does not cover the amount plus the fee",
    example: { error: "Insufficient balance", code: "insufficient_balance" }
  }
)

/** 429 (`Retry-After` says when to retry). */
export const RateLimited = wire(
  Errors.RateLimited,
  "RateLimited",
  ["rate_limited"],
  () => new Errors.RateLimited({ retryAfter: 1 }),
  {
    identifier: "RateLimited",
    description: "Too many requests for this API key; `Retry-After` says when to retry",
    example: { error: "Too many requests", code: "rate_limited" }
  }
)

/** 500. */
export const Internal = wire(Errors.Internal, "Internal", ["internal_error"], () => new Errors.Internal({}), {
  identifier: "InternalError",
  description: "Internal server error: a bug on our side, never the input's fault",
  example: { error: "Internal server error", code: "internal_error" }
})

const gatewayCodes = ["gateway_error", "gateway_not_configured", "invalid_location"] as const

/** 502: the bank gateway failed, with the spec's message for the operation. */
export const GatewayUnavailable = wire(
  Errors.GatewayUnavailable,
  "GatewayUnavailable",
  gatewayCodes,
  (b) =>
    new Errors.GatewayUnavailable({
      operation:
        b.error === Errors.chargeGatewayMessage
          ? "charge"
          : b.error === Errors.refundGatewayMessage
            ? "refund"
            : "payout",
      code: b.code
    }),
  {
    identifier: "GatewayError",
    description:
      "The bank gateway failed: `Failed to create charge`, `Failed to process payout` or (admin refunds) `Failed to process refund`",
    example: { error: Errors.payoutGatewayMessage, code: "gateway_error" }
  }
)

/** 503 (`Retry-After` says when to retry). */
export const StorageUnavailable = wire(
  Errors.StorageUnavailable,
  "StorageUnavailable",
  ["service_unavailable"],
  () => Errors.unavailable(),
  {
    identifier: "ServiceUnavailable",
    description:
      "Service temporarily unavailable: the store did not answer; `Retry-After` says when to retry",
    example: { error: "Service temporarily unavailable", code: "service_unavailable" }
  }
)

const adminValidationCodes = [
  ...validationCodes,
  "invalid_field",
  "invalid_name",
  "invalid_fee_plan",
  "invalid_secret",
  "invalid_overlap",
  "invalid_webhook_url",
  "invalid_email",
  "invalid_recipient",
  "refund_exceeds_received"
] as const

/** 422 of the admin API: a field, path or query parameter is invalid. */
export const AdminValidationError = wire(
  Errors.ValidationError,
  "ValidationError",
  adminValidationCodes,
  (b) => new Errors.ValidationError({ code: b.code, message: b.error, details: b.details ?? [] }),
  {
    identifier: "AdminValidationError",
    description: "Invalid field: `details` lists every field at fault",
    example: {
      error: "mode must be one of: test, live",
      code: "invalid_field",
      details: [{ path: "mode", message: "mode must be one of: test, live" }]
    }
  }
)

const refusedCodes = [
  "sandbox_only",
  "charge_not_pending",
  "payout_not_pending",
  "email_taken",
  "chargeback_not_completed",
  "chargeback_already_open",
  "chargeback_invalid_amount",
  "chargeback_not_open",
  "refund_not_refundable",
  "refund_window_closed"
] as const

/** 409 of the admin API: not possible in the resource's current state. */
export const Refused = wire(
  Errors.Refused,
  "Refused",
  refusedCodes,
  (b) => new Errors.Refused({ code: b.code, message: b.error }),
  {
    identifier: "Refused",
    description: "Not possible in the current state (e.g. not pending, not test mode)",
    example: { error: "Sandbox actions apply to test mode only", code: "sandbox_only" }
  }
)

/** The public API's error body with every code it may carry (`components.schemas.Error`). */
export const ErrorBody = bodyOf(errorCodes).annotations({
  identifier: "Error",
  description: "Every error answer: `{ error, code, details? }`",
  examples: [{ error: "Not found", code: "not_found" }]
})

/** The admin API's error body with every code it may carry. */
export const AdminErrorBody = bodyOf([...errorCodes, ...adminErrorCodes]).annotations({
  identifier: "Error",
  description: "Every error answer: `{ error, code, details? }`",
  examples: [{ error: "Merchant not found", code: "not_found" }]
})
