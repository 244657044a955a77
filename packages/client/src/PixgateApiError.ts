/**
 * What the promise client rejects with: `PixgateApiError` for every answer outside 2xx (the
 * server's `{ error, code, details? }` body, its status and `x-request-id`), and
 * `PixgateConnectionError` when no answer came (network failure, time-out).
 */
import type { ApiErrors } from "@pixgate/http/api"

/**
 * The stable code of an answer outside 2xx: one of the contract's codes (`ApiErrors.Code`, read
 * from its error declarations), or `unexpected_response` when the body was not an error body of
 * the contract (a proxy's page, or a code this client version does not know: the message and
 * status are still the server's).
 */
export type Code = ApiErrors.Code | "unexpected_response"

/** One field at fault in a validation failure. */
export interface ErrorDetail {
  readonly path: string
  readonly message: string
}

/** The server answered outside 2xx. `code` is the stable snake_case code to branch on. */
export class PixgateApiError extends Error {
  override readonly name = "PixgateApiError"
  /** The HTTP status, e.g. 422. */
  readonly status: number
  /** The stable code, e.g. `insufficient_balance`. */
  readonly code: Code
  /** The fields at fault, on validation failures. */
  readonly details: ReadonlyArray<ErrorDetail> | undefined
  /** The answer's `x-request-id`, to quote when asking for help. */
  readonly requestId: string | undefined
  /** Seconds to wait before retrying, from `Retry-After` (429, 503). */
  readonly retryAfter: number | undefined

  constructor(fields: {
    readonly status: number
    readonly code: Code
    readonly message: string
    readonly details?: ReadonlyArray<ErrorDetail> | undefined
    readonly requestId?: string | undefined
    readonly retryAfter?: number | undefined
  }) {
    super(fields.message)
    this.status = fields.status
    this.code = fields.code
    this.details = fields.details
    this.requestId = fields.requestId
    this.retryAfter = fields.retryAfter
  }
}

/** No answer arrived: the request could not be sent, or it timed out. Safe to retry with the same Idempotency-Key. */
export class PixgateConnectionError extends Error {
  override readonly name = "PixgateConnectionError"
}
