/**
 * What traces cost and tell, on the standalone server exporting OTLP/JSON to a local receiver:
 * an idle server (its job worker polling several times a second) sends no span at all; every SQL
 * statement of a request sits under that request's span, and every one a job runs under the
 * job's root span, none a root of its own; a parent-based ratio sampler keeps about that share of
 * new traces, whole (no span of a dropped trace reaches the receiver), and follows a caller's
 * sampled flag.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { send } from "@pixgate/testkit/harness"
import { until } from "@pixgate/testkit/live"
import { must } from "@pixgate/testkit/must"
import { pause } from "@pixgate/testkit/wait"
import { Server } from "../src/index.js"
import { type Collector, isRoot, rootOf, type Span, startCollector } from "./support/collector.js"

const token = "tracing-admin-token-0123456789"
const dir = mkdtempSync(join(tmpdir(), "pixgate-tracing-"))
let collector: Collector
const servers: Array<Server.RunningServer> = []

const start = async (service: string, sampling?: { sampler: "parentbased_traceidratio"; ratio: number }) => {
  const server = await Server.start({
    port: 0,
    database: `sqlite:./${service}.db`,
    cwd: dir,
    adminToken: token,
    log: { level: "none" },
    rateLimit: false,
    panel: false,
    telemetry: {
      serviceName: service,
      otlp: {
        tracesUrl: `${collector.url}/v1/traces`,
        protocol: "http/json",
        tracesIntervalMs: 100,
        ...(sampling === undefined ? {} : { sampling })
      }
    }
  })
  servers.push(server)
  return server
}

beforeAll(async () => {
  collector = await startCollector()
})

afterAll(async () => {
  for (const server of servers) await server.close()
  await collector?.close()
  rmSync(dir, { recursive: true, force: true })
})

const spansOf = (service: string) => collector.spans.filter((s) => s.service === service)
const admin = (server: Server.RunningServer, method: string, path: string, body?: unknown) =>
  send(server.url, method, `/admin${path}`, { headers: { authorization: `Bearer ${token}` }, body })

describe("traces", () => {
  it("an idle server sends no span; a request's and a job's SQL sit under their span", async () => {
    const server = await start("pixgate-all")
    // Twelve of the worker's polls (every 250 ms) and as many export rounds: no span started
    // once the server was up (opening the store and its migrations are spans of the start).
    const up = BigInt(Date.now()) * 1_000_000n
    await pause(3000)
    expect(spansOf("pixgate-all").filter((s) => BigInt(s.startTimeUnixNano) >= up)).toEqual([])

    const merchant = (await admin(server, "POST", "/merchants", { name: "Traced" })).body
    const key = merchant.testKey as string
    const charge = await send(server.url, "POST", "/api/v1/charges", { key, body: { amount: 30 } })
    expect(charge.status).toBe(201)
    expect(
      (await admin(server, "POST", `/sandbox/transactions/${charge.body.transactionId}/pay`)).status
    ).toBe(200)
    const payout = await send(server.url, "POST", "/api/v1/payouts", {
      key,
      body: { amount: 5, pixKey: "someone@example.com" }
    })
    expect(payout.status).toBe(201)
    expect((await send(server.url, "GET", "/api/v1/transactions?limit=5", { key })).status).toBe(200)

    // The sandbox settles the payout in a job a few seconds later.
    await until("the payout's settlement job and its SQL arrive", () =>
      spansOf("pixgate-all").some(
        (s) =>
          s.name === "pixgate.job" &&
          s.attributes?.some((a) => a.value.stringValue === "sandbox.payout.settle") === true &&
          spansOf("pixgate-all").some((sql) => sql.name === "sql.execute" && sql.traceId === s.traceId)
      )
    )
    const statements = () =>
      spansOf("pixgate-all").filter((s) => s.name === "sql.execute" && BigInt(s.startTimeUnixNano) >= up)
    // Not one statement is a root; each belongs to a request (a server span) or to a job, whose
    // spans end (and leave) after their statements'.
    expect(statements().filter(isRoot)).toEqual([])
    const unowned = () =>
      statements()
        .map((s) => rootOf(spansOf("pixgate-all"), s))
        .filter((r) => !(r.kind === 2 || r.name === "pixgate.job"))
    await until("every statement's chain of spans reaches its request or job", () => unowned().length === 0)
    const spans = spansOf("pixgate-all")
    const sql = statements()
    expect(sql.length).toBeGreaterThan(10)
    expect(sql.filter(isRoot)).toEqual([])
    expect(unowned()).toEqual([])

    // The payout's request: its statements under its own span.
    const request = must(
      spans.find((s) => s.name === "POST /api/v1/payouts"),
      "the payout request's span"
    )
    expect(isRoot(request)).toBe(true)
    expect(sql.filter((s) => rootOf(spans, s).spanId === request.spanId).length).toBeGreaterThan(0)
    // Each job is one root span, with its statements under it.
    const jobs = spans.filter((s) => s.name === "pixgate.job")
    expect(jobs.length).toBeGreaterThan(0)
    expect(jobs.every(isRoot)).toBe(true)
  })

  it("a parent-based ratio keeps about its share of new traces, each whole, and follows the caller's flag", async () => {
    const service = "pixgate-sampled"
    const server = await start(service, { sampler: "parentbased_traceidratio", ratio: 0.25 })
    // Opening the store makes spans at start (traces of their own, sampled at the ratio too).
    const up = BigInt(Date.now()) * 1_000_000n
    const requests = 400
    for (let sent = 0; sent < requests; sent += 20)
      await Promise.all(
        Array.from({ length: 20 }, () => send(server.url, "GET", "/api/health/ready").then((a) => a.status))
      )
    const trace = (n: number, flags: string) =>
      `00-${n.toString(16).padStart(32, "a")}-00f067aa0ba902b7-${flags}`
    for (let n = 1; n <= 10; n++) {
      expect(
        (await send(server.url, "GET", "/api/health/ready", { headers: { traceparent: trace(n, "00") } }))
          .status
      ).toBe(200)
      expect(
        (
          await send(server.url, "GET", "/api/health/ready", {
            headers: { traceparent: trace(n + 10, "01") }
          })
        ).status
      ).toBe(200)
    }
    // Spans leave in the order they end: once the last sampled caller's span is in, all are.
    await until("the last sampled caller's span arrives", () =>
      spansOf(service).some((s) => s.traceId === trace(20, "01").slice(3, 35))
    )
    const spans = spansOf(service).filter((s) => BigInt(s.startTimeUnixNano) >= up)
    const requestSpans = spans.filter((s) => s.name === "GET /api/health/ready")
    const own = requestSpans.filter(isRoot)
    // 400 traces at 0.25: 100 expected, 8.7 standard deviations; 5 of them either side.
    expect(own.length).toBeGreaterThan(100 - 44)
    expect(own.length).toBeLessThan(100 + 44)
    // A caller's decision holds: every sampled caller's trace, none of the others.
    const callers = requestSpans.filter((s) => !isRoot(s)).map((s) => s.traceId)
    expect(callers.sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => trace(i + 11, "01").slice(3, 35)).sort()
    )
    // Whole traces: every exported span's trace has its request's span.
    const exportedTraces = new Set(requestSpans.map((s) => s.traceId))
    expect(spans.filter((s: Span) => !exportedTraces.has(s.traceId))).toEqual([])
  })
})
