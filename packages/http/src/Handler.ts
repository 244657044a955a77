/**
 * An HttpApp as the two handler shapes hosts use: Node's `(req, res, next?)` (node:http,
 * Express, Connect, Fastify's raw request) and the web's `(Request) => Promise<Response>`. Both
 * run on one runtime (the engine's); neither touches the host's globals.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { HttpApp } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Runtime } from "effect"
import * as Body from "./Body.js"
import * as NodeTransport from "./NodeTransport.js"

/** A Node/Express/Connect request handler. `next` is only called when `fallthrough` is on. */
export type NodeHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void
) => void

/** A web-standard handler (Deno, Bun, Cloudflare-style hosts, Hono, Next.js route handlers). */
export type WebHandler = (request: Request) => Promise<Response>

/** How a handler serves its app. */
export interface HandlerOptions {
  /** Largest accepted body in bytes. */
  readonly maxBodySize: number
  /**
   * With a `next` from the host (Express, Connect): requests this predicate does not claim go to
   * `next()` instead of a 404. Without it every request is answered.
   */
  readonly claims?: (url: string) => boolean
}

type RawNodeHandler = (req: IncomingMessage, res: ServerResponse) => void

// The transport is provided to the app's request pipeline, not to the runtime, so one runtime
// serves Node and web handlers at once.
const withTransport = <R>(app: HttpApp.Default<never, R | Body.Transport>, transport: Body.TransportShape) =>
  Effect.provideService(app, Body.Transport, transport) as HttpApp.Default<never, R>

/** The Node handler of `app` on `runtime`. */
export const node = <R>(
  runtime: Runtime.Runtime<R>,
  app: HttpApp.Default<never, R | Body.Transport>,
  options: HandlerOptions
): NodeHandler => {
  const make = NodeHttpServer.makeHandler(withTransport(app, NodeTransport.make(options.maxBodySize)))
  const handle = Runtime.runSync(runtime)(make as Effect.Effect<RawNodeHandler, never, R>)
  const claims = options.claims
  return (req, res, next) => {
    if (next !== undefined && claims !== undefined && !claims(req.url ?? "/")) return next()
    handle(req, res)
  }
}

/** The web handler of `app` on `runtime`. */
export const web = <R>(
  runtime: Runtime.Runtime<R>,
  app: HttpApp.Default<never, R | Body.Transport>,
  options: HandlerOptions
): WebHandler => {
  const handle = HttpApp.toWebHandlerRuntime(runtime)(withTransport(app, Body.web(options.maxBodySize)))
  return (request) => handle(request)
}
