/**
 * A Router as the two handler shapes hosts use: Node's `(req, res, next?)` (node:http,
 * Express, Connect, Fastify's raw request) and the web's `(Request) => Promise<Response>`.
 * Both are the one dispatcher core (Dispatch) fed by a transport; neither touches the host's
 * globals.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { Errors } from "@pixgate/core"
import type { Runtime } from "effect"
import * as Dispatch from "./Dispatch.js"
import type * as Log from "./Log.js"
import * as NodeTransport from "./NodeTransport.js"
import * as Respond from "./Respond.js"
import type * as Router from "./Router.js"
import { statusOf } from "./Status.js"
import * as WebTransport from "./WebTransport.js"

/** A Node/Express/Connect request handler. `next` is only called when `fallthrough` is on. */
export type NodeHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void
) => void

/**
 * What a web host may tell the handler about one request, as its second argument (Hono's
 * `app.mount(path, handler, { optionHandler })` passes what `optionHandler` returns).
 */
export interface WebContext {
  /**
   * The body a host middleware already read, whose stream is therefore used up (Hono's
   * `c.req.json()`): the parsed JSON value, its text or bytes, or a promise of one (a rejected
   * promise is 400 `Invalid JSON body`). The Content-Type check and the size limit still apply.
   */
  readonly body?: unknown
  /**
   * The prefix the host strips before calling the handler (Hono's `app.mount("/payments", ...)`):
   * the OpenAPI document's `servers` URL and the docs page include it.
   */
  readonly mountPath?: string
}

/** A web-standard handler (Deno, Bun, Cloudflare-style hosts, Hono, Next.js route handlers). */
export type WebHandler = (request: Request, context?: WebContext) => Promise<Response>

/** How a handler serves its router. */
export interface HandlerOptions {
  /** Largest accepted body in bytes. */
  readonly maxBodySize: number
  /** Where access lines and defects go: the writer of the runtime's logger, to keep one order. */
  readonly log: Log.Writer
  /**
   * With a `next` from the host (Express, Connect): requests for paths the router does not
   * know go to `next()` instead of a 404.
   */
  readonly fallthrough?: boolean
  /** The web handler's default `WebContext.mountPath`, for hosts that strip a prefix. */
  readonly mountPath?: string
}

/** The Node handler of `router` on `runtime`. */
export const node = <R>(
  runtime: Runtime.Runtime<R>,
  router: Router.Router<R>,
  options: HandlerOptions
): NodeHandler => {
  const dispatch = Dispatch.make(runtime, router, options.log)
  const limit = options.maxBodySize
  const fallthrough = options.fallthrough === true
  return (req, res, next) => {
    const cancel = dispatch(NodeTransport.exchange(req, res, limit), fallthrough ? next : undefined)
    if (cancel === undefined) return
    res.on("close", () => {
      if (!res.writableEnded) cancel()
    })
  }
}

/** The web handler of `router` on `runtime`. */
export const web = <R>(
  runtime: Runtime.Runtime<R>,
  router: Router.Router<R>,
  options: Pick<HandlerOptions, "maxBodySize" | "log" | "mountPath">
): WebHandler => {
  const dispatch = Dispatch.make(runtime, router, options.log)
  const limit = options.maxBodySize
  const mountPath = options.mountPath ?? ""
  // Most hosts pass no context: that case is built once.
  const none = WebTransport.context(undefined, mountPath)
  return (request, context) =>
    new Promise((resolve) => {
      const host = context === undefined ? none : WebTransport.context(context, mountPath)
      const cancel = dispatch(WebTransport.exchange(request, limit, resolve, host))
      if (cancel !== undefined) request.signal?.addEventListener("abort", cancel, { once: true })
    })
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
