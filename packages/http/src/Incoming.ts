/**
 * A request as the dispatcher and the routes see it, whatever the host: Node's IncomingMessage
 * and the web's Request each become one (NodeTransport, WebTransport).
 */
import type { Effect } from "effect"
import type { ApiError } from "./TransportErrors.js"

/** A body as it came in: bytes, or text already read by a host's body parser. */
export type RawBody = Uint8Array | string

/** One request. */
export interface Incoming {
  /** Upper case. */
  readonly method: string
  /** Path and query as the host passes them (Express strips its mount path). */
  readonly url: string
  /** Where the host mounted Pixgate (Express's `baseUrl`), for the OpenAPI `servers` entry. */
  readonly mountPath: string
  /** A header by its lower-case name; repeated headers joined with `, `. */
  readonly header: (name: string) => string | undefined
  /** The body, failing with 413 once more than the transport's limit arrived. */
  readonly body: () => Effect.Effect<RawBody, ApiError>
}
