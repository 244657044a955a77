/**
 * The standalone server's metrics and traces, all off unless configured. Metrics are the
 * engine's Effect `Metric`s (`@pixgate/core` `Metrics`, the transport's, the PSP client's),
 * bridged to OpenTelemetry by `@effect/opentelemetry` and read by OpenTelemetry's Prometheus
 * exporter, which serves them as Prometheus text at `/metrics`: on the main port behind the
 * admin token, or on a port of its own (for a scraper on a private network). With an OTLP
 * endpoint, metrics and traces are also pushed there over OTLP/HTTP (`@effect/opentelemetry`'s
 * own exporters, protobuf or JSON). Metrics leave shaped (`MetricExport`: units, no Effect
 * runtime metrics, exemplars), traces sampled (`Sampler`). docs/operations.md has the variables
 * and every metric.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { OtlpMetrics, OtlpTracer } from "@effect/opentelemetry"
import { FetchHttpClient } from "@effect/platform"
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus"
import { Duration, Effect, Layer } from "effect"
import * as MetricExport from "./MetricExport.js"
import * as Sampler from "./Sampler.js"

/** OTLP/HTTP export of traces and metrics. */
export interface OtlpOptions {
  /** Where traces go, e.g. `http://collector:4318/v1/traces` (none: no traces). */
  readonly tracesUrl?: string
  /** Where metrics go, e.g. `http://collector:4318/v1/metrics` (none: not pushed). */
  readonly metricsUrl?: string
  /** `http/protobuf` (default, as OpenTelemetry's) or `http/json`. */
  readonly protocol?: "http/protobuf" | "http/json"
  /** Headers of every export request, e.g. an API key of the collector. */
  readonly headers?: Readonly<Record<string, string>>
  /** How often metrics are pushed (default 60 s). */
  readonly metricsIntervalMs?: number
  /** How often finished spans are sent (default 5 s). */
  readonly tracesIntervalMs?: number
  /** Which traces are sent (default OpenTelemetry's: `parentbased_always_on`). */
  readonly sampling?: Sampler.Sampling
}

/** What the server exports. */
export interface TelemetryOptions {
  /**
   * Prometheus text at `/metrics`: `"admin"` on the server's own port behind an admin token of
   * any scope (`Authorization: Bearer <token>`), or `{ port, host }` on a listener of its own
   * without a token (host default 127.0.0.1: keep it on a private network).
   */
  readonly metrics?: "admin" | { readonly port: number; readonly host?: string }
  readonly otlp?: OtlpOptions
  /** The service name in exported data (default `pixgate`). */
  readonly serviceName?: string
  /**
   * Check the ledger of both modes this often (`pixgate_ledger_check_*`, and an error log line
   * when it finds a problem); off by default. It reads the whole journal: run it on one instance.
   */
  readonly ledgerCheckIntervalMs?: number
}

/**
 * Whether an `Authorization` header may read `/metrics` on the main port: an admin token of any
 * scope may; `unavailable` when the store did not answer.
 */
export type Authorize = (authorization: string | undefined) => Promise<"ok" | "unauthorized" | "unavailable">

/** The server's telemetry while it runs. */
export interface Telemetry {
  /** Layers for the engine's runtime: the tracer and the metric readers. */
  readonly layer: Layer.Layer<never> | undefined
  /** Whether the runtime should create spans (a tracer exports them). */
  readonly tracing: boolean
  /** Answers `/metrics` on the main port when it is served there; false for any other request. */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => boolean
  /** The metrics listener's URL, when it has its own. */
  readonly metricsUrl: string | undefined
  /** Stops the metrics listener. */
  readonly close: () => Promise<void>
}

/** Where the metrics are served. */
export const metricsPath = "/metrics"

const isMetricsPath = (url: string) => url === metricsPath || url.startsWith(`${metricsPath}?`)

