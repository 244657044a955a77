/**
 * The errors of the contract as they travel, each declared once: one wire schema per error,
 * derived from its class by `of` (the class's codes, its HTTP status as an `HttpApiSchema`
 * annotation, an example). The Encoded side is the JSON body `{ error, code, details? }`
 * (docs/decisions.md) with the codes the class declares, the Type side the tagged error itself.
 *
 * Everything else is read from these declarations: the endpoints' error lists (`PixgateApi`),
 * the status table (`Status`), the OpenAPI codes (`errorCodes`, `adminErrorCodes`), the merchant
 * panel's statuses (handed to it by the embedder) and the client's code union (`Code`).
 *
 * Core's errors are the engine's; the errors only a transport raises (405, 410, 413, 429) are
 * `TransportErrors`, declared here in the same form.
 */
import { HttpApiSchema } from "@effect/platform"
import { Errors } from "@pixgate/core"
import { Option, ParseResult, Schema, SchemaAST } from "effect"
import * as TransportErrors from "./TransportErrors.js"

// Wire forms ---------------------------------------------------------------------------------

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
const bodyOf = <Code extends string>(codes: ReadonlyArray<Code>) =>
  Schema.Struct({
    error: message,
    code: Schema.Literal(...codes).annotations({ description: "Stable snake_case code" }),
    details: Schema.optional(details)
  })

/** The schema of the body of an error with one of `Code`. */
type BodySchema<Code extends string> = ReturnType<typeof bodyOf<Code>>

/** The body of an error with one of `Code`. */
export type Body<Code extends string> = Schema.Schema.Type<BodySchema<Code>>

/** What a wire declaration says of its error besides the class. */
export interface WireOptions<E extends Errors.ErrorLike> {
  /** The HTTP status the error is answered with (one per error). */
  readonly status: number
  /** What the OpenAPI document says of it. */
  readonly description: string
  /** A body of the error, as the OpenAPI document shows it. */
  readonly example: Body<E["code"]>
  /** The component's name in the OpenAPI document (default: the class's `_tag`). */
  readonly identifier?: string
  /** The codes this API answers, when fewer than the class declares (default: all of them). */
  readonly codes?: ReadonlyArray<E["code"]>
  /** The error a body stands for (default: core's `Errors.fromBody`). */
  readonly fromBody?: (body: Body<E["code"]>) => E
}

/** A wire declaration: the schema of the body <-> the error, annotated with its status. */
export interface Wire<E extends Errors.ErrorLike>
  extends Schema.Schema<E, Schema.Schema.Encoded<BodySchema<E["code"]>>> {
  /** The error's `_tag`. */
  readonly tag: E["_tag"]
  /** The error's status. */
  readonly status: number
  /** The codes this declaration documents. */
  readonly codes: ReadonlyArray<E["code"]>
  /** The same error with fewer codes documented (another API's view of it), same status. */
  readonly narrow: (
    codes: ReadonlyArray<E["code"]>,
    annotations: {
      readonly identifier: string
      readonly description: string
      readonly example: Body<E["code"]>
    }
  ) => Wire<E>
}

/**
 * The wire form of an error class, with its status: the body with one of the class's codes <->
 * the error. Encoding an error whose code is not among the documented ones fails: the definition
 * would not document it.
 */
export const of = <
  E extends Errors.ErrorLike & { readonly details?: ReadonlyArray<Errors.ErrorDetail> | undefined }
>(
  self: Errors.ErrorClass<E>,
  options: WireOptions<E>
): Wire<E> => {
  const codes = options.codes ?? Errors.codesOf(self)
  const known: ReadonlySet<string> = new Set(codes)
  const isE = (u: unknown): u is E => u instanceof self
  const fromBody =
    options.fromBody ??
    ((body: Body<E["code"]>) => Option.getOrUndefined(Option.filter(Errors.fromBody(body), isE)))
  const schema = Schema.transformOrFail(
    bodyOf(codes).annotations({
      identifier: options.identifier ?? self._tag,
      description: options.description,
      examples: [options.example]
    }),
    Schema.declare(isE, { description: options.description }),
    {
      strict: true,
      decode: (body, _, ast) => {
        const error = fromBody(body)
        return error === undefined
          ? ParseResult.fail(new ParseResult.Type(ast, body, `no ${self._tag} has code ${body.code}`))
          : ParseResult.succeed(error)
      },
      encode: (error, _, ast) => {
        const { code, ...rest } = Errors.body(error)
        return known.has(code)
          ? ParseResult.succeed({ ...rest, code: error.code })
          : ParseResult.fail(
              new ParseResult.Type(ast, error, `code ${code} is not one of ${codes.join(", ")}`)
            )
      }
    }
  ).annotations({
    description: options.description,
    [ErrorTag]: self._tag,
    ...HttpApiSchema.annotations({ status: options.status })
  })
  return Object.assign(schema, {
    tag: self._tag,
    status: options.status,
    codes,
    narrow: (
      narrower: ReadonlyArray<E["code"]>,
      annotations: {
        readonly identifier: string
        readonly description: string
        readonly example: Body<E["code"]>
      }
    ) => of(self, { ...options, ...annotations, codes: narrower })
  })
}

