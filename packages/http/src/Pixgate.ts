/**
 * Embedding Pixgate in a host: `await Pixgate.make({ store })` builds the engine once, eagerly
 * (a store that cannot open fails here, not on the first request), and returns handlers for
 * node:http / Express / Fastify (`nodeHandler`) and web-standard hosts (`webHandler`), plus the
 * optional admin router's handlers, all on one ManagedRuntime. `dispose()` stops the job worker
 * and closes the store. Tracing is off unless asked for: spans nobody exports are pure cost.
 */
import type { HttpClient } from "@effect/platform"
import { type BankGateway, Engine, type Store, WebhookTransport } from "@pixgate/core"
import { NodeWebhookTransport } from "@pixgate/core/node"
import type { Panel } from "@pixgate/panel"
import { Cause, Effect, Exit, Layer, ManagedRuntime, Redacted } from "effect"
import * as Admin from "./Admin.js"
import * as Api from "./Api.js"
import * as BankCallbacks from "./BankCallbacks.js"
import * as Body from "./Body.js"
import * as Database from "./Database.js"
import * as Handler from "./Handler.js"
import * as Log from "./Log.js"
import * as RateLimit from "./RateLimit.js"
import type * as Route from "./Route.js"
import * as Router from "./Router.js"

/** How to build an embedded Pixgate. */
export interface PixgateOptions {
  /** Storage: `MemoryStore.layer`, `SqliteStore.layer({ filename })`, `PgStore.layer({ url })`. */
  readonly store?: Layer.Layer<Store.Store, unknown>
  /**
   * Storage by URL instead of `store`, as `PIXGATE_DATABASE` takes it: `sqlite:./data/pixgate.db`
   * (relative to the process's directory), `sqlite::memory:`, `postgres://...`.
   */
  readonly database?: string
  /** Engine options: configuration overrides, live bank gateway, `worker: false`, host resolver. */
  readonly engine?: Engine.EngineOptions
  /**
   * The live bank gateway as a layer (e.g. `ApiPix.layerNode(settings)` of
   * `@pixgate/gateway-apipix`); without one (nor `engine.liveGateway`), live keys answer 502.
   */
  readonly liveGateway?: Layer.Layer<BankGateway.LiveGateway, unknown>
  /**
   * Serves the live bank's callbacks at `/bank/callbacks/<secret>[/pix]` (under `basePath`).
   * The secret is the route's authentication: long and random (at least 32 characters).
   */
  readonly bankCallbacks?: { readonly secret: string | Redacted.Redacted<string> }
  /**
   * An Effect HttpClient to deliver webhooks through instead of Pixgate's node:http transport
   * (keep-alive agents, the cheapest per attempt), e.g. one with a proxy or custom TLS.
   */
  readonly httpClient?: Layer.Layer<HttpClient.HttpClient>
  /**
   * A path prefix the host does not strip, e.g. `/payments` for `/payments/api/v1/charges`.
   * Leave it out under Express's `app.use("/payments", handler)`, which strips it itself.
   */
  readonly basePath?: string
  /**
   * A path prefix a web host strips before calling `webHandler` (Hono's
   * `app.mount("/payments", pixgate.webHandler)`), e.g. `/payments`: the OpenAPI document's
   * `servers` URL and the docs page include it. A request's own `context.mountPath` overrides it.
   * (Express's `app.use("/payments", ...)` is seen from `req.baseUrl`, without this option.)
   */
  readonly mountPath?: string
  /** Largest request body in bytes (default 64 KiB); larger bodies get 413. */
  readonly maxBodySize?: number
  /** Per-API-key token bucket (default 50 requests/s, burst 100), or `false` for none. */
  readonly rateLimit?: RateLimit.RateLimitOptions | false
  /** With Express/Connect's `next`: pass requests for unknown paths on instead of answering 404. */
  readonly fallthrough?: boolean
  /** Enables the admin router's handlers (merchant panel operations) behind this bearer token. */
  readonly admin?: {
    readonly token: string | Redacted.Redacted<string>
    /** A prefix the host does not strip (the standalone server uses `/admin`). */
    readonly basePath?: string
  }
  /** Structured JSON logs (default: `info` to stdout). */
  readonly log?: Log.LogOptions
  /**
   * Let the runtime create Effect spans (the engine's and @effect/sql's), for hosts that compose
   * `layer(options)` with a tracer such as @effect/opentelemetry's. Default `false`.
   */
  readonly tracing?: boolean
  /**
   * The merchant panel's handlers (`pixgate.panel`), from the optional `@pixgate/panel` package:
   * `{ basePath: "/panel" }` for its own e-mail/password sign-in, or with `authenticate` to use
   * the platform's. Leave it out for no panel.
   */
  readonly panel?: Panel.PanelOptions
}

/** A pair of handlers for one router. */
export interface Handlers {
  readonly nodeHandler: Handler.NodeHandler
  readonly webHandler: Handler.WebHandler
}

/** Services the handlers run on; use `runtime` to call the engine directly. */
export type Services = Engine.Engine | Store.Store | RateLimit.RateLimiter

