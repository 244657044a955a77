/**
 * A route table as an HttpApp: routing with @effect/platform's HttpRouter, then the transport's
 * rules: 410 for removed paths, 405 (with `Allow`) for a known path with another method, 404
 * otherwise; every failure as the DECISIONS.md error body; a defect is a logged 500, never a
 * crash; one structured log line per request (no keys, no bodies); an `x-request-id` header.
 */
import { type HttpApp, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Clock, Effect } from "effect"
import * as Respond from "./Respond.js"
import type * as Route from "./Route.js"

/** How a table is served. */
export interface RouterOptions {
  /** Paths (router syntax) answered with 410 for every method. */
  readonly removed?: ReadonlyArray<`/${string}`>
  /** A prefix the host does not strip, e.g. `/payments`; requests outside it get 404. */
  readonly basePath?: string
}

/** A base path in canonical form: `""` or `/segment...` without a trailing slash. */
export const normalizeBasePath = (basePath: string | undefined): string => {
  const trimmed = (basePath ?? "").trim().replace(/\/+$/, "")
  return trimmed === "" ? "" : trimmed.startsWith("/") ? trimmed : `/${trimmed}`
}

/** The path part of a request URL. */
export const pathOf = (url: string): string => {
  const at = url.indexOf("?")
  return at === -1 ? url : url.slice(0, at)
}

/** `url` without `basePath`, or undefined when it is outside it. */
export const stripBase = (url: string, basePath: string): string | undefined => {
  if (basePath === "") return url
  const path = pathOf(url)
  if (path !== basePath && !path.startsWith(`${basePath}/`)) return undefined
  const rest = url.slice(basePath.length)
  return rest.startsWith("/") ? rest : `/${rest}`
}

// Paths are case-sensitive; a trailing or doubled slash is tolerated.
const config = {
  caseSensitive: true,
  ignoreTrailingSlash: true,
  ignoreDuplicateSlashes: true,
  maxParamLength: 2048
}

const pattern = (path: string): RegExp =>
  new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z0-9_]+/g, "[^/]+")}/?$`)

/**
 * Whether a table answers a URL with anything but 404 (a route for some method, or a removed
 * path): the handlers' `fallthrough` passes the others to the host.
 */
export const claims = (
  routes: ReadonlyArray<Route.RouteDoc>,
  options: RouterOptions = {}
): ((url: string) => boolean) => {
  const patterns = [...routes.map((r) => r.path), ...(options.removed ?? [])].map(pattern)
  const basePath = normalizeBasePath(options.basePath)
  return (url) => {
    const inside = stripBase(url, basePath)
    if (inside === undefined) return false
    const path = pathOf(inside).replace(/\/{2,}/g, "/")
    return patterns.some((p) => p.test(path))
  }
}

const build = <E, R>(router: HttpRouter.HttpRouter<E, R>) =>
  Effect.runSync(HttpRouter.withRouterConfig(HttpRouter.toHttpApp(router), config))

const allowedMethods = (routes: ReadonlyArray<Route.Route<unknown>>): Map<`/${string}`, Array<string>> => {
  const byPath = new Map<`/${string}`, Array<string>>()
  for (const route of routes) {
    const methods = byPath.get(route.path) ?? []
    methods.push(route.method, ...(route.method === "GET" ? ["HEAD"] : []))
    byPath.set(route.path, methods)
  }
  return byPath
}

const requestId = (incoming: string | undefined): string =>
  incoming !== undefined && /^[A-Za-z0-9._:-]{1,128}$/.test(incoming)
    ? incoming
    : globalThis.crypto.randomUUID()

/** The HttpApp of a route table: it never fails and never dies. */
export const make = <R>(
  routes: ReadonlyArray<Route.Route<R>>,
  options: RouterOptions = {}
): HttpApp.Default<never, R> => {
  let main = HttpRouter.empty as HttpRouter.HttpRouter<Respond.Failure, R>
  for (const route of routes) main = HttpRouter.route(route.method)(main, route.path, route.run)
  for (const path of options.removed ?? [])
    main = HttpRouter.all(main, path, Effect.fail(Respond.endpointRemoved()))
  let others = HttpRouter.empty as HttpRouter.HttpRouter<Respond.Failure>
  for (const [path, methods] of allowedMethods(routes)) {
    others = HttpRouter.all(others, path, Effect.fail(Respond.methodNotAllowed(methods)))
  }
  const fallback = build(others).pipe(Effect.catchTag("RouteNotFound", () => Effect.fail(Respond.notFound())))
  const routed = build(main).pipe(Effect.catchTag("RouteNotFound", () => fallback))
  const basePath = normalizeBasePath(options.basePath)
  const scoped: Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    Respond.Failure,
    R | HttpServerRequest.HttpServerRequest
  > =
    basePath === ""
      ? routed
      : Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
          const url = stripBase(request.url, basePath)
          return url === undefined
            ? Effect.fail(Respond.notFound())
            : Effect.provideService(routed, HttpServerRequest.HttpServerRequest, request.modify({ url }))
        })

  return Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const start = yield* Clock.currentTimeMillis
    const id = requestId(request.headers["x-request-id"])
    const log = (status: number) =>
      Clock.currentTimeMillis.pipe(
        Effect.flatMap((end) =>
          Effect.logInfo("request").pipe(
            Effect.annotateLogs({
              requestId: id,
              method: request.method,
              path: pathOf(request.url),
              status,
              durationMs: end - start
            })
          )
        )
      )
    const response = yield* scoped.pipe(
      Effect.catchAll(Respond.failure),
      Effect.catchAllCause((cause) =>
        Effect.as(
          Effect.logError("Unexpected defect while handling a request", Cause.pretty(cause)).pipe(
            Effect.annotateLogs({ requestId: id })
          ),
          Respond.failure(Respond.internal())
        )
      ),
      Effect.onInterrupt(() => log(499))
    )
    yield* log(response.status)
    return HttpServerResponse.setHeader(response, "x-request-id", id)
  })
}
