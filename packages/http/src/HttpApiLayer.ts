/**
 * Pixgate's API mounted in an Effect application: `HttpApiBuilder` layers for every group of
 * `PixgateApi`, served by the routes the native dispatcher serves, so both ways of serving answer
 * the same bytes from one copy of what each endpoint does. The request goes through the
 * contract's steps in their order: the API key (401) and its rate limit (429, `Retry-After`) in
 * the definition's security middleware, then the route: the body (Content-Type, 413, 400
 * `Invalid JSON body`, depth, NUL), the decoders (422), `Idempotency-Key`, the handler. An
 * API-level middleware answers every failure with the error body of docs/decisions.md and what
 * the declared routes do not take from the native route table (404, 405 with `Allow`, 410,
 * HEAD, a trailing slash). Storage is the application's: the layer needs the `Engine` and the
 * `RateLimiter`, e.g. `Engine.layer()` over its own store, or `fromRuntime(pixgate.runtime)`.
 */
import {
  type HttpApi,
  HttpApiBuilder,
  HttpApiError,
  HttpLayerRouter,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { type Engine, Errors, Redaction } from "@pixgate/core"
import {
  Cause,
  type Context,
  Data,
  Effect,
  Layer,
  type ManagedRuntime,
  Option,
  Redacted,
  Stream
} from "effect"
import * as AdminRoutes from "./AdminRoutes.js"
import * as Body from "./Body.js"
import * as HttpMetrics from "./HttpMetrics.js"
import type { Incoming, RawBody } from "./Incoming.js"
import { AdminToken, ApiKey, PixgateApi } from "./PixgateApi.js"
import * as PublicRoutes from "./PublicRoutes.js"
import * as RateLimit from "./RateLimit.js"
import * as Respond from "./Respond.js"
import * as Router from "./Router.js"
import * as Security from "./Security.js"
import { statusOf } from "./Status.js"
import { type ApiError, isApiError } from "./TransportErrors.js"

/** How the layer serves the API. */
export interface HttpApiOptions {
  /** Largest request body in bytes (default 64 KiB); larger bodies get 413. */
  readonly maxBodySize?: number
  /**
   * The admin API under `/admin`, behind `Authorization: Bearer <token>`: a stored admin token, or
   * `token` (full scope). Without it every `/admin` path answers 404, as the native handlers do
   * without their `admin` option.
   */
  readonly admin?: { readonly token?: string | Redacted.Redacted<string> }
}

/** What the layer needs from the application: the engine and the per-key rate limiter. */
export type Requirements = Engine.Engine | RateLimit.RateLimiter

/** Where the admin API is mounted. */
const adminBase = "/admin"

/** The request body, counted while it streams in: 413 as soon as more than `limit` arrived. */
const readBody = (
  request: HttpServerRequest.HttpServerRequest,
  limit: number
): Effect.Effect<RawBody, ApiError> => {
  if (Body.declaredTooLarge(request.headers["content-length"], limit))
    return Effect.fail(Respond.payloadTooLarge())
  const start: { chunks: Array<Uint8Array>; size: number } = { chunks: [], size: 0 }
  return request.stream.pipe(
    Stream.mapError(() => Errors.invalidJson()),
    Stream.runFoldEffect(start, (read, chunk) => {
      read.chunks.push(chunk)
      read.size += chunk.length
      return read.size > limit ? Effect.fail(Respond.payloadTooLarge()) : Effect.succeed(read)
    }),
    Effect.map(({ chunks, size }) => {
      const bytes = new Uint8Array(size)
      let offset = 0
      for (const chunk of chunks) {
        bytes.set(chunk, offset)
        offset += chunk.length
      }
      return bytes
    })
  )
}

/** An Effect server request as the routes see a request (the native transports build the same). */
const incoming = (request: HttpServerRequest.HttpServerRequest, maxBodySize: number): Incoming => ({
  method: request.method,
  url: request.url,
  mountPath: "",
  header: (name) => request.headers[name],
  body: () => readBody(request, maxBodySize)
})

/** A native answer as an Effect response, byte for byte. */
const toResponse = (answer: Respond.Answer): HttpServerResponse.HttpServerResponse => {
  const { "content-type": contentType, ...headers } = answer.headers
  const options = { status: answer.status, headers, contentType }
  if (answer instanceof Respond.Streamed)
    return HttpServerResponse.stream(Stream.encodeText(answer.chunks), options)
  return typeof answer.body === "string"
    ? HttpServerResponse.text(answer.body, options)
    : HttpServerResponse.uint8Array(answer.body, options)
}

/** A refusal's error body; a 5xx (not a replay) is logged at warning with what went wrong underneath. */
const failed = (failure: Respond.Failure): Effect.Effect<Respond.Answer> => {
  const error = failure._tag === "Refusal" ? failure.error : failure
  const answer = Respond.failure(failure)
  return statusOf(error) >= 500 && !Errors.isReplayed(error)
    ? Effect.as(
        Effect.logWarning(
          "Request failed",
          error._tag,
          error.code,
          ("cause" in error ? error.cause : undefined) ?? ""
        ),
        answer
      )
    : Effect.succeed(answer)
}

const isFailure = (error: unknown): error is Respond.Failure =>
  isApiError(error) || error instanceof Respond.Refusal

/**
 * A refusal handed to the API-level middleware as a defect, past the definition's error
 * encoding: a refusal of a security check that its middleware does not declare (503 while
 * authenticating) or that carries headers (`Retry-After`, `WWW-Authenticate`), and under
 * `HttpLayerRouter`, whose `addHttpApi` writes declared errors before any router middleware
 * sees them, every refusal, so the answer stays the native one.
 */
class Refused extends Data.TaggedClass("@pixgate/http/HttpApiLayer/Refused")<{
  readonly failure: Respond.Failure
}> {}

/** How security checks hand over their refusals: bare `Unauthorized` as declared, or all as defects. */
type Refusals = "declared" | "defects"

const refuse =
  (refusals: Refusals) =>
  (failure: Respond.Failure): Effect.Effect<never, Errors.Unauthorized> =>
    refusals === "declared" && failure._tag === "Unauthorized"
      ? Effect.fail(failure)
      : Effect.die(new Refused({ failure }))

/** The native route tables: the public API, and the admin API when it has a token. */
interface Tables {
  readonly public: Router.Router<Requirements>
  readonly admin: Router.Router<Requirements> | undefined
}

const tables = (options: Resolved): Tables => ({
  public: Router.make(PublicRoutes.routes(""), { removed: PublicRoutes.removed }),
  admin: options.admin
    ? Router.make(AdminRoutes.routes(options.token, adminBase), { basePath: adminBase })
    : undefined
})

const isAdminPath = (url: string) => Router.stripBase(url, adminBase) !== undefined

/**
 * The template of the native route each request went to, for the metrics' route label: noted by
 * `native` when it matched the request, so the label costs no second lookup.
 */
const matched = new WeakMap<HttpServerRequest.HttpServerRequest, string>()

/** The route label of a request: as `native` matched it, or looked up (a refusal before any route ran). */
const routeOf = (tables: Tables, request: HttpServerRequest.HttpServerRequest): string => {
  const noted = matched.get(request)
  if (noted !== undefined) return noted
  const table = isAdminPath(request.url) ? tables.admin : tables.public
  const match = table?.find(request.method, request.url)
  return match?._tag === "Route" ? match.route.path : HttpMetrics.unmatched
}

const notFound = Respond.failure(Respond.notFound())
const internal = Respond.failure(Respond.internal())

/** The native answer to a request: its route's, or the table's own (404, 405, 410). */
const native = (
  tables: Tables,
  request: HttpServerRequest.HttpServerRequest,
  maxBodySize: number
): Effect.Effect<Respond.Answer, never, Requirements> => {
  const table = isAdminPath(request.url) ? tables.admin : tables.public
  const match = table?.find(request.method, request.url) ?? { _tag: "NotFound" as const }
  if (match._tag === "NotFound") return Effect.succeed(notFound)
  if (match._tag === "Refused") return Effect.succeed(match.answer)
  matched.set(request, match.route.path)
  const served = match.route.serve(incoming(request, maxBodySize), match.params)
  return served instanceof Respond.Answer ? Effect.succeed(served) : Effect.catchAll(served, failed)
}

/**
 * An endpoint the definition's router matched, served by its native route. Its security
 * middleware already authenticated the caller and took the key's rate-limit token, so the route's
 * own check runs against an unlimited limiter: one token per request, as natively.
 */
const endpoint =
  (tables: Tables, maxBodySize: number) =>
  ({ request }: { readonly request: HttpServerRequest.HttpServerRequest }) =>
    native(tables, request, maxBodySize).pipe(
      Effect.provideService(RateLimit.RateLimiter, RateLimit.unlimited),
      Effect.map(toResponse)
    )

type Serve<R = Requirements> = (request: {
  readonly request: HttpServerRequest.HttpServerRequest
}) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>

/** The security middleware: the native checks, their refusals handed over as `refusals` says. */
const security = (options: Resolved, refusals: Refusals) => {
  const check = <A, R>(route: {
    readonly check: (request: Incoming) => Effect.Effect<A, Respond.Failure, R>
  }) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      route.check(incoming(request, options.maxBodySize))
    ).pipe(Effect.catchAll(refuse(refusals)))
  const adminCheck = options.admin
    ? // The native route authenticates, checks the scope and records the write itself.
      Effect.void
    : // No admin API: its paths are unknown, as natively.
      Effect.die(new Refused({ failure: Respond.notFound() }))
  return Layer.mergeAll(
    Layer.effect(
      ApiKey,
      Effect.map(Effect.context<Requirements>(), (context) =>
        ApiKey.of({ apiKey: () => Effect.provide(check(Security.apiKey), context) })
      )
    ),
    Layer.succeed(AdminToken, AdminToken.of({ adminToken: () => adminCheck }))
  )
}

