/**
 * The Node transport (`node:http`, Express, Connect, Fastify's raw request): an IncomingMessage
 * and its ServerResponse as the dispatcher's exchange. A body is read with a running byte count
 * and the stream is left open when the limit is passed, so the 413 can still be written; the
 * rest of the upload is then discarded, never buffered. When a host's body parser (e.g.
 * `express.json()` mounted before Pixgate) already consumed the stream, its `req.body` is used.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { Errors } from "@pixgate/core"
import { ClientAddress } from "@pixgate/core/node"
import { Effect } from "effect"
import * as Body from "./Body.js"
import type * as Dispatch from "./Dispatch.js"
import type { RawBody } from "./Incoming.js"
import * as Respond from "./Respond.js"
import type { ApiError } from "./TransportErrors.js"

/** An IncomingMessage as Express or Connect may leave it. */
type HostRequest = IncomingMessage & { readonly body?: unknown; readonly baseUrl?: string }

/** A body a host parser already read, as bytes or text (objects re-serialized as JSON). */
const preparsed = (body: unknown, limit: number): Effect.Effect<RawBody, ApiError> => {
  let raw: RawBody
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
const discardRest = (req: IncomingMessage) => {
  if (!req.readableEnded) req.resume()
}

const read = (req: HostRequest, limit: number): Effect.Effect<RawBody, ApiError> =>
  Effect.suspend(() => {
    if (req.readableEnded) return req.body === undefined ? Effect.succeed("") : preparsed(req.body, limit)
    if (Body.declaredTooLarge(req.headers["content-length"], limit)) {
      discardRest(req)
      return Effect.fail(Respond.payloadTooLarge())
    }
    return Effect.async<RawBody, ApiError>((resume) => {
      const chunks: Array<Buffer> = []
      let size = 0
      const stop = () => {
        req.off("data", onData)
        req.off("end", onEnd)
        req.off("error", onError)
        req.off("close", onClose)
      }
      const onData = (chunk: Buffer) => {
        size += chunk.length
        if (size <= limit) return void chunks.push(chunk)
        stop()
        discardRest(req)
        resume(Effect.fail(Respond.payloadTooLarge()))
      }
      const onEnd = () => {
        stop()
        resume(Effect.succeed(Buffer.concat(chunks, size)))
      }
      const onError = () => {
        stop()
        resume(Effect.fail(Errors.invalidJson()))
      }
      const onClose = () => {
        if (!req.readableEnded) onError()
      }
      req.on("data", onData)
      req.on("end", onEnd)
      req.on("error", onError)
      req.on("close", onClose)
      return Effect.sync(stop)
    })
  })

/** A Node request and its response, its body limited to `limit` bytes. */
class NodeExchange implements Dispatch.Exchange {
  readonly method: string
  readonly url: string
  readonly mountPath: string

  constructor(
    private readonly req: HostRequest,
    private readonly res: ServerResponse,
    private readonly limit: number,
    private readonly trust: ClientAddress.Trust
  ) {
    this.method = (req.method ?? "GET").toUpperCase()
    this.url = req.url ?? "/"
    this.mountPath = req.baseUrl ?? ""
  }

  header(name: string): string | undefined {
    const value = this.req.headers[name]
    return typeof value === "string" || value === undefined ? value : value.join(", ")
  }

  body(): Effect.Effect<RawBody, ApiError> {
    return read(this.req, this.limit)
  }

  open(answer: Respond.Answer, requestId: string): Dispatch.Channel {
    const res = this.res
    const headers: Array<string | number> = []
    for (const name in answer.headers) headers.push(name, answer.headers[name])
    headers.push("x-request-id", requestId)
    res.writeHead(answer.status, headers)
    res.flushHeaders()
    return {
      write: (text) => {
        if (!res.writableEnded) res.write(text)
      },
      end: () => {
        if (!res.writableEnded) res.end()
      },
      onClose: (f) => {
        res.once("close", f)
      }
    }
  }

  client(): string | undefined {
    const socket = this.req.socket
    return ClientAddress.of(this.trust, {
      peer: socket?.remoteAddress,
      encrypted: socket !== undefined && "encrypted" in socket && socket.encrypted === true,
      header: (name) => this.header(name)
    }).address
  }

  // Headers as a flat list: Node takes it as is, without building another object.
  send(answer: Respond.Answer, requestId: string): void {
    const res = this.res
    if (res.writableEnded) return
    const headers: Array<string | number> = []
    for (const name in answer.headers) headers.push(name, answer.headers[name])
    headers.push("content-length", Buffer.byteLength(answer.body), "x-request-id", requestId)
    res.writeHead(answer.status, headers)
    res.end(answer.body)
  }
}

/**
 * The exchange of a Node request (no body sent for HEAD: Node sends none); its client's address
 * read per `trust` (the trusted proxies; none by default).
 */
export const exchange = (
  req: HostRequest,
  res: ServerResponse,
  limit: number,
  trust: ClientAddress.Trust = ClientAddress.none
): Dispatch.Exchange => new NodeExchange(req, res, limit, trust)
