/**
 * Embedding Pixgate in a web-standard host: `await Pixgate.make({ store })` builds the engine
 * once, eagerly (a store that cannot open fails here, not on the first request), and returns
 * the `(Request) => Promise<Response>` handler (`webHandler`) and the optional admin router's,
 * on one ManagedRuntime. `dispose()` stops the job worker and closes the store. Tracing is off
 * unless asked for: spans nobody exports are pure cost. Nothing here imports a node built-in;
 * `@pixgate/http/node` builds on it (node handlers, node:http webhook transport, the panel).
 */
import type { HttpClient } from "@effect/platform"
import {
  type BankGateway,
  Engine,
  type GatewayPlugin,
  type Mail,
  SpanHygiene,
  type Store,
  TraceContext,
  WebhookTransport
} from "@pixgate/core"
import { Cause, Context, Effect, Exit, Layer, ManagedRuntime, Redacted, type Ref, type Runtime } from "effect"
import * as AdminRoutes from "./AdminRoutes.js"
import * as BankCallbacks from "./BankCallbacks.js"
import * as Body from "./Body.js"
import * as Log from "./Log.js"
import * as PublicRoutes from "./PublicRoutes.js"
import * as RateLimit from "./RateLimit.js"
import * as Respond from "./Respond.js"
import * as Router from "./Router.js"
import * as WebHandler from "./WebHandler.js"

/** How to build an embedded Pixgate. */
export interface PixgateOptions {
  /**
   * Storage: `MemoryStore.layer`, `SqliteStore.layer({ filename })`, `PgStore.layer({ url })`
   * (by URL instead: `database` of `@pixgate/server`'s `Pixgate.make`).
   */
  readonly store: Layer.Layer<Store.Store, unknown>
  /** E-mail (`@pixgate/server`'s `Smtp.layer`): the panel's invitations, password resets, notifications. */
  readonly mailer?: Layer.Layer<Mail.Mailer, unknown>
  /** Engine options: configuration overrides, live bank gateway, `worker: false`, host resolver. */
  readonly engine?: Engine.EngineOptions
  /**
   * The live bank gateway as a layer (e.g. `ApiPix.layerNode(settings)` of
   * `@pixgate/gateway-apipix`); without one (nor `engine.liveGateway`), live keys answer 502.
   */
  readonly liveGateway?: Layer.Layer<BankGateway.LiveGateway, unknown>
  /**
   * The live bank gateway as a configured plugin (`GatewayPlugin.configure(plugin, settings)`),
   * instead of `liveGateway`: its settings are checked at start.
   */
  readonly gateway?: GatewayPlugin.Configured
  /**
   * Serves the live bank's callbacks at `/bank/callbacks/<secret>[/pix]` (under `basePath`).
   * The secret is the route's authentication: long and random (at least 32 characters).
   */
  readonly bankCallbacks?: { readonly secret: string | Redacted.Redacted<string> }
  /**
   * An Effect HttpClient to deliver webhooks through, e.g. one with a proxy or custom TLS
   * (default: the host's `fetch`; `@pixgate/http/node`: node:http with keep-alive agents).
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
  /**
   * Per-API-key token bucket (default 50 requests/s, burst 100), or `false` for none. On
   * Postgres the bucket is shared by every instance on the database (`shared: false` keeps it
   * per process).
   */
  readonly rateLimit?: RateLimit.RateLimitOptions | false
  /**
   * Enables the admin router (merchant panel operations, the admin audit log): callers present an
   * admin token as `Authorization: Bearer <token>`, a stored one (`pxa_...`, created with
   * `AdminTokens.create` or `pixgate admin-token create`, its scope saying what it may do) or
   * `token` (full scope, named `env`). Without `token`, the router answers 404 until a stored
   * token exists.
   */
  readonly admin?: {
    readonly token?: string | Redacted.Redacted<string>
    /** A prefix the host does not strip (the standalone server uses `/admin`). */
    readonly basePath?: string
  }
  /** Structured JSON logs (default: `info` to stdout). */
  readonly log?: Log.LogOptions
  /**
   * Let the runtime create Effect spans (the engine's and @effect/sql's), for hosts that compose
   * `layer(options)` with a tracer such as @effect/opentelemetry's (or give it as `telemetry`);
   * webhooks then carry the `traceparent` of the request that caused them. Default `false`.
   */
  readonly tracing?: boolean
  /**
   * Layers the runtime is built over, e.g. @effect/opentelemetry's tracer and metric readers
   * (the standalone server's `Telemetry`). Spans need `tracing` too.
   */
  readonly telemetry?: Layer.Layer<never>
}

