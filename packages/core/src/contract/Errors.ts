/**
 * Every error the engine reports to a merchant, one tagged class per case. Each is a Schema (an
 * HttpApi can list it) with its stable snake_case codes as a literal union (the one place each
 * code is written: everything else reads it through the types or the schemas) and its message,
 * verbatim from the spec where it has one; validation failures carry the fields at fault.
 *
 * No HTTP status and no transport errors here: `@pixgate/http` declares each class's wire form
 * and status once (`ApiErrors.of`), and adds the errors only a transport raises (405, 410, 413,
 * 429). Adding a refusal code is one line here (docs/architecture.md, "Adding a refusal code").
 */
import { Option, Schema, SchemaAST } from "effect"

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

/**
 * The codes of the validation failures of the public API's requests (docs/decisions.md): what
 * the charges, payouts and transactions endpoints may answer.
 */
export const RequestValidationCode = Schema.Literal(
  "invalid_text",
  "invalid_idempotency_key",
  "invalid_amount",
  "amount_above_maximum",
  "amount_below_fee",
  "invalid_client_name",
  "invalid_client_doc",
  "invalid_description",
  "invalid_expires_in",
  // A due-date charge's terms.
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
  "discount_too_large",
  "pix_key_required",
  "invalid_pix_key",
  "invalid_query",
  // Subscriptions (Pix Automático): a recurrence's fields, a retry's date.
  "invalid_recurrence",
  "invalid_retry_date",
  // The merchant's live gateway does not offer this (due-date charges, sends, refunds).
  "capability_unavailable"
)

/** The codes of the admin operations' validation failures, besides those of `RequestValidationCode`. */
export const AdminValidationCode = Schema.Literal(
  "invalid_field",
  "invalid_name",
  "invalid_fee_plan",
  "invalid_secret",
  "invalid_overlap",
  "invalid_webhook_url",
  "invalid_email",
  "invalid_recipient",
  "refund_exceeds_received",
  "invalid_scope",
  "invalid_gateway"
)

/** The merchant panel's own validation codes (a form posted without its token). */
export const PanelValidationCode = Schema.Literal("invalid_form_token")

/** Every code of a validation failure. */
export const ValidationCode = Schema.Literal(
  ...RequestValidationCode.literals,
  ...AdminValidationCode.literals,
  ...PanelValidationCode.literals
)

/** Every code of a validation failure. */
export type ValidationCode = typeof ValidationCode.Type

/** A request field (or query parameter, or header) is invalid: 422 with every field at fault. */
export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", {
  code: ValidationCode,
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

/**
 * An admin token that authenticated but whose scope does not allow the operation (403); the
 * message names the scope it needs.
 */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", {
  code: fixedCode("forbidden"),
  message: Schema.String
}) {}

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

/** The codes of the engine's refusals in the resource's current state (the admin API's 409s). */
export const AdminRefusedCode = Schema.Literal(
  "sandbox_only",
  "charge_not_pending",
  "payout_not_pending",
  "email_taken",
  "chargeback_not_completed",
  "chargeback_already_open",
  "chargeback_invalid_amount",
  "chargeback_not_open",
  "refund_not_refundable",
  "refund_window_closed",
  "admin_token_name_taken",
  "admin_tokens_unsupported",
  "infraction_not_answerable",
  "infraction_deadline_passed",
  "infraction_bank_refused",
  "infraction_answer_unknown",
  // Subscriptions (Pix Automático) in a state that does not allow the operation.
  "subscription_not_cancellable",
  "subscription_not_pending",
  "retry_not_allowed",
  "recurring_unsupported",
  "cycle_not_cancellable",
  "merchant_gateways_unsupported",
  "gateway_change_pending",
  "webhook_endpoint_disabled"
)

/** The merchant panel's own refusals (a test event with no webhook endpoint to send it to). */
export const PanelRefusedCode = Schema.Literal("no_endpoint")

/** The codes of a refusal in the resource's current state. */
export const RefusedCode = Schema.Literal(...AdminRefusedCode.literals, ...PanelRefusedCode.literals)

/** The codes of a refusal in the resource's current state. */
export type RefusedCode = typeof RefusedCode.Type

/**
 * The operation is not possible in the resource's current state (a chargeback refusal, a sandbox
 * action on live mode, a charge or payout no longer pending, an e-mail taken).
 */