interface Resolved {
  readonly maxBodySize: number
  readonly admin: boolean
  readonly token: Redacted.Redacted<string> | undefined
}

const resolve = (options: HttpApiOptions): Resolved => {
  const token = options.admin?.token
  return {
    maxBodySize: options.maxBodySize ?? Body.defaultMaxBodySize,
    admin: options.admin !== undefined,
    token: token === undefined ? undefined : Redacted.isRedacted(token) ? token : Redacted.make(token)
  }
}

/** The removed endpoints (410), named after their paths, so served in a loop. */
const removedGroup = (serve: Serve) =>
  HttpApiBuilder.group(PixgateApi, "removed", (h) =>
    Effect.map(Effect.context<Requirements>(), (context) => {
      const gone: Serve<never> = (request) => Effect.provide(serve(request), context)
      const [last, ...others] = Object.keys(h.group.endpoints)
      let served = h
      for (const name of others) served = served.handleRaw(name, gone)
      return served.handleRaw(last, gone)
    })
  )

/**
 * Every group of the definition, each endpoint served by its native route. The names are listed
 * so the compiler holds the layer to the definition: an endpoint added there and not here fails
 * to compile. The removed endpoints (410) are named after their paths: `removedGroup` serves them.
 */
const groups = (tables: Tables, options: Resolved, refusals: Refusals) => {
  const serve: Serve = endpoint(tables, options.maxBodySize)
  return Layer.mergeAll(
    HttpApiBuilder.group(PixgateApi, "health", (h) =>
      h.handleRaw("check", serve).handleRaw("live", serve).handleRaw("ready", serve)
    ),
    HttpApiBuilder.group(PixgateApi, "charges", (h) => h.handleRaw("create", serve)),
    HttpApiBuilder.group(PixgateApi, "payouts", (h) => h.handleRaw("create", serve)),
    HttpApiBuilder.group(PixgateApi, "transactions", (h) => h.handleRaw("list", serve)),
    HttpApiBuilder.group(PixgateApi, "subscriptions", (h) =>
      h
        .handleRaw("create", serve)
        .handleRaw("list", serve)
        .handleRaw("get", serve)
        .handleRaw("cycles", serve)
        .handleRaw("cancel", serve)
        .handleRaw("retry", serve)
    ),
    HttpApiBuilder.group(PixgateApi, "events", (h) => h.handleRaw("stream", serve)),
    removedGroup(serve),
    HttpApiBuilder.group(PixgateApi, "documentation", (h) =>
      h.handleRaw("openapi", serve).handleRaw("docs", serve).handleRaw("renderer", serve)
    ),
    HttpApiBuilder.group(PixgateApi, "admin", (h) =>
      h
        .handleRaw("createMerchant", serve)
        .handleRaw("erasePayer", serve)
        .handleRaw("getMerchant", serve)
        .handleRaw("listKeys", serve)
        .handleRaw("createKey", serve)
        .handleRaw("revokeKey", serve)
        .handleRaw("setWebhook", serve)
        .handleRaw("rotateSigningKey", serve)
        .handleRaw("getWebhookStatus", serve)
        .handleRaw("getBalance", serve)
        .handleRaw("setFeePlan", serve)
        .handleRaw("getWebhookLog", serve)
        .handleRaw("invitePanelUser", serve)
        .handleRaw("createPanelResetLink", serve)
        .handleRaw("getAuditLog", serve)
        .handleRaw("sendTestEvent", serve)
        .handleRaw("redeliverEvent", serve)
        .handleRaw("sandboxTopUp", serve)
        .handleRaw("sandboxPayCharge", serve)
        .handleRaw("sandboxSettlePayout", serve)
        .handleRaw("sandboxFailPayout", serve)
        .handleRaw("sandboxOpenChargeback", serve)
        .handleRaw("sandboxResolveChargeback", serve)
    ),
    HttpApiBuilder.group(PixgateApi, "adminRefunds", (h) =>
      h.handleRaw("createRefund", serve).handleRaw("listRefunds", serve)
    ),
    HttpApiBuilder.group(PixgateApi, "adminAudit", (h) => h.handleRaw("getAdminAuditLog", serve)),
    HttpApiBuilder.group(PixgateApi, "adminInfractions", (h) =>
      h.handleRaw("listInfractions", serve).handleRaw("answerInfraction", serve)
    ),
    HttpApiBuilder.group(PixgateApi, "adminEvents", (h) => h.handleRaw("stream", serve)),
    HttpApiBuilder.group(PixgateApi, "adminGateways", (h) =>
      h
        .handleRaw("listGateways", serve)
        .handleRaw("getMerchantGateway", serve)
        .handleRaw("assignMerchantGateway", serve)
    ),
    HttpApiBuilder.group(PixgateApi, "adminWebhookOps", (h) =>
      h
        .handleRaw("resendWebhooks", serve)
        .handleRaw("getWebhookHealth", serve)
        .handleRaw("enableWebhookEndpoint", serve)
    ),
    HttpApiBuilder.group(PixgateApi, "adminSubscriptions", (h) => h.handleRaw("subscriptionPayer", serve)),
    HttpApiBuilder.group(PixgateApi, "adminDocumentation", (h) => h.handleRaw("openapi", serve))
  ).pipe(Layer.provide(security(options, refusals)))
}