/** The web handler of one router. */
export interface Handlers {
  readonly webHandler: WebHandler.WebHandler
}

/** Services the handlers run on; use `runtime` to call the engine directly. */
export type Services = Engine.Engine | Store.Store | RateLimit.RateLimiter

/** A running embedded Pixgate. */
export interface Pixgate extends Handlers {
  /** The admin router's handler, when `admin` was configured. */
  readonly admin: Handlers | undefined
  /** The engine's runtime, e.g. `runtime.runPromise(Effect.flatMap(Engine.Engine, (e) => ...))`. */
  readonly runtime: ManagedRuntime.ManagedRuntime<Services, unknown>
  /**
   * Set it to `true` when the host starts a graceful stop (`Effect.runSync(Ref.set(pixgate.draining,
   * true))`): `/api/health/ready` answers 503 `instance: "draining"` from then on, so load
   * balancers stop sending new requests while those in flight finish.
   */
  readonly draining: Ref.Ref<boolean>
  /** Stops the job worker (letting running jobs finish) and closes the store. */
  readonly dispose: () => Promise<void>
}

const isMessage = (value: unknown): value is { readonly message: string } =>
  typeof value === "object" && value !== null && typeof (value as { message?: unknown }).message === "string"

const check = (ok: boolean, message: string) => {
  if (!ok) throw new TypeError(`Pixgate: ${message}`)
}

const storeOf = (options: PixgateOptions): Layer.Layer<Store.Store, unknown> => {
  // Checked at run time too: JavaScript callers (and a `database` given to this entry) get a
  // message instead of an engine without storage.
  if (options.store === undefined)
    throw new TypeError(
      "Pixgate: give a store (e.g. SqliteStore.layer({ filename })), or a database URL to @pixgate/server"
    )
  return options.store
}

/**
 * The tracer the runtime uses: the telemetry's (or the host's), every span cleaned on its way out
 * (`SpanHygiene`: no stack or file path, refusals not errors, secrets masked, URLs by origin).
 */
const tracer = (options: PixgateOptions): Layer.Layer<never> => {
  const telemetry = options.telemetry ?? Layer.empty
  return options.tracing === true
    ? SpanHygiene.layer({ isRefusal: Respond.isRefusal }).pipe(Layer.provideMerge(telemetry))
    : telemetry
}

/**
 * The layer behind the handlers: engine over the store and webhook transport (`httpClient`, else
 * `defaultTransport`: the host's fetch here, node:http in `@pixgate/http/node`), limiter (over
 * the store's shared buckets when it has them), the logger on `writer`, tracing on or off.
 */
export const layer = (
  options: PixgateOptions,
  writer: Log.Writer = Log.writer(options.log),
  defaultTransport: Layer.Layer<WebhookTransport.WebhookTransport> = WebhookTransport.fetch
): Layer.Layer<Services, unknown> =>
  Layer.mergeAll(
    Engine.layer(
      options.gateway === undefined
        ? options.engine
        : { defaultGatewayName: options.gateway.name, ...options.engine }
    ).pipe(
      Layer.provide(options.liveGateway ?? options.gateway?.layer ?? Layer.empty),
      Layer.provide(
        options.httpClient === undefined
          ? defaultTransport
          : WebhookTransport.fromHttpClient.pipe(Layer.provide(options.httpClient))
      )
    ),
    // Sees the store's shared buckets when it offers them (Postgres).
    RateLimit.layer(options.rateLimit ?? RateLimit.defaults)
  ).pipe(
    Layer.provideMerge(Layer.merge(storeOf(options), options.mailer ?? Layer.empty)),
    Layer.provideMerge(
      Layer.mergeAll(
        Log.layer(writer),
        Layer.setTracerEnabled(options.tracing === true),
        options.tracing === true ? Layer.succeed(TraceContext.Propagation, true) : Layer.empty,
        tracer(options)
      )
    )
  )

