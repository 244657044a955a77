/**
 * A local OTLP/HTTP receiver taking JSON: the spans sent to `/v1/traces` (by service name) and
 * the metrics bodies sent to `/v1/metrics`, kept for the test to read.
 */
import { createServer } from "node:http"
import { listen } from "@pixgate/testkit/harness"

/** A span as OTLP JSON has it, with its service's name. */
export interface Span {
  readonly service: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly startTimeUnixNano: string
  readonly attributes?: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
}

interface TracesExport {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource?: {
      readonly attributes?: ReadonlyArray<{ key: string; value: { stringValue?: string } }>
    }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<Omit<Span, "service">> }>
  }>
}

/** A running receiver. */
export interface Collector {
  /** Its base URL (`<base>/v1/traces`, `<base>/v1/metrics`). */
  readonly url: string
  readonly spans: Array<Span>
  /** The raw JSON bodies of metric exports. */
  readonly metrics: Array<string>
  readonly close: () => Promise<void>
}

/** Starts a receiver on a free port of 127.0.0.1. */
export const startCollector = async (): Promise<Collector> => {
  const spans: Array<Span> = []
  const metrics: Array<string> = []
  const server = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk) => {
      body += chunk
    })
    req.on("end", () => {
      if (req.url === "/v1/metrics") metrics.push(body)
      if (req.url === "/v1/traces") {
        for (const resource of (JSON.parse(body) as TracesExport).resourceSpans) {
          const service =
            resource.resource?.attributes?.find((a) => a.key === "service.name")?.value.stringValue ?? ""
          for (const scope of resource.scopeSpans)
            for (const span of scope.spans) spans.push({ ...span, service })
        }
      }
      res.writeHead(200, { "content-type": "application/json" })
      res.end("{}")
    })
  })
  const url = await listen(server)
  return {
    url,
    spans,
    metrics,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}

/** The parent of `span` among `spans`. */
export const parentOf = (spans: ReadonlyArray<Span>, span: Span): Span | undefined =>
  span.parentSpanId === undefined || span.parentSpanId === ""
    ? undefined
    : spans.find((s) => s.spanId === span.parentSpanId && s.traceId === span.traceId)

/** Whether `span` has no parent. */
export const isRoot = (span: Span): boolean => span.parentSpanId === undefined || span.parentSpanId === ""

/** The root of `span`'s chain of parents among `spans` (itself when it has none there). */
export const rootOf = (spans: ReadonlyArray<Span>, span: Span): Span => {
  let at = span
  for (let p = parentOf(spans, at); p !== undefined; p = parentOf(spans, at)) at = p
  return at
}