/**
 * The incoming `x-request-id` when it is sane and shaped like no Pixgate secret, else a new one
 * (as the native dispatcher does).
 */
const requestId = (given: string | undefined): string =>
  given !== undefined && /^[A-Za-z0-9._:-]{1,128}$/.test(given) && !Redaction.looksSecret(given)
    ? given
    : globalThis.crypto.randomUUID()

/**
 * The API-level middleware: a failure becomes its error body (a 5xx logged at warning), a defect a
 * logged 500, and what the declared routes do not take (`RouteNotFound`: an unknown path, another
 * method, a removed path, HEAD, a trailing slash; or a path, query or header the definition's
 * own decoding refuses) gets the native answer. Every answer carries `x-request-id`.
 */
const respond = (context: Context.Context<Requirements>, tables: Tables, options: Resolved) => {
  const answered = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.catchAllCause(app, (cause) =>
      Effect.gen(function* () {
        const failure = Cause.failureOption(cause)
        if (Option.isSome(failure)) {
          const error: unknown = failure.value
          if (isFailure(error)) return toResponse(yield* failed(error))
          if (error instanceof HttpServerError.RouteNotFound) {
            const request = yield* HttpServerRequest.HttpServerRequest
            return toResponse(yield* Effect.provide(native(tables, request, options.maxBodySize), context))
          }
          // The definition refused a path, query or header after the security middleware took the
          // key's token: the native route gives the exact refusal without taking another.
          if (error instanceof HttpApiError.HttpApiDecodeError) {
            const request = yield* HttpServerRequest.HttpServerRequest
            const answer = native(tables, request, options.maxBodySize).pipe(
              Effect.provideService(RateLimit.RateLimiter, RateLimit.unlimited),
              Effect.provide(context)
            )
            return toResponse(yield* answer)
          }
        }
        const defect = Cause.dieOption(cause)
        if (Option.isSome(defect) && defect.value instanceof Refused)
          return toResponse(yield* failed(defect.value.failure))
        if (Cause.isInterruptedOnly(cause)) return yield* Effect.failCause(cause)
        yield* Effect.logError("Request failed with a defect", cause)
        return toResponse(internal)
      })
    )
  return <E, R>(
    app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const id = requestId(request.headers["x-request-id"])
      const start = Date.now()
      return Effect.map(answered(app), (response) => {
        HttpMetrics.record(request.method, routeOf(tables, request), response.status, Date.now() - start)
        return HttpServerResponse.setHeader(response, "x-request-id", id)
      })
    })
}