// The declarations: one per error ------------------------------------------------------------

/** 400: the body is not a JSON object. */
export const InvalidJson = of(Errors.InvalidJson, {
  status: 400,
  description: "Invalid JSON body: malformed, not a JSON object, or not `application/json`",
  example: { error: "Invalid JSON body", code: "invalid_json" }
})

/** 401. */
export const Unauthorized = of(Errors.Unauthorized, {
  status: 401,
  description: "API key (or admin token) missing, malformed, unknown or revoked",
  example: { error: "Unauthorized", code: "unauthorized" }
})

/** 403 (admin API): the admin token's scope does not allow the operation. */
export const Forbidden = of(Errors.Forbidden, {
  status: 403,
  description: "The admin token is valid, but its scope does not allow this operation",
  example: {
    error: "This admin token's scope (read-only) does not allow this operation; it needs operator",
    code: "forbidden"
  }
})

/** 404: an unknown path, or an id that does not exist. */
export const NotFound = of(Errors.NotFound, {
  status: 404,
  description: "Not found",
  example: { error: "Not found", code: "not_found" }
})

/** 405: the path has other methods (`Allow` lists them). */
export const MethodNotAllowed = of(TransportErrors.MethodNotAllowed, {
  status: 405,
  identifier: "MethodNotAllowed",
  description: "Method not allowed on this path; `Allow` lists the methods it has",
  example: { error: "Method not allowed", code: "method_not_allowed" },
  fromBody: () => new TransportErrors.MethodNotAllowed({ allowed: [] })
})

/** 409: the first request with this Idempotency-Key still runs. */
export const Conflict = of(Errors.Conflict, {
  status: 409,
  identifier: "IdempotencyInFlight",
  description: "A request with this Idempotency-Key is still being processed",
  example: {
    error: "A request with this Idempotency-Key is still being processed",
    code: "idempotency_in_flight"
  }
})

/** 409 (admin API): not possible in the resource's current state. */
export const Refused = of(Errors.Refused, {
  status: 409,
  description: "Not possible in the current state (e.g. not pending, not test mode)",
  example: { error: "Sandbox actions apply to test mode only", code: "sandbox_only" },
  codes: Errors.AdminRefusedCode.literals
})

/** 409 (public API): the subscription or its cycle does not allow the operation (`SubscriptionsApi`). */
export const SubscriptionRefused = Refused.narrow(
  ["subscription_not_cancellable", "retry_not_allowed", "recurring_unsupported"],
  {
    identifier: "SubscriptionRefused",
    description: "Not possible in the subscription's current state, or under its retry policy",
    example: { error: "The subscription is CANCELADA: it has ended", code: "subscription_not_cancellable" }
  }
)

/** 410: removed in 2.0.0. */
export const Gone = of(TransportErrors.Gone, {
  status: 410,
  identifier: "EndpointRemoved",
  description: "This endpoint was removed in version 2.0.0",
  example: { error: "This endpoint was removed in version 2.0.0", code: "endpoint_removed" },
  fromBody: () => new TransportErrors.Gone()
})

/** 413. */
export const PayloadTooLarge = of(TransportErrors.PayloadTooLarge, {
  status: 413,
  identifier: "PayloadTooLarge",
  description: "Request body too large",
  example: { error: "Request body too large", code: "payload_too_large" },
  fromBody: () => new TransportErrors.PayloadTooLarge()
})

/** 422 (admin API): a field, path or query parameter is invalid. */
export const AdminValidationError = of(Errors.ValidationError, {
  status: 422,
  identifier: "AdminValidationError",
  description: "Invalid field: `details` lists every field at fault",
  example: {
    error: "mode must be one of: test, live",
    code: "invalid_field",
    details: [{ path: "mode", message: "mode must be one of: test, live" }]
  },
  codes: [...Errors.RequestValidationCode.literals, ...Errors.AdminValidationCode.literals]
})

/** 422 (public API): a field, query parameter or header is invalid. */
export const ValidationError = AdminValidationError.narrow(Errors.RequestValidationCode.literals, {
  identifier: "ValidationError",
  description: "Validation failed: `details` lists every field at fault; `error` is the first one's message",
  example: {
    error: "amount must be a positive number",
    code: "invalid_amount",
    details: [{ path: "amount", message: "amount must be a positive number" }]
  }
})

