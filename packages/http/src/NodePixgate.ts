/**
 * Embedding Pixgate in a Node host: `await Pixgate.make({ store })` of `@pixgate/http/node` is
 * the web entry's `make` plus handlers for node:http / Express / Fastify (`nodeHandler`), the
 * Express body-parser error middleware, webhooks delivered over node:http (keep-alive agents,
 * the cheapest per attempt) unless `httpClient` says otherwise, and the optional merchant panel.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Engine, Store } from "@pixgate/core"
import { ClientAddress, NodeWebhookTransport } from "@pixgate/core/node"
import type { Panel } from "@pixgate/panel"
import type { Layer, Runtime } from "effect"
import * as NodeHandler from "./NodeHandler.js"
import * as Web from "./Pixgate.js"
import type * as Router from "./Router.js"
import * as Status from "./Status.js"

export type { Services } from "./Pixgate.js"

/** How to build an embedded Pixgate in a Node host. */
export interface PixgateOptions extends Web.PixgateOptions {
  /** With Express/Connect's `next`: pass requests for unknown paths on instead of answering 404. */
  readonly fallthrough?: boolean
  /**
   * Which proxies in front are trusted to report the client (`X-Forwarded-For`, `-Proto`,
   * `-Host`), as Express's `trust proxy`: `true`, a number of hops, or addresses and CIDRs
   * (`"loopback, 10.0.0.0/8"`). The client's address goes into the access lines and the panel's
   * sign-in throttle, sessions and audit log (unless the panel's options name their own).
   * Default: none, the connection's peer is the client.
   */
  readonly trustProxy?: ClientAddress.TrustProxy
  /**
   * The merchant panel's handlers (`pixgate.panel`), from the optional `@pixgate/panel` package:
   * `{ basePath: "/panel" }` for its own e-mail/password sign-in, or with `authenticate` to use
   * the platform's. Leave it out for no panel.
   */
  readonly panel?: PanelOptions
  /**
   * An HTTP proxy every webhook delivery goes through (`http://host:port`): a fixed egress for
   * receivers that allow-list addresses; the address policy still judges each target first
   * (`NodeWebhookTransport.proxyLayer`). Default: deliveries connect directly.
   */
  readonly webhookProxy?: string
}

/**
 * The merchant panel's options, as `@pixgate/panel` takes them. Declared here, not imported from
 * that optional package, so these declarations compile in a project without it (the panel's own
 * `Panel.PanelOptions` is checked against this one when this package is built).
 */
export interface PanelOptions {
  /**
   * The path prefix of the panel in the URLs it receives and the links it writes, e.g. `/panel`
   * (default). Under Express's `app.use("/panel", handler)` the prefix is read from `originalUrl`.
   */
  readonly basePath?: string
  /**
   * The platform's own sign-in: the merchant id the request acts for, or null when nobody is
   * signed in (401). With it, the panel's e-mail/password sign-in is off.
   */
  readonly authenticate?: (request: Request) => Promise<string | null | undefined> | string | null | undefined
  /**
   * Mark cookies `Secure`. Default: the environment's `PIXGATE_SECURE_COOKIES=true`, or the request
   * arrived over HTTPS (its URL, or `X-Forwarded-Proto: https` from a proxy).
   */
  readonly secureCookies?: boolean
  /** Session lifetime without activity (default 30 minutes). */
  readonly sessionIdleMs?: number
  /** Session lifetime whatever the activity (default 12 hours). */
  readonly sessionMaxMs?: number
  /** Live payouts, refunds, keys and webhook changes ask for the second factor (default true). */
  readonly requireSecondFactor?: boolean
  /** The name authenticator apps show for the panel's codes (default "Pixgate"). */
  readonly issuer?: string
  /** Sign-in throttling, shared through the store (default 5 failures per account and address, 20 per address, in 15 minutes). */
  readonly throttle?: {
    /** Failures allowed per account from one address in the window (default 5). */
    readonly perAccount?: number
    /** Failures allowed per address in the window (default 20). */
    readonly perAddress?: number
    /** The window in ms (default 15 minutes). */
    readonly windowMs?: number
  }
  /** Largest form body in bytes (default 64 KiB). */
  readonly maxBodySize?: number
  /**
   * The proxies trusted to report the client (as Express's `trust proxy`; default: the embedding
   * `Pixgate.make`'s `trustProxy`, else none): its address for the throttle, sessions and audit
   * log, and whether it came over HTTPS (secure cookies, `Strict-Transport-Security`).
   */
  readonly trustProxy?: ClientAddress.TrustProxy
  /**
   * White-label options: product name, logo (an https URL, a path, or an inline SVG), primary
   * colour (#hex, rgb() or hsl()) and support link (https, mailto or a path).
   */
  readonly brand?: {
    readonly productName?: string
    readonly logo?: string
    readonly primaryColor?: string
    readonly supportUrl?: string
  }
}

