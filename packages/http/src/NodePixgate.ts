/**
 * Embedding Pixgate in a Node host: `await Pixgate.make({ store })` of `@pixgate/http/node` is
 * the web entry's `make` plus handlers for node:http / Express / Fastify (`nodeHandler`), the
 * Express body-parser error middleware, webhooks delivered over node:http (keep-alive agents,
 * the cheapest per attempt) unless `httpClient` says otherwise, and the optional merchant panel.
 */
import { NodeWebhookTransport } from "@pixgate/core/node"
import type { Panel } from "@pixgate/panel"
import type { Layer } from "effect"
import * as NodeHandler from "./NodeHandler.js"
import * as Web from "./Pixgate.js"
import type * as Router from "./Router.js"

export type { Services } from "./Pixgate.js"

/** How to build an embedded Pixgate in a Node host. */
export interface PixgateOptions extends Web.PixgateOptions {
  /** With Express/Connect's `next`: pass requests for unknown paths on instead of answering 404. */
  readonly fallthrough?: boolean
  /**
   * The merchant panel's handlers (`pixgate.panel`), from the optional `@pixgate/panel` package:
   * `{ basePath: "/panel" }` for its own e-mail/password sign-in, or with `authenticate` to use
   * the platform's. Leave it out for no panel.
   */
  readonly panel?: Panel.PanelOptions
}

/** A pair of handlers for one router. */
export interface Handlers extends Web.Handlers {
  readonly nodeHandler: NodeHandler.NodeHandler
}

/** A running embedded Pixgate. */
export interface Pixgate extends Handlers {
  /**
   * Express error middleware for a body parser mounted before Pixgate: a malformed JSON body
   * gets Pixgate's 400 `Invalid JSON body` instead of the host's HTML error page. Mount it after
   * Pixgate, on the same path: `app.use("/payments", pixgate.nodeHandler, pixgate.errorHandler)`.
   */
  readonly errorHandler: NodeHandler.NodeErrorHandler
  /** The admin router's handlers, when `admin` was configured. */
  readonly admin: Handlers | undefined
  /** The merchant panel's handlers, when `panel` was configured. */
  readonly panel: Panel.PanelHandlers | undefined
  /** The engine's runtime, e.g. `runtime.runPromise(Effect.flatMap(Engine.Engine, (e) => ...))`. */
  readonly runtime: Web.Pixgate["runtime"]
  /** The draining flag for `/api/health/ready` (see the web entry's `Pixgate.draining`). */
  readonly draining: Web.Pixgate["draining"]
  /** Stops the job worker (letting running jobs finish) and closes the store. */
  readonly dispose: () => Promise<void>
}

/** The layer behind the handlers, with webhooks over node:http unless `httpClient` is given. */
export const layer = (
  options: Web.PixgateOptions,
  writer?: Parameters<typeof Web.layer>[1]
): Layer.Layer<Web.Services, unknown> => Web.layer(options, writer, NodeWebhookTransport.layer)

/** The optional `@pixgate/panel` package, or undefined when it is not installed. */
export const panelModule = async (): Promise<typeof Panel | undefined> => {
  try {
    return (await import("@pixgate/panel")).Panel
  } catch {
    return undefined
  }
}

const loadPanel = async (): Promise<typeof Panel> => {
  const module = await panelModule()
  if (module === undefined)
    throw new TypeError("Pixgate: the panel option needs the @pixgate/panel package installed")
  return module
}

/** Builds the engine and its handlers; rejects when the engine cannot start (e.g. the store). */
export const make = async (options: PixgateOptions): Promise<Pixgate> => {
  const built = await Web.assemble(options, NodeWebhookTransport.layer)
  const fallthrough = options.fallthrough === true
  const serve = (router: Router.Router<Web.Services>): Handlers => ({
    ...Web.webHandlers(built, router),
    nodeHandler: NodeHandler.node(built.rt, router, {
      maxBodySize: built.maxBodySize,
      log: built.writer,
      fallthrough
    })
  })
  const panel = options.panel === undefined ? undefined : (await loadPanel()).make(built.rt, options.panel)
  return {
    ...serve(built.api),
    errorHandler: NodeHandler.bodyParserErrors,
    admin: built.admin === undefined ? undefined : serve(built.admin),
    panel,
    runtime: built.runtime,
    draining: built.draining,
    dispose: built.dispose
  }
}
