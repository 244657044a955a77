/**
 * Requests by route and status, and their latency: the one place both ways of serving the API
 * record them (the native dispatcher and the `HttpApiBuilder` layer). The route label is the
 * route's template (`/api/v1/transactions/:id`), never the request's path, so ids and secrets
 * in paths stay out of the labels and the series stay bounded; requests no route took are
 * `unmatched`. Label arrays are made once per route, method and status, so an update is a map
 * lookup and two additions.
 */
import { Exemplars, Metrics } from "@pixgate/core"
import { Effect, FiberRef, FiberRefs, Metric, type Runtime, Tracer } from "effect"

/** Requests answered, by method, route template and status. */
export const requests = Metric.counter("pixgate_http_requests_total", {
  incremental: true,
  description: "HTTP requests answered, by method, route template and status"
})

const durationName = "pixgate_http_request_duration_seconds"

/** How long requests took, from arrival to answer, by method, route template and status. */
export const duration = Metric.histogram(
  durationName,
  Metrics.latencyBuckets,
  "HTTP request duration in seconds, by method, route template and status"
)

/** The route label of requests no route took (404, 405, 410, and the host's own paths). */
export const unmatched = "unmatched"

const names = ["method", "route", "status"] as const

// Any text can be a method: others than these count as OTHER, to keep the label bounded.
const methods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/** Records one answered request; its `span` (when traced) is the latency's exemplar. */
export const record = (
  method: string,
  route: string,
  status: number,
  durationMs: number,
  span?: Tracer.AnySpan
): void => {
  const tags = Metrics.labels(names, [methods.has(method) ? method : "OTHER", route, String(status)])
  requests.unsafeUpdate(1, tags)
  duration.unsafeUpdate(durationMs / 1000, tags)
  if (span !== undefined) Exemplars.record(durationName, tags, durationMs / 1000, Date.now(), span)
}

/** Whether `runtime` creates real spans (a tracer is enabled): only then is a request span made. */
export const tracing = <R>(runtime: Runtime.Runtime<R>): boolean =>
  FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentTracerEnabled)

const traceparent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** The caller's span from a W3C `traceparent` header (version 00), when it is well formed. */
export const callerSpan = (header: string | undefined): Tracer.ExternalSpan | undefined => {
  const match = header === undefined ? null : traceparent.exec(header.trim())
  if (match === null || /^0+$/.test(match[1]) || /^0+$/.test(match[2])) return undefined
  return Tracer.externalSpan({
    traceId: match[1],
    spanId: match[2],
    sampled: (Number.parseInt(match[3], 16) & 1) === 1
  })
}

/**
 * `effect` in the request's server span, named by method and route template; a child of the
 * caller's span when the request carries a `traceparent`, so a platform's trace continues here.
 * `made` receives the span (the request's latency exemplar).
 */
export const span = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  method: string,
  route: string,
  caller: string | undefined,
  made?: (span: Tracer.Span) => void
): Effect.Effect<A, E, R> => {
  const parent = callerSpan(caller)
  return Effect.useSpan(
    `${method} ${route}`,
    { kind: "server", attributes: { "http.request.method": method, "http.route": route }, parent },
    (span) => {
      made?.(span)
      return Effect.withParentSpan(effect, span)
    }
  )
}