/**
 * Every group of `PixgateApi`, its security middleware and its answers, for `HttpApiBuilder`
 * (`HttpApiBuilder.serve()`, `toWebHandler`, `httpApp`), over the application's engine.
 */
export const layer = (options: HttpApiOptions = {}): Layer.Layer<HttpApi.Api, never, Requirements> => {
  const resolved = resolve(options)
  const native = tables(resolved)
  return Layer.merge(
    HttpApiBuilder.api(PixgateApi).pipe(Layer.provide(groups(native, resolved, "declared"))),
    HttpApiBuilder.middleware(
      PixgateApi,
      Effect.map(Effect.context<Requirements>(), (context) => respond(context, native, resolved))
    )
  )
}

/**
 * The same API for `HttpLayerRouter` applications: its routes, and the answers of the API-level
 * middleware as a global middleware of the router.
 */
export const routes = (options: HttpApiOptions = {}) => {
  const resolved = resolve(options)
  const native = tables(resolved)
  return Layer.mergeAll(
    HttpLayerRouter.addHttpApi(PixgateApi).pipe(Layer.provide(groups(native, resolved, "defects"))),
    HttpLayerRouter.middleware(
      Effect.map(Effect.context<Requirements>(), (context) => respond(context, native, resolved)),
      { global: true }
    )
  )
}

/** The services of an embedded Pixgate's runtime (`pixgate.runtime`) as a layer, to share its engine. */
export const fromRuntime = <E>(
  runtime: ManagedRuntime.ManagedRuntime<Requirements, E>
): Layer.Layer<Requirements, E> => Layer.effectContext(Effect.map(runtime.runtimeEffect, (rt) => rt.context))