/** A running embedded Pixgate. */
export interface Pixgate extends Handlers {
  /**
   * Express error middleware for a body parser mounted before Pixgate: a malformed JSON body
   * gets Pixgate's 400 `Invalid JSON body` instead of the host's HTML error page. Mount it after
   * Pixgate, on the same path: `app.use("/payments", pixgate.nodeHandler, pixgate.errorHandler)`.
   */
  readonly errorHandler: Handler.NodeErrorHandler
  /** The admin router's handlers, when `admin` was configured. */
  readonly admin: Handlers | undefined
  /** The merchant panel's handlers, when `panel` was configured. */
  readonly panel: Panel.PanelHandlers | undefined
  /** The engine's runtime, e.g. `runtime.runPromise(Effect.flatMap(Engine.Engine, (e) => ...))`. */
  readonly runtime: ManagedRuntime.ManagedRuntime<Services, unknown>
  /** Stops the job worker (letting running jobs finish) and closes the store. */
  readonly dispose: () => Promise<void>
}

const isMessage = (value: unknown): value is { readonly message: string } =>
  typeof value === "object" && value !== null && typeof (value as { message?: unknown }).message === "string"

const check = (ok: boolean, message: string) => {
  if (!ok) throw new TypeError(`Pixgate: ${message}`)
}

const storeOf = (options: PixgateOptions): Layer.Layer<Store.Store, unknown> => {
  if (options.store !== undefined && options.database !== undefined)
    throw new TypeError("Pixgate: give store or database, not both")
  if (options.store !== undefined) return options.store
  if (options.database !== undefined) return Database.layer(Database.parse(options.database))
  throw new TypeError("Pixgate: give a store (e.g. SqliteStore.layer({ filename })) or a database URL")
}

/**
 * The layer behind the handlers: engine over the store and webhook transport, limiter, the logger on
 * `writer`, tracing on or off.
 */
export const layer = (
  options: PixgateOptions,
  writer: Log.Writer = Log.writer(options.log)
): Layer.Layer<Services, unknown> =>
  Layer.mergeAll(
    Engine.layer(options.engine).pipe(
      Layer.provide(options.liveGateway ?? Layer.empty),
      Layer.provideMerge(storeOf(options)),
      Layer.provide(
        options.httpClient === undefined
          ? NodeWebhookTransport.layer
          : WebhookTransport.fromHttpClient.pipe(Layer.provide(options.httpClient))
      )
    ),
    RateLimit.layer(options.rateLimit ?? RateLimit.defaults)
  ).pipe(Layer.provideMerge(Layer.merge(Log.layer(writer), Layer.setTracerEnabled(options.tracing === true))))

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
  const maxBodySize = options.maxBodySize ?? Body.defaultMaxBodySize
  check(Number.isSafeInteger(maxBodySize) && maxBodySize > 0, "maxBodySize must be a positive integer")
  const token = options.admin === undefined ? undefined : options.admin.token
  const secret = token === undefined ? undefined : Redacted.isRedacted(token) ? token : Redacted.make(token)
  check(secret === undefined || Redacted.value(secret).length > 0, "admin.token must not be empty")

  const writer = Log.writer(options.log)
  const runtime = ManagedRuntime.make(layer(options, writer))
  const exit = await Effect.runPromiseExit(runtime.runtimeEffect)
  if (Exit.isFailure(exit)) {
    await runtime.dispose()
    writer.flush()
    // One line (a store's "Cannot open ...", a listen error); the whole cause stays on `cause`.
    const error = Cause.squash(exit.cause)
    const message = (error instanceof Error || isMessage(error) ? error.message : String(error)).split(
      "\n"
    )[0]
    throw new Error(`Pixgate could not start: ${message}`, { cause: exit.cause })
  }
  const rt = exit.value

  const mountPath = Router.normalizeBasePath(options.mountPath)
  const serve = <R extends Services>(
    routes: ReadonlyArray<Route.Route<R>>,
    basePath: string,
    removed: ReadonlyArray<`/${string}`> = []
  ): Handlers => {
    const router = Router.make(routes, { removed, basePath })
    const fallthrough = options.fallthrough === true
    return {
      nodeHandler: Handler.node(rt, router, { maxBodySize, log: writer, fallthrough }),
      webHandler: Handler.web(rt, router, { maxBodySize, log: writer, mountPath })
    }
  }
  const basePath = Router.normalizeBasePath(options.basePath)
  const callbackSecret = options.bankCallbacks?.secret
  const callbacks =
    callbackSecret === undefined
      ? []
      : BankCallbacks.routes(
          Redacted.isRedacted(callbackSecret) ? callbackSecret : Redacted.make(callbackSecret)
        )
  check(
    callbackSecret === undefined ||
      (Redacted.isRedacted(callbackSecret) ? Redacted.value(callbackSecret) : callbackSecret).length >= 32,
    "bankCallbacks.secret must be at least 32 characters"
  )
  const publicHandlers = serve([...Api.routes(basePath), ...callbacks], basePath, Api.removed)
  const adminBase = Router.normalizeBasePath(options.admin?.basePath)
  const admin = secret === undefined ? undefined : serve(Admin.routes(secret, adminBase), adminBase)
  if (secret !== undefined && Redacted.value(secret).length < 16) {
    await runtime.runPromise(
      Effect.logWarning("The admin token is shorter than 16 characters; use a long random one")
    )
  }

  const panel = options.panel === undefined ? undefined : (await loadPanel()).make(rt, options.panel)

  let disposed: Promise<void> | undefined
  return {
    ...publicHandlers,
    errorHandler: Handler.bodyParserErrors,
    admin,
    panel,
    runtime,
    dispose: () => {
      disposed ??= runtime.dispose().finally(writer.flush)
      return disposed
    }
  }
}