export class Refused extends Schema.TaggedError<Refused>()("Refused", {
  code: RefusedCode,
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

/** A bug on our side, never the input's fault. */
export class Internal extends Schema.TaggedError<Internal>()("Internal", {
  code: fixedCode("internal_error"),
  cause
}) {
  override get message() {
    return "Internal server error"
  }
}

/** Every error of the engine. */
export type PixgateError =
  | ValidationError
  | InvalidJson
  | Unauthorized
  | Forbidden
  | NotFound
  | InsufficientBalance
  | Conflict
  | IdempotencyMismatch
  | Refused
  | GatewayUnavailable
  | StorageUnavailable
  | Internal

/** The schema of every error (tagged by `_tag`). */
export const PixgateError = Schema.Union(
  ValidationError,
  InvalidJson,
  Unauthorized,
  Forbidden,
  NotFound,
  InsufficientBalance,
  Conflict,
  IdempotencyMismatch,
  Refused,
  GatewayUnavailable,
  StorageUnavailable,
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

/** The class of one error: a tagged-error schema whose instances carry a `code` and a message. */
export interface ErrorClass<E extends ErrorLike = ErrorLike> {
  new (...args: never): E
  readonly _tag: E["_tag"]
  readonly fields: Schema.Struct.Fields
}

/** What every error has, the engine's and a transport's: a tag, a stable code and a message. */
export interface ErrorLike {
  readonly _tag: string
  readonly code: string
  readonly message: string
}

const literalsOf = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.LiteralValue> =>
  SchemaAST.isLiteral(ast) ? [ast.literal] : SchemaAST.isUnion(ast) ? ast.types.flatMap(literalsOf) : []

/**
 * The codes an error class may carry, read from its `code` field's literals (the codes the
 * class declares, in order).
 */
export const codesOf = <E extends ErrorLike>(self: ErrorClass<E>): ReadonlyArray<E["code"]> => {
  const field = SchemaAST.getPropertySignatures(Schema.Struct(self.fields).ast).find((p) => p.name === "code")
  return field === undefined
    ? []
    : literalsOf(field.type).filter((code): code is E["code"] => typeof code === "string")
}

/** Every code of the engine's errors. */
export type Code = PixgateError["code"]

const owners: ReadonlyMap<string, PixgateError["_tag"]> = new Map(
  PixgateError.members.flatMap((member) =>
    codesOf<PixgateError>(member).map((code) => [code, member._tag] as const)
  )
)

const decodeError = Schema.decodeUnknownOption(PixgateError)

const notFoundSuffix = " not found"

/**
 * The error a body `{ error, code, details? }` stands for (the inverse of `body`), found by its
 * code among the classes' declared codes; none when no class declares the code. The fields a body
 * does not carry are read from its message (`<resource> not found`, the gateway operation's
 * message) or left out.
 */
export const fromBody = (body: ErrorBody): Option.Option<PixgateError> => {
  const tag = owners.get(body.code)
  if (tag === undefined) return Option.none()
  const details = body.details === undefined ? {} : { details: body.details }
  const fields =
    tag === "ValidationError"
      ? { message: body.error, details: body.details ?? [] }
      : tag === "Refused" || tag === "Forbidden"
        ? { message: body.error }
        : tag === "NotFound"
          ? body.error.endsWith(notFoundSuffix) && body.error !== "Not found"
            ? { resource: body.error.slice(0, -notFoundSuffix.length) }
            : {}
          : tag === "GatewayUnavailable"
            ? {
                operation:
                  body.error === chargeGatewayMessage
                    ? "charge"
                    : body.error === refundGatewayMessage
                      ? "refund"
                      : "payout"
              }
            : details
  return decodeError({ _tag: tag, code: body.code, ...fields })
}

/**
 * Server-side failures: the input was not at fault, and nothing may have been done (the bank or
 * the storage failed, or a bug). Every other error is a refusal of the request as it stands.
 */
export const isServerSide = (
  error: PixgateError
): error is GatewayUnavailable | StorageUnavailable | Internal =>
  error._tag === "GatewayUnavailable" || error._tag === "StorageUnavailable" || error._tag === "Internal"

/** The error body of docs/decisions.md: `{ error, code, details? }` (`details` absent or undefined when none). */
export interface ErrorBody {
  readonly error: string
  readonly code: string
  readonly details?: ReadonlyArray<ErrorDetail> | undefined
}

/** The error body of docs/decisions.md: `{ error, code, details? }` (of any error with a code). */
export const body = (
  error: ErrorLike & { readonly details?: ReadonlyArray<ErrorDetail> | undefined }
): ErrorBody => {
  const details = error.details
  return details === undefined
    ? { error: error.message, code: error.code }
    : { error: error.message, code: error.code, details }
}

const replays = new WeakSet<ErrorLike>()

/** Marks an error as the idempotent replay of an earlier request's answer. */
export const replayed = <E extends ErrorLike>(error: E): E => {
  replays.add(error)
  return error
}

/** True when the error is the idempotent replay of an earlier request's answer. */
export const isReplayed = (error: ErrorLike): boolean => replays.has(error)

/** A 422 for one invalid field. */
export const validation = (code: ValidationCode, path: string, message: string): ValidationError =>
  new ValidationError({ code, message, details: [{ path, message }] })

/** `Invalid JSON body`, with what was wrong when known (e.g. the content type). */
export const invalidJson = (details?: ReadonlyArray<ErrorDetail>): InvalidJson =>
  new InvalidJson(details === undefined ? {} : { details })

/** `Unauthorized`. */
export const unauthorized = (): Unauthorized => new Unauthorized()

/** 403: the admin token's scope does not allow the operation (the message says which it needs). */
export const forbidden = (message: string): Forbidden => new Forbidden({ message })

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
