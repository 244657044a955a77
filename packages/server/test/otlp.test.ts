/**
 * Traces over OTLP/HTTP to a real receiver (a node:http server taking OTLP JSON at /v1/traces),
 * in live mode against the PSP simulator: a request's server span has the engine's span and the
 * PSP call's span under it, and the webhook the request caused reaches the merchant with a
 * `traceparent` of that trace. The same run's PSP calls are counted on the metrics listener of
 * its own port, and the metrics are pushed to the receiver's /v1/metrics: counters as monotonic
 * sums, durations with the unit `s`, no Effect fiber metrics, and the request's and the PSP
 * call's spans as exemplars of their latency series.
 */

import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server as HttpServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { listen } from "@pixgate/testkit/harness"
import { type Live, startLive, until } from "@pixgate/testkit/live"
import { must } from "@pixgate/testkit/must"
import * as Telemetry from "../src/Telemetry.js"
import { has, parse, value } from "./support/prometheus.js"

/** A span as OTLP JSON has it. */
interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes?: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
}

interface Export {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource?: {
      readonly attributes?: ReadonlyArray<{ key: string; value: { stringValue?: string } }>
    }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<Span> }>
  }>
}

const spans: Array<Span> = []
const services = new Set<string>()
const paths: Array<string> = []
const metricBodies: Array<string> = []
let collector: HttpServer
let telemetry: Telemetry.Telemetry
let live: Live
const dir = mkdtempSync(join(tmpdir(), "pixgate-otlp-"))

beforeAll(async () => {
  collector = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk) => {
      body += chunk
    })
    req.on("end", () => {
      paths.push(`${req.method} ${req.url} ${req.headers["content-type"]}`)
      if (req.url === "/v1/metrics") metricBodies.push(body)
      if (req.url === "/v1/traces") {
        const data = JSON.parse(body) as Export
        for (const resource of data.resourceSpans) {
          for (const a of resource.resource?.attributes ?? [])
            if (a.key === "service.name" && a.value.stringValue !== undefined)
              services.add(a.value.stringValue)
          for (const scope of resource.scopeSpans) spans.push(...scope.spans)
        }
      }
      res.writeHead(200, { "content-type": "application/json" })
      res.end("{}")
    })
  })
  const base = await listen(collector)
  telemetry = await Telemetry.start(
    {
      metrics: { port: 0 },
      otlp: {
        tracesUrl: `${base}/v1/traces`,
        metricsUrl: `${base}/v1/metrics`,
        protocol: "http/json",
        tracesIntervalMs: 100,
        metricsIntervalMs: 200
      },
      serviceName: "pixgate-otlp-test"
    },
    undefined
  )
  live = await startLive(
    `sqlite:${join(dir, "otlp.db")}`,
    {},
    {},
    { telemetry: must(telemetry.layer, "telemetry.layer"), tracing: true }
  )
})

afterAll(async () => {
  await live?.close()
  await telemetry?.close()
  collector?.closeAllConnections()
  await new Promise((resolve) => collector?.close(resolve))
  rmSync(dir, { recursive: true, force: true })
})

const parentOf = (span: Span) => spans.find((s) => s.spanId === span.parentSpanId)
const ancestors = (span: Span): Array<Span> => {
  const chain: Array<Span> = []
  for (let p = parentOf(span); p !== undefined; p = parentOf(p)) chain.push(p)
  return chain
}