/** 422: the Idempotency-Key was used with another body. */
export const IdempotencyMismatch = of(Errors.IdempotencyMismatch, {
  status: 422,
  description: "Idempotency-Key reused with a different request",
  example: {
    error: "Idempotency-Key was already used with a different request",
    code: "idempotency_mismatch"
  }
})

/** 422: the balance does not cover the payout and its fee. */
export const InsufficientBalance = of(Errors.InsufficientBalance, {
  status: 422,
  description: "The available balance does not cover the amount plus the fee",
  example: { error: "Insufficient balance", code: "insufficient_balance" }
})

/** 429 (`Retry-After` says when to retry). */
export const RateLimited = of(TransportErrors.RateLimited, {
  status: 429,
  identifier: "RateLimited",
  description: "Too many requests for this API key; `Retry-After` says when to retry",
  example: { error: "Too many requests", code: "rate_limited" },
  fromBody: () => new TransportErrors.RateLimited({ retryAfter: 1 })
})

/** 500. */
export const Internal = of(Errors.Internal, {
  status: 500,
  identifier: "InternalError",
  description: "Internal server error: a bug on our side, never the input's fault",
  example: { error: "Internal server error", code: "internal_error" }
})

/** 502: the bank gateway failed, with the spec's message for the operation. */
export const GatewayUnavailable = of(Errors.GatewayUnavailable, {
  status: 502,
  identifier: "GatewayError",
  description:
    "The bank gateway failed: `Failed to create charge`, `Failed to process payout` or (admin refunds) `Failed to process refund`",
  example: { error: Errors.payoutGatewayMessage, code: "gateway_error" }
})

/** 503 (`Retry-After` says when to retry). */
export const StorageUnavailable = of(Errors.StorageUnavailable, {
  status: 503,
  identifier: "ServiceUnavailable",
  description: "Service temporarily unavailable: the store did not answer; `Retry-After` says when to retry",
  example: { error: "Service temporarily unavailable", code: "service_unavailable" }
})

// Lists of endpoints ------------------------------------------------------------------------

/**
 * What every admin operation may answer (its group's errors): a body or field at fault, an
 * unknown id, a refusal, the store. The admin group and the admin groups of their own modules
 * (refunds) list it.
 */
export const AdminErrors = Schema.Union(
  InvalidJson,
  NotFound,
  Refused,
  PayloadTooLarge,
  AdminValidationError,
  StorageUnavailable
)

/**
 * True when the errors an endpoint lists (with its group's) cover what its engine operation
 * raises, else the errors left out: `const covered: Covers<Listed, Raised> = true` does not
 * compile until the endpoint lists every error of its operation.
 */
export type Covers<Listed, Raised> = [Raised] extends [Listed] ? true : Exclude<Raised, Listed>

/** Every wire declaration, one per error class (the public API's 422 is a narrower view of the admin one). */
export const all = [
  InvalidJson,
  Unauthorized,
  Forbidden,
  NotFound,
  MethodNotAllowed,
  Conflict,
  Refused,
  Gone,
  PayloadTooLarge,
  AdminValidationError,
  IdempotencyMismatch,
  InsufficientBalance,
  RateLimited,
  Internal,
  GatewayUnavailable,
  StorageUnavailable
] as const

/** Every wire declaration, one per error class. */
export type AnyWire = (typeof all)[number]

// The codes of the documents -----------------------------------------------------------------

/** The HTTP server's own answers before any route runs (400, 408, 431), written by the Node server. */
export const serverCodes = ["bad_request", "request_timeout", "headers_too_large"] as const

/**
 * Every `code` the public API answers with: the router's and transport's own, authentication,
 * idempotency, validation, the bank gateway's 502s and 503, read from the declarations.
 */
export const errorCodes: ReadonlyArray<string> = [
  ...new Set([
    ...serverCodes,
    ...[
      InvalidJson,
      Unauthorized,
      NotFound,
      MethodNotAllowed,
      Conflict,
      Gone,
      PayloadTooLarge,
      ValidationError,
      IdempotencyMismatch,
      InsufficientBalance,
      RateLimited,
      Internal,
      GatewayUnavailable,
      StorageUnavailable,
      SubscriptionRefused
    ].flatMap((wire): ReadonlyArray<string> => wire.codes)
  ])
]

/** The admin API's own codes besides those of `errorCodes`. */
export const adminErrorCodes: ReadonlyArray<string> = [
  ...Forbidden.codes,
  ...AdminValidationError.codes,
  ...Refused.codes
].filter((code) => !errorCodes.includes(code))

/** Every code of the contract, for a client: one of the engine's or the transport's codes. */
export type Code = TransportErrors.ApiError["code"] | (typeof serverCodes)[number]

const documented: ReadonlySet<string> = new Set([...errorCodes, ...adminErrorCodes])

/** True for a code the contract documents (a newer server may answer others). */
export const isCode = (code: string): code is Code => documented.has(code)

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
