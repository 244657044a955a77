/**
 * Request bodies on Node (`node:http`, Express, Fastify's raw request). The stream is read with
 * a running byte count and left open when the limit is passed, so the 413 can still be written;
 * the rest of the upload is then discarded, never buffered. When a host's body parser (e.g.
 * `express.json()` mounted before Pixgate) already consumed the stream, its `req.body` is used.
 */
import type { IncomingMessage } from "node:http"
import type { HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest, NodeStream } from "@effect/platform-node"
import { Errors } from "@pixgate/core"
import { Effect } from "effect"
import * as Body from "./Body.js"
import * as Respond from "./Respond.js"

/** An IncomingMessage as Express or Connect may leave it. */
type HostRequest = IncomingMessage & { readonly body?: unknown; readonly baseUrl?: string }

const incoming = (request: HttpServerRequest.HttpServerRequest): HostRequest =>
  NodeHttpServerRequest.toIncomingMessage(request) as HostRequest

/** A body a host parser already read, as bytes or text (objects re-serialized as JSON). */
const preparsed = (body: unknown, limit: number): Effect.Effect<Body.RawBody, Errors.PixgateError> => {
  let raw: Body.RawBody
  if (body instanceof Uint8Array || typeof body === "string") raw = body
  else {
    try {
      raw = JSON.stringify(body) ?? ""
    } catch {
      return Effect.fail(Errors.invalidJson())
    }
  }
  const size = typeof raw === "string" ? Buffer.byteLength(raw) : raw.length
  return size > limit ? Effect.fail(Respond.payloadTooLarge()) : Effect.succeed(raw)
}

/** Discards what is left of an upload we refused, so the connection can answer and be reused. */
const discardRest = (req: IncomingMessage) =>
  Effect.sync(() => {
    if (!req.readableEnded) req.resume()
  })

/** The Node transport with a body limit of `limit` bytes. */
export const make = (limit: number = Body.defaultMaxBodySize): Body.TransportShape => ({
  read: (request) =>
    Effect.suspend(() => {
      const req = incoming(request)
      if (req.readableEnded) return req.body === undefined ? Effect.succeed("") : preparsed(req.body, limit)
      const stream = NodeStream.fromReadable<Errors.PixgateError, Uint8Array>(
        () => req,
        () => Errors.invalidJson(),
        { closeOnDone: false }
      )
      return Body.checkDeclaredLength(request, limit).pipe(
        Effect.zipRight(Body.collect(stream, limit)),
        Effect.tapError(() => discardRest(req))
      )
    }),
  mountPath: (request) => incoming(request).baseUrl ?? ""
})
