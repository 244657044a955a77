/**
 * What `pixgate serve` reads for metrics and traces: nothing set is nothing loaded, the
 * OpenTelemetry variables as OpenTelemetry reads them, malformed values refused with the
 * variable's name, and `pixgate serve` itself serving `/metrics` on a port of its own (the
 * start-up line names it) or refusing `PIXGATE_METRICS=1` without an admin token.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { must } from "@pixgate/testkit/must"
import { testWaitMs } from "@pixgate/testkit/wait"
import { Effect, Either } from "effect"
import * as Cli from "../src/Cli.js"
import * as Environment from "../src/Environment.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-telemetry-env-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const read = (env: Record<string, string>) =>
  Effect.runSync(Effect.either(Effect.withConfigProvider(Environment.telemetry, Environment.provider(env))))

describe("Environment.telemetry", () => {
  it("is undefined when nothing is set (empty values count as unset)", () => {
    expect(read({})).toEqual(Either.right(undefined))
    expect(read({ PIXGATE_METRICS: "0", OTEL_EXPORTER_OTLP_ENDPOINT: "" })).toEqual(Either.right(undefined))
  })

  it("reads the metrics switch, the metrics port and the OTLP variables", () => {
    expect(read({ PIXGATE_METRICS: "1" })).toEqual(Either.right({ metrics: "admin" }))
    expect(read({ PIXGATE_LEDGER_CHECK_INTERVAL_S: "3600" })).toEqual(
      Either.right({ ledgerCheckIntervalMs: 3_600_000 })
    )
    expect(read({ PIXGATE_METRICS_PORT: "9464", PIXGATE_METRICS_HOST: "10.0.0.5" })).toEqual(
      Either.right({ metrics: { port: 9464, host: "10.0.0.5" } })
    )
    expect(
      read({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/",
        OTEL_EXPORTER_OTLP_HEADERS: "api-key=s%3Dcret, x-tenant=7",
        OTEL_SERVICE_NAME: "pixgate-eu",
        OTEL_METRIC_EXPORT_INTERVAL: "15000"
      })
    ).toEqual(
      Either.right({
        otlp: {
          tracesUrl: "http://collector:4318/v1/traces",
          metricsUrl: "http://collector:4318/v1/metrics",
          protocol: "http/protobuf",
          headers: { "api-key": "s=cret", "x-tenant": "7" },
          metricsIntervalMs: 15000,
          tracesIntervalMs: 5000
        },
        serviceName: "pixgate-eu"
      })
    )
    expect(
      read({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://t.example/traces",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json"
      })
    ).toMatchObject(Either.right({ otlp: { tracesUrl: "https://t.example/traces", protocol: "http/json" } }))
  })

  it("refuses malformed values, naming the variable", () => {
    const message = (env: Record<string, string>) =>
      Either.match(read(env), { onLeft: Environment.describe, onRight: () => "accepted" })
    expect(message({ PIXGATE_METRICS: "yes" })).toContain("PIXGATE_METRICS must be 1 or 0")
    expect(message({ PIXGATE_METRICS_PORT: "x" })).toContain("PIXGATE_METRICS_PORT must be an integer")
    expect(message({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toContain(
      "OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL"
    )
    expect(
      message({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })
    ).toContain("OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json")
    expect(message({ OTEL_EXPORTER_OTLP_HEADERS: "novalue" })).toContain("OTEL_EXPORTER_OTLP_HEADERS must be")
  })
})

describe("Environment.telemetry: the trace sampler", () => {
  const endpoint = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" }
  const sampling = (env: Record<string, string>) =>
    Either.map(read({ ...endpoint, ...env }), (options) => options?.otlp?.sampling)

  it("reads OpenTelemetry's sampler names, a ratio alone as parentbased_traceidratio, nothing as the default", () => {
    expect(sampling({})).toEqual(Either.right(undefined))
    expect(sampling({ OTEL_TRACES_SAMPLER_ARG: "0.1" })).toEqual(
      Either.right({ sampler: "parentbased_traceidratio", ratio: 0.1 })
    )
    expect(sampling({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: ".25" })).toEqual(
      Either.right({ sampler: "traceidratio", ratio: 0.25 })
    )
    expect(sampling({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio" })).toEqual(
      Either.right({ sampler: "parentbased_traceidratio", ratio: 1 })
    )
    expect(sampling({ OTEL_TRACES_SAMPLER: "always_off", OTEL_TRACES_SAMPLER_ARG: "0.5" })).toEqual(
      Either.right({ sampler: "always_off", ratio: 1 })
    )
    expect(sampling({ OTEL_TRACES_SAMPLER: "parentbased_always_on" })).toEqual(
      Either.right({ sampler: "parentbased_always_on", ratio: 1 })
    )
  })

  it("refuses an unknown sampler or a ratio outside 0 to 1, naming the variable", () => {
    const message = (env: Record<string, string>) =>
      Either.match(read({ ...endpoint, ...env }), { onLeft: Environment.describe, onRight: () => "accepted" })
    expect(message({ OTEL_TRACES_SAMPLER: "jaeger_remote" })).toContain(
      "OTEL_TRACES_SAMPLER must be one of always_on, always_off, traceidratio"
    )
    expect(message({ OTEL_TRACES_SAMPLER_ARG: "1.5" })).toContain(
      "OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1"
    )
    expect(message({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "-0.1" })).toContain(
      "OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1"
    )
  })
})

describe("pixgate serve", () => {
  const run = (env: Record<string, string>, stopSignal: Promise<void>) => {
    const out: Array<string> = []
    let stderr = ""
    const done = Cli.run(["serve"], {
      env: { PORT: "0", PIXGATE_DATABASE: "sqlite:./telemetry.db", ...env },
      cwd: dir,
      stdout: (t: string) => out.push(t),
      stderr: (t: string) => {
        stderr += t
      },
      stopSignal
    })
    return { out, stderr: () => stderr, done }
  }

  it("serves /metrics on PIXGATE_METRICS_PORT and names it in the start-up line", async () => {
    let stop: () => void = () => {}
    const server = run({ PIXGATE_METRICS_PORT: "0" }, new Promise((resolve) => (stop = resolve)))
    const deadline = Date.now() + testWaitMs
    while (!server.out.join("").includes("Pixgate listening") && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50))
    const line = JSON.parse(
      must(
        server.out
          .join("")
          .split("\n")
          .find((l) => l.includes("Pixgate listening")),
        'server.out .join("") .split("\\n") .find((l) => l.includes("Pixgate listening"))'
      )
    ) as {
      url: string
      metrics: string
    }
    expect(line.metrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
    await fetch(`${line.url}/api/health`)
    const scrape = await fetch(line.metrics)
    expect(scrape.status).toBe(200)
    expect(await scrape.text()).toContain(
      'pixgate_http_requests_total{method="GET",route="/api/health",status="200"}'
    )
    // Not on the main port without PIXGATE_METRICS=1.
    expect((await fetch(`${line.url}/metrics`)).status).toBe(404)
    stop()
    expect(await server.done).toBe(0)
  })

  it("refuses PIXGATE_METRICS=1 without an admin token", async () => {
    const server = run({ PIXGATE_METRICS: "1" }, new Promise(() => {}))
    expect(await server.done).toBe(1)
    expect(server.stderr()).toContain("need an admin token")
  })
})