describe("OTLP traces", () => {
  it("exports a request span with the engine's and the PSP's spans under it, and the webhook carries its trace", async () => {
    const { liveKey } = await live.merchant()
    const charge = await live.h.request("POST", "/api/v1/charges", { key: liveKey, body: { amount: 12.5 } })
    expect(charge.status).toBe(201)

    await until(
      "the charge's spans arrive at the collector",
      () =>
        spans.some((s) => s.name === "POST /api/v1/charges") &&
        spans.some((s) => s.name === "pixgate.charges.create") &&
        spans.some((s) => s.name.startsWith("psp PUT"))
    )
    expect(services.has("pixgate-otlp-test")).toBe(true)
    expect(paths.every((p) => p.includes("application/json"))).toBe(true)

    const request = must(
      spans.find((s) => s.name === "POST /api/v1/charges"),
      'spans.find((s) => s.name === "POST /api/v1/charges")'
    )
    expect(request.kind).toBe(2) // SPAN_KIND_SERVER
    expect(request.parentSpanId ?? "").toBe("")
    const create = must(
      spans.find((s) => s.name === "pixgate.charges.create" && s.traceId === request.traceId),
      'spans.find((s) => s.name === "pixgate.charges.create" && s.traceId === request.traceId)'
    )
    expect(parentOf(create)?.spanId).toBe(request.spanId)
    const psp = spans.find((s) => s.name === "psp PUT /v2/cob/:id" && s.traceId === request.traceId)
    expect(psp).toBeDefined()
    expect(must(psp, "psp").kind).toBe(3) // SPAN_KIND_CLIENT
    expect(ancestors(must(psp, "psp")).map((s) => s.spanId)).toContain(create.spanId)

    // The webhook of the charge's creation: its traceparent is in the request's trace.
    await until("transaction.created reaches the merchant", () =>
      live.webhooks.some(
        (w) => w.type === "transaction.created" && w.data.transactionId === charge.body.transactionId
      )
    )
    const hook = must(
      live.webhooks.find(
        (w) => w.type === "transaction.created" && w.data.transactionId === charge.body.transactionId
      ),
      'live.webhooks.find( (w) => w.type === "transaction.created" && w.data.transactionId === charge.body.transactionId )'
    )
    const traceparent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(hook.traceparent ?? "")
    expect(traceparent).not.toBeNull()
    expect(must(traceparent, "traceparent")[1]).toBe(request.traceId)
    // The attempt's own span is the parent the receiver sees, a child of the engine's create.
    await until("the attempt's span arrives", () =>
      spans.some((s) => s.spanId === must(traceparent, "traceparent")[2])
    )
    const attempt = must(
      spans.find((s) => s.spanId === must(traceparent, "traceparent")[2]),
      "spans.find((s) => s.spanId === traceparent[2])"
    )
    expect(attempt.name).toBe("pixgate.webhooks.attempt")
    expect(attempt.traceId).toBe(request.traceId)
    expect(ancestors(attempt).map((s) => s.spanId)).toContain(request.spanId)

    // A caller's trace continues: its traceparent makes the request span its child.
    const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
    const listed = await live.h.request("GET", "/api/v1/transactions?limit=1", {
      key: liveKey,
      headers: { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` }
    })
    expect(listed.status).toBe(200)
    await until("the list's span arrives", () => spans.some((s) => s.name === "GET /api/v1/transactions"))
    const list = must(
      spans.find((s) => s.name === "GET /api/v1/transactions"),
      'spans.find((s) => s.name === "GET /api/v1/transactions")'
    )
    expect(list.traceId).toBe(callerTrace)
    expect(list.parentSpanId).toBe("00f067aa0ba902b7")

    // The PSP calls on the metrics listener of its own port, by operation template and outcome.
    const scrape = await fetch(must(telemetry.metricsUrl, "telemetry.metricsUrl"))
    expect(scrape.status).toBe(200)
    const samples = parse(await scrape.text())
    expect(value(samples, "pixgate_psp_calls_total", { operation: "PUT /v2/cob/:id", outcome: "ok" })).toBe(1)
    expect(value(samples, "pixgate_psp_call_duration_seconds_count", { operation: "PUT /v2/cob/:id" })).toBe(
      1
    )
    expect(samples.some((s) => Object.values(s.labels).some((v) => v.includes(charge.body.txid)))).toBe(false)
    // Every known operation's every outcome exists from the client's start, at 0 until it happens.
    const operations = ["PUT /v2/cob/:id", "GET /v2/cob/:id", "PUT /v3/gn/pix/:id", "GET /v2/pix"]
    for (const operation of operations)
      for (const outcome of ["ok", "http_4xx", "http_5xx", "timeout", "transport", "token"])
        expect(
          has(samples, "pixgate_psp_calls_total", { operation, outcome }),
          `${operation} ${outcome}`
        ).toBe(true)
    expect(
      value(samples, "pixgate_psp_calls_total", { operation: "PUT /v3/gn/pix/:id", outcome: "timeout" })
    ).toBe(0)
    expect(
      (await fetch(must(telemetry.metricsUrl, "telemetry.metricsUrl").replace("/metrics", "/other"))).status
    ).toBe(404)

    // And pushed by OTLP/HTTP too.
    await until("the metrics arrive at the collector", () =>
      metricBodies.some(
        (body) => body.includes("pixgate_psp_calls_total") && body.includes("pixgate_http_requests_total")
      )
    )
    const pushed = JSON.parse(must(metricBodies.at(-1), "metricBodies.at(-1)")) as Pushed
    expect(pushed.resourceMetrics.length).toBeGreaterThan(0)

    // Counters are monotonic sums, durations are in seconds, Effect's own fiber metrics stay home.
    const metrics = pushed.resourceMetrics.flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics))
    const named = (name: string) =>
      must(
        metrics.find((m) => m.name === name),
        name
      )
    for (const name of ["pixgate_http_requests_total", "pixgate_psp_calls_total", "pixgate_charges_total"])
      expect(named(name).sum).toMatchObject({ isMonotonic: true, aggregationTemporality: 2 })
    expect(named("pixgate_http_request_duration_seconds").unit).toBe("s")
    expect(named("pixgate_psp_call_duration_seconds").unit).toBe("s")
    expect(named("pixgate_charges_total").unit).toBe("1")
    expect(metrics.filter((m) => m.name.startsWith("effect_"))).toEqual([])
    // The latencies link to traces: the charge's request is an exemplar of its series.
    const exemplars = named("pixgate_http_request_duration_seconds").histogram?.dataPoints.flatMap(
      (p) => p.exemplars ?? []
    )
    expect(exemplars?.some((e) => e.traceId === request.traceId && e.spanId === request.spanId)).toBe(true)
    const pspExemplar = named("pixgate_psp_call_duration_seconds").histogram?.dataPoints[0]?.exemplars?.[0]
    expect(spans.some((s) => s.spanId === pspExemplar?.spanId && s.name.startsWith("psp "))).toBe(true)
  })
})

/** What the OTLP/JSON metrics export holds, in what is checked here. */
interface Pushed {
  readonly resourceMetrics: ReadonlyArray<{
    readonly scopeMetrics: ReadonlyArray<{
      readonly metrics: ReadonlyArray<{
        readonly name: string
        readonly unit?: string
        readonly sum?: { readonly isMonotonic: boolean; readonly aggregationTemporality: number }
        readonly histogram?: {
          readonly dataPoints: ReadonlyArray<{
            readonly exemplars?: ReadonlyArray<{ readonly traceId: string; readonly spanId: string }>
          }>
        }
      }>
    }>
  }>
}
