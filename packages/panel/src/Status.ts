/**
 * The HTTP status of a page that shows an engine error: the same table as the HTTP API's
 * (`@pixgate/http` `Status.statusOf`), kept here because the HTTP package embeds the panel.
 */
import { Errors } from "@pixgate/core"

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

/** The HTTP status of an engine error; 500 for anything else. */
export const statusOf = (error: unknown): number =>
  Errors.isPixgateError(error) ? statuses[error._tag] : 500
