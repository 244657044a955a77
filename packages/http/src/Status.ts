/**
 * The HTTP status of every engine error (core's errors carry none): the one table the router,
 * the merchant panel and the CLI read.
 */
import type { Errors } from "@pixgate/core"

const statuses = {
  ValidationError: 422,
  InvalidJson: 400,
  Unauthorized: 401,
  NotFound: 404,
  InsufficientBalance: 422,
  Conflict: 409,
  IdempotencyMismatch: 422,
  Refused: 409,
  GatewayUnavailable: 502,
  StorageUnavailable: 503,
  RateLimited: 429,
  Gone: 410,
  MethodNotAllowed: 405,
  PayloadTooLarge: 413,
  Internal: 500
} as const satisfies Record<Errors.PixgateError["_tag"], number>

/** The HTTP status of an error. */
export const statusOf = (error: Errors.PixgateError): (typeof statuses)[Errors.PixgateError["_tag"]] =>
  statuses[error._tag]
