/**
 * A Router as Node's `(req, res, next?)` handler (node:http, Express, Connect, Fastify's raw
 * request): the one dispatcher core (Dispatch) fed by the Node transport. Everything of
 * `WebHandler.ts` (the web handler) is here too, so `Handler` of `@pixgate/http/node` has both.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { Errors } from "@pixgate/core"
import { ClientAddress } from "@pixgate/core/node"
import type { Runtime } from "effect"
import * as Dispatch from "./Dispatch.js"
import * as NodeTransport from "./NodeTransport.js"
import * as Respond from "./Respond.js"
import type * as Router from "./Router.js"
import { statusOf } from "./Status.js"
import type { HandlerOptions } from "./WebHandler.js"

export * from "./WebHandler.js"

/** A Node/Express/Connect request handler. `next` is only called when `fallthrough` is on. */
export type NodeHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void
) => void

/** The Node handler of `router` on `runtime`; `trust` says which proxies' forwarded addresses to believe. */
export const node = <R>(
  runtime: Runtime.Runtime<R>,
  router: Router.Router<R>,
  options: HandlerOptions & { readonly trust?: ClientAddress.Trust }
): NodeHandler => {
  const dispatch = Dispatch.make(runtime, router, options.log)
  const limit = options.maxBodySize
  const fallthrough = options.fallthrough === true
  const trust = options.trust ?? ClientAddress.none
  return (req, res, next) => {
    const cancel = dispatch(NodeTransport.exchange(req, res, limit, trust), fallthrough ? next : undefined)
    if (cancel === undefined) return
    res.on("close", () => {
      if (!res.writableEnded) cancel()
    })
  }
}

/** An Express/Connect error middleware: `(error, req, res, next)`. */
export type NodeErrorHandler = (
  error: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void
) => void

/**
 * Answers the errors of a body parser mounted before Pixgate (Express's `express.json()`, i.e.
 * body-parser, which marks them with `type` and `status`) with Pixgate's error body instead of
 * the host's HTML error page: a malformed body is 400 `Invalid JSON body`, a body above the
 * parser's limit is 413. Any other error goes on to the host's next error handler.
 */
export const bodyParserErrors: NodeErrorHandler = (error, _req, res, next) => {
  const type = typeof error === "object" && error !== null ? (error as { type?: unknown }).type : undefined
  const answer =
    type === "entity.parse.failed" || type === "encoding.unsupported" || type === "charset.unsupported"
      ? Errors.invalidJson()
      : type === "entity.too.large"
        ? Respond.payloadTooLarge()
        : undefined
  if (answer === undefined || res.headersSent) return next(error)
  const body = JSON.stringify(Errors.body(answer))
  res.writeHead(statusOf(answer), {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body)
  })
  res.end(body)
}
