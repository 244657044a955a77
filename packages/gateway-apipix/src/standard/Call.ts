/**
 * One call to the PSP and what can come of it: an answer (its status and JSON body), or a
 * `PspError` when no answer worth reading came (its outcome is unknown).
 */
import { Data } from "effect"

/** A call that did not get an answer worth reading: its outcome is unknown. */
export class PspError extends Data.TaggedError("PspError")<{
  readonly reason: "timeout" | "transport" | "token"
  readonly message: string
  readonly cause?: unknown
}> {}

/** An answer of the PSP. */
export interface PspResponse {
  readonly status: number
  readonly body: unknown
  /** The wait a 429 or 503 asked for (`Retry-After`, ms), when it named one. */
  readonly retryAfterMs?: number
}

/** A call: method, path (with query), JSON body. */
export interface PspCall {
  readonly method: "GET" | "PUT" | "POST" | "PATCH" | "DELETE"
  readonly path: string
  readonly body?: unknown
  readonly query?: Readonly<Record<string, string>>
}