/** The merchant panel's handlers (what `@pixgate/panel` makes). */
export interface PanelHandlers {
  /** Web-standard hosts; `address` is the client's address for sign-in throttling. */
  readonly webHandler: (request: Request, info?: { readonly address?: string }) => Promise<Response>
  /** node:http, Express, Connect. */
  readonly nodeHandler: (req: IncomingMessage, res: ServerResponse) => void
  /** Whether a request path belongs to the panel (`basePath` or below). */
  readonly matches: (path: string) => boolean
}

/** What this package uses of `@pixgate/panel`: `Panel.make`. */
export interface PanelModule {
  readonly make: (
    runtime: Runtime.Runtime<Engine.Engine | Store.Store>,
    options: PanelOptions,
    /** The contract's status of each error (the panel cannot import this package: it is embedded by it). */
    statuses: ReadonlyMap<string, number>
  ) => PanelHandlers
}

/** The panel package as this one uses it: its own declarations must fit these (else this build fails). */
const asPanelModule = (panel: typeof Panel): PanelModule => panel

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
  readonly panel: PanelHandlers | undefined
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
export const panelModule = async (): Promise<PanelModule | undefined> => {
  try {
    return asPanelModule((await import("@pixgate/panel")).Panel)
  } catch {
    return undefined
  }
}

const loadPanel = async (): Promise<PanelModule> => {
  const module = await panelModule()
  if (module === undefined)
    throw new TypeError("Pixgate: the panel option needs the @pixgate/panel package installed")
  return module
}

/** Builds the engine and its handlers; rejects when the engine cannot start (e.g. the store). */
export const make = async (options: PixgateOptions): Promise<Pixgate> => {
  // A malformed trusted-proxy setting throws here, before anything is built.
  const trust = ClientAddress.compile(options.trustProxy)
  const built = await Web.assemble(
    options,
    NodeWebhookTransport.layerFor(options.webhookProxy === undefined ? {} : { proxy: options.webhookProxy })
  )
  const fallthrough = options.fallthrough === true
  const serve = (router: Router.Router<Web.Services>): Handlers => ({
    ...Web.webHandlers(built, router),
    nodeHandler: NodeHandler.node(built.rt, router, {
      maxBodySize: built.maxBodySize,
      log: built.writer,
      fallthrough,
      trust
    })
  })
  // A bad panel option (a white-label colour that is none) throws here: release what was built.
  const makePanel = async (panelOptions: PanelOptions) => {
    try {
      const trustProxy = panelOptions.trustProxy ?? options.trustProxy
      return (await loadPanel()).make(
        built.rt,
        trustProxy === undefined ? panelOptions : { ...panelOptions, trustProxy },
        Status.all
      )
    } catch (error) {
      await built.dispose()
      throw error
    }
  }
  const panel = options.panel === undefined ? undefined : await makePanel(options.panel)
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
