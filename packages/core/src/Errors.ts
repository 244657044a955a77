/**
 * Every error the engine reports to a merchant. One class keeps the contract in one place: an
 * HTTP status, a stable snake_case code, the message (verbatim from the spec where it has one)
 * and, for validation failures, the fields at fault.
 */
import { Data } from "effect"

/** One field at fault in a validation failure. */
export interface ErrorDetail {
  readonly path: string
  readonly message: string
}

/** An error with its HTTP status, stable code and merchant-facing message. */
export class PixgateError extends Data.TaggedError("PixgateError")<{
  readonly status: number
  readonly code: string
  readonly message: string
  readonly details?: ReadonlyArray<ErrorDetail> | undefined
  /** Set when the error is an idempotent replay of an earlier request's answer. */
  readonly replayed?: boolean
  /**
   * `"unknown"` on a 5xx when the change may have been kept (the database connection was lost at
   * COMMIT): not a failure, so its Idempotency-Key is not released (see `Idempotency.run`).
   */
  readonly outcome?: "unknown" | undefined
  /** Seconds the client should wait before retrying (`Retry-After` of a 503). */
  readonly retryAfter?: number | undefined
  /** What went wrong underneath, for the log only: never part of the answer. */
  readonly cause?: unknown
}> {
  /** The error body of docs/decisions.md: `{ error, code, details? }`. */
  toJson(): { error: string; code: string; details?: ReadonlyArray<ErrorDetail> } {
    return this.details === undefined
      ? { error: this.message, code: this.code }
      : { error: this.message, code: this.code, details: this.details }
  }
}

/** A 422 for one invalid field. */
export const validation = (code: string, path: string, message: string): PixgateError =>
  new PixgateError({ status: 422, code, message, details: [{ path, message }] })

/** 400 `Invalid JSON body`. */
export const invalidJson = (details?: ReadonlyArray<ErrorDetail>): PixgateError =>
  new PixgateError({
    status: 400,
    code: "invalid_json",
    message: "Invalid JSON body",
    ...(details === undefined ? {} : { details })
  })

/** 401 `Unauthorized`. */
export const unauthorized = (): PixgateError =>
  new PixgateError({ status: 401, code: "unauthorized", message: "Unauthorized" })

/** 404 for an id the caller named that does not exist. */
export const notFound = (what: string): PixgateError =>
  new PixgateError({ status: 404, code: "not_found", message: `${what} not found` })

/** 422 `Insufficient balance`. */
export const insufficientBalance = (): PixgateError =>
  new PixgateError({ status: 422, code: "insufficient_balance", message: "Insufficient balance" })

/** 502 with the spec's message for the operation. */
export const gateway = (message: string, code = "gateway_error", cause?: unknown): PixgateError =>
  new PixgateError({ status: 502, code, message, ...(cause === undefined ? {} : { cause }) })

/**
 * 503 when storage is unavailable: a server-side failure, never blamed on the input. With the
 * store's error as `cause`, keeps its outcome (`"unknown"` when the change may have been kept).
 */
export const unavailable = (cause?: { readonly outcome?: "unknown" | undefined }): PixgateError =>
  new PixgateError({
    status: 503,
    code: "service_unavailable",
    message: "Service temporarily unavailable",
    ...(cause === undefined ? {} : { cause, outcome: cause.outcome })
  })

/** The spec's 502 message for payouts. */
export const payoutGatewayMessage = "Failed to process payout"
/** The spec's 502 message for charges. */
export const chargeGatewayMessage = "Failed to create charge"
