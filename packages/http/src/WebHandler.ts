/**
 * A Router as the web's `(Request) => Promise<Response>` handler: the one dispatcher core
 * (Dispatch) fed by the web transport, touching none of the host's globals. Node's
 * `(req, res, next?)` shape is `NodeHandler.ts` (the `@pixgate/http/node` entry).
 * Exported as `Handler` by `@pixgate/http` (and, with NodeHandler, by `@pixgate/http/node`).
 */
import type { Runtime } from "effect"
import * as Dispatch from "./Dispatch.js"
import type * as Log from "./Log.js"
import type * as Router from "./Router.js"
import * as WebTransport from "./WebTransport.js"

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