/** A built engine and its routers, before they become handlers (shared by both entries). */
export interface Assembled {
  readonly runtime: ManagedRuntime.ManagedRuntime<Services, unknown>
  readonly rt: Runtime.Runtime<Services>
  readonly writer: Log.Writer
  readonly maxBodySize: number
  readonly mountPath: string
  /** The public API (and the bank's callbacks when configured). */
  readonly api: Router.Router<Services>
  /** The admin router, when `admin` was configured. */
  readonly admin: Router.Router<Services> | undefined
  /** The engine's draining flag (`Pixgate.draining`). */
  readonly draining: Ref.Ref<boolean>
  readonly dispose: () => Promise<void>
}

/**
 * Checks the options, builds the engine (rejecting when it cannot start, e.g. the store) and
 * its routers. `make` here and in `@pixgate/http/node` turn them into handlers.
 */
export const assemble = async (
  options: PixgateOptions,
  defaultTransport?: Layer.Layer<WebhookTransport.WebhookTransport>
): Promise<Assembled> => {
  check(
    options.liveGateway === undefined || options.gateway === undefined,
    "give liveGateway or gateway, not both"
  )
  const maxBodySize = options.maxBodySize ?? Body.defaultMaxBodySize
  check(Number.isSafeInteger(maxBodySize) && maxBodySize > 0, "maxBodySize must be a positive integer")
  const token = options.admin?.token
  const secret = token === undefined ? undefined : Redacted.isRedacted(token) ? token : Redacted.make(token)
  check(secret === undefined || Redacted.value(secret).length > 0, "admin.token must not be empty")

  const writer = Log.writer(options.log)
  const runtime = ManagedRuntime.make(layer(options, writer, defaultTransport))
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
  const api = Router.make<Services>([...PublicRoutes.routes(basePath), ...callbacks], {
    removed: PublicRoutes.removed,
    basePath
  })
  const adminBase = Router.normalizeBasePath(options.admin?.basePath)
  const admin =
    options.admin === undefined
      ? undefined
      : Router.make<Services>(AdminRoutes.routes(secret, adminBase), { basePath: adminBase })
  if (secret !== undefined && Redacted.value(secret).length < 16) {
    await runtime.runPromise(
      Effect.logWarning("The admin token is shorter than 16 characters; use a long random one")
    )
  }

  let disposed: Promise<void> | undefined
  return {
    runtime,
    rt: exit.value,
    writer,
    maxBodySize,
    mountPath: Router.normalizeBasePath(options.mountPath),
    api,
    admin,
    draining: Context.get(exit.value.context, Engine.Engine).health.draining,
    dispose: () => {
      disposed ??= runtime.dispose().finally(writer.flush)
      return disposed
    }
  }
}

/** The web handler of one of `built`'s routers. */
export const webHandlers = (built: Assembled, router: Router.Router<Services>): Handlers => ({
  webHandler: WebHandler.web(built.rt, router, {
    maxBodySize: built.maxBodySize,
    log: built.writer,
    mountPath: built.mountPath
  })
})

/** Builds the engine and its web handlers; rejects when the engine cannot start (e.g. the store). */
export const make = async (options: PixgateOptions): Promise<Pixgate> => {
  const built = await assemble(options)
  return {
    ...webHandlers(built, built.api),
    admin: built.admin === undefined ? undefined : webHandlers(built, built.admin),
    runtime: built.runtime,
    draining: built.draining,
    dispose: built.dispose
  }
}