const refuse = (res: ServerResponse, status: number, error: string, code: string) => {
  const body = JSON.stringify({ error, code })
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    ...(status === 401 ? { "www-authenticate": "Bearer" } : {}),
    ...(status === 503 ? { "retry-after": "1" } : {})
  })
  res.end(body)
}

const listen = (server: Server, port: number, host: string) =>
  new Promise<AddressInfo>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      resolve(server.address() as AddressInfo)
    })
  })

const otlpLayer = (options: OtlpOptions, resource: { readonly serviceName: string }): Layer.Layer<never> => {
  const common = { resource, headers: options.headers }
  const tracer =
    options.tracesUrl === undefined
      ? Layer.empty
      : Layer.unwrapScoped(
          Effect.map(
            OtlpTracer.make({
              ...common,
              url: options.tracesUrl,
              exportInterval: Duration.millis(options.tracesIntervalMs ?? 5_000)
            }),
            (tracer) => Layer.setTracer(Sampler.tracer(tracer, options.sampling ?? Sampler.defaults))
          )
        )
  const metrics =
    options.metricsUrl === undefined
      ? Layer.empty
      : OtlpMetrics.layer({
          ...common,
          url: options.metricsUrl,
          exportInterval: Duration.millis(options.metricsIntervalMs ?? 60_000)
        })
  return Layer.merge(tracer, metrics).pipe(
    Layer.provide(MetricExport.serializationLayer(options.protocol === "http/json")),
    Layer.provide(FetchHttpClient.layer)
  )
}

/**
 * Sets up what `options` asks for (nothing when it is empty): the metrics listener is listening
 * when this resolves. `authorize` guards `/metrics` on the main port.
 */
export const start = async (
  options: TelemetryOptions,
  authorize: Authorize | undefined
): Promise<Telemetry> => {
  const serviceName = options.serviceName ?? "pixgate"
  const metrics = options.metrics
  if (metrics === "admin" && authorize === undefined)
    throw new TypeError("Pixgate: metrics behind the admin token need an admin token")
  const exporter =
    metrics === undefined
      ? undefined
      : new PrometheusExporter({ preventServerStart: true, withoutScopeInfo: true })
  const layers: Array<Layer.Layer<never>> = []
  if (exporter !== undefined) layers.push(MetricExport.readerLayer(exporter, serviceName))
  if (options.otlp !== undefined) layers.push(otlpLayer(options.otlp, { serviceName }))
  const serve = (res: ServerResponse, req: IncomingMessage) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("allow", "GET, HEAD")
      return refuse(res, 405, "Method not allowed", "method_not_allowed")
    }
    exporter?.getMetricsRequestHandler(req, res)
  }

  let own: Server | undefined
  let metricsUrl: string | undefined
  if (metrics !== undefined && metrics !== "admin") {
    own = createServer((req, res) =>
      isMetricsPath(req.url ?? "/") ? serve(res, req) : refuse(res, 404, "Not found", "not_found")
    )
    const address = await listen(own, metrics.port, metrics.host ?? "127.0.0.1")
    metricsUrl = `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}${metricsPath}`
  }

  return {
    layer: layers.length === 0 ? undefined : layers.reduce((all, one) => Layer.merge(all, one)),
    tracing: options.otlp?.tracesUrl !== undefined,
    handle: (req, res) => {
      if (metrics !== "admin" || authorize === undefined || !isMetricsPath(req.url ?? "/")) return false
      void authorize(req.headers.authorization).then(
        (answer) =>
          answer === "ok"
            ? serve(res, req)
            : answer === "unavailable"
              ? refuse(res, 503, "Service temporarily unavailable", "service_unavailable")
              : refuse(res, 401, "Missing or invalid admin token", "unauthorized"),
        () => refuse(res, 503, "Service temporarily unavailable", "service_unavailable")
      )
      return true
    },
    metricsUrl,
    close: () =>
      new Promise<void>((resolve) => {
        if (own === undefined) return resolve()
        own.close(() => resolve())
        own.closeAllConnections()
      })
  }
}
