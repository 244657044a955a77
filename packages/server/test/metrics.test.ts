/**
 * `/metrics` of the standalone server after a sandbox run on SQLite: charges (created, paid),
 * payouts (created, refused, settled, failed), webhook deliveries to a real local receiver, the
 * sandbox's timers as jobs, the ledger check (asked for, and periodic), and requests by route
 * template: every metric of
 * docs/operations.md with its count, and the Grafana dashboard's queries naming only metrics
 * the scrape has.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, type IncomingHttpHeaders } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Engine } from "@pixgate/core"
import { listen, send } from "@pixgate/testkit/harness"
import { until } from "@pixgate/testkit/live"
import { Effect } from "effect"
import { Server } from "../src/index.js"
import { has, parse, type Sample, value } from "./support/prometheus.js"
import { promtool } from "./support/promql.js"

const token = "metrics-admin-token-0123456789"
const dir = mkdtempSync(join(tmpdir(), "pixgate-metrics-"))
const received: Array<{ readonly type: string; readonly headers: IncomingHttpHeaders }> = []
const receiver = createServer((req, res) => {
  let body = ""
  req.on("data", (chunk) => {
    body += chunk
  })
  req.on("end", () => {
    received.push({ type: (JSON.parse(body) as { event: string }).event, headers: req.headers })
    res.end("ok")
  })
})
let server: Server.RunningServer
let receiverUrl: string

beforeAll(async () => {
  receiverUrl = await listen(receiver)
  server = await Server.start({
    port: 0,
    database: "sqlite:./metrics.db",
    cwd: dir,
    adminToken: token,
    log: { level: "none" },
    rateLimit: false,
    telemetry: { metrics: "admin", ledgerCheckIntervalMs: 300 }
  })
})

afterAll(async () => {
  await server?.close()
  receiver.closeAllConnections()
  await new Promise((resolve) => receiver.close(resolve))
  rmSync(dir, { recursive: true, force: true })
})

const auth = { authorization: `Bearer ${token}` }
const admin = (method: string, path: string, body?: unknown) =>
  send(server.url, method, `/admin${path}`, { headers: auth, body })

const scrape = async (): Promise<ReadonlyArray<Sample>> => {
  const answer = await send(server.url, "GET", "/metrics", { headers: auth })
  expect(answer.status).toBe(200)
  expect(answer.headers.get("content-type")).toMatch(/^text\/plain/)
  return parse(answer.text)
}

describe("/metrics", () => {
  it("a fresh server exports every counter's failure series at 0, before any traffic", async () => {
    const s = await scrape()
    for (const mode of ["test", "live"]) {
      for (const outcome of ["failed", "InsufficientBalance", "GatewayUnavailable", "StorageUnavailable"])
        expect(has(s, "pixgate_payouts_total", { mode, outcome }), `payouts ${mode} ${outcome}`).toBe(true)
      for (const outcome of ["expired", "GatewayUnavailable", "StorageUnavailable", "ValidationError"])
        expect(has(s, "pixgate_charges_total", { mode, outcome }), `charges ${mode} ${outcome}`).toBe(true)
      expect(has(s, "pixgate_payments_total", { mode, outcome: "InsufficientBalance" })).toBe(true)
      for (const outcome of ["delivered", "rejected", "timeout", "unreachable", "no_endpoint"])
        expect(has(s, "pixgate_webhook_attempts_total", { mode, outcome }), `attempts ${outcome}`).toBe(true)
      expect(has(s, "pixgate_webhook_deliveries_finished_total", { mode, status: "failed" })).toBe(true)
      expect(has(s, "pixgate_webhook_endpoint_transitions_total", { mode, state: "failing" })).toBe(true)
    }
    expect(has(s, "pixgate_worker_job_failures_total", { kind: "payout.send" })).toBe(true)
    expect(has(s, "pixgate_worker_jobs_claimed_total", { kind: "charge.expire" })).toBe(true)
    const counters = s.filter((sample) => sample.name.endsWith("_total"))
    expect(counters.length).toBeGreaterThan(100)
    expect(counters.filter((sample) => sample.value !== 0)).toEqual([])
  })

  it("is refused without the admin token", async () => {
    expect((await send(server.url, "GET", "/metrics")).status).toBe(401)
    expect(
      (await send(server.url, "GET", "/metrics", { headers: { authorization: "Bearer wrong-token-000000" } }))
        .status
    ).toBe(401)
  })

  it("counts a sandbox run: requests, charges, payouts, webhooks, jobs and the ledger check", async () => {
    const merchant = (await admin("POST", "/merchants", { name: "Metrics" })).body
    const key = merchant.testKey as string
    expect(
      (
        await admin("PUT", `/merchants/${merchant.merchantId}/webhooks/test`, {
          url: receiverUrl,
          secret: "whsec-metrics"
        })
      ).status
    ).toBe(200)

    const charge = await send(server.url, "POST", "/api/v1/charges", { key, body: { amount: 25 } })
    expect(charge.status).toBe(201)
    // Paid now; on a loaded machine the sandbox's own timer (2-3 s) may have paid it first (409),
    // which counts the same. Either way the payout below has the charge's money.
    const payStatus = (await admin("POST", `/sandbox/transactions/${charge.body.transactionId}/pay`)).status
    expect([200, 409]).toContain(payStatus)
    // More than the balance: refused, nothing written.
    const refused = await send(server.url, "POST", "/api/v1/payouts", {
      key,
      body: { amount: 1000, pixKey: "someone@example.com" }
    })
    expect(refused.status).toBe(422)
    const ok = await send(server.url, "POST", "/api/v1/payouts", {
      key,
      body: { amount: 5, pixKey: "someone@example.com" }
    })
    expect(ok.status).toBe(201)
    const bad = await send(server.url, "POST", "/api/v1/payouts", {
      key,
      body: { amount: 5, pixKey: "fail@pixgate.test" }
    })
    expect(bad.status).toBe(201)
    expect((await send(server.url, "GET", "/api/v1/transactions?limit=5", { key })).status).toBe(200)
    expect((await send(server.url, "GET", "/api/v1/nowhere", { key })).status).toBe(404)

    // charge: created + completed; each payout: created + withdrawal.created; the good one: completed.
    // The charge was paid at once; its own sandbox timer still runs (and finds it paid) 2-3 s
    // after its creation, which a fast run may not have reached yet.
    await until("the sandbox settles both payouts, runs its timers and every webhook arrives", async () => {
      const samples = await scrape()
      return (
        value(samples, "pixgate_payouts_total", { outcome: "settled" }) === 1 &&
        value(samples, "pixgate_payouts_total", { outcome: "failed" }) === 1 &&
        value(samples, "pixgate_worker_jobs_claimed_total", { kind: "sandbox.charge.pay" }) === 1 &&
        value(samples, "pixgate_worker_job_duration_seconds_count", { kind: "sandbox.payout.settle" }) ===
          1 &&
        received.length >= 7 &&
        value(samples, "pixgate_webhook_attempts_total") === received.length
      )
    })
    await server.pixgate.runtime.runPromise(Effect.flatMap(Engine.Engine, (e) => e.admin.checkLedger("test")))
    const s = await scrape()

    // Requests by route template and status, with latency; no ids in labels.
    expect(
      value(s, "pixgate_http_requests_total", { method: "POST", route: "/api/v1/charges", status: "201" })
    ).toBe(1)
    expect(
      value(s, "pixgate_http_requests_total", { method: "POST", route: "/api/v1/payouts", status: "201" })
    ).toBe(2)
    expect(
      value(s, "pixgate_http_requests_total", { method: "POST", route: "/api/v1/payouts", status: "422" })
    ).toBe(1)
    expect(value(s, "pixgate_http_requests_total", { route: "unmatched", status: "404" })).toBe(1)
    expect(
      value(s, "pixgate_http_requests_total", {
        method: "POST",
        route: "/sandbox/transactions/:transactionId/pay",
        status: String(payStatus)
      })
    ).toBe(1)
    expect(
      value(s, "pixgate_http_request_duration_seconds_count", { route: "/api/v1/charges", status: "201" })
    ).toBe(1)
    expect(
      s.some((sample) => Object.values(sample.labels).some((v) => v.includes(merchant.merchantId)))
    ).toBe(false)
    expect(
      s.some((sample) => Object.values(sample.labels).some((v) => v.includes(charge.body.transactionId)))
    ).toBe(false)

    // The money: by mode and outcome.
    expect(value(s, "pixgate_charges_total", { mode: "test", outcome: "created" })).toBe(1)
    expect(value(s, "pixgate_charges_total", { mode: "test", outcome: "paid" })).toBe(1)
    expect(value(s, "pixgate_payouts_total", { mode: "test", outcome: "created" })).toBe(2)
    expect(value(s, "pixgate_payouts_total", { mode: "test", outcome: "InsufficientBalance" })).toBe(1)
    expect(value(s, "pixgate_payouts_total", { mode: "test", outcome: "settled" })).toBe(1)
    expect(value(s, "pixgate_payouts_total", { mode: "test", outcome: "failed" })).toBe(1)

    // Webhooks: every attempt delivered to the receiver, once each.
    expect(received.map((r) => r.type).sort()).toEqual(
      [
        "transaction.created",
        "transaction.completed",
        "transaction.created",
        "withdrawal.created",
        "withdrawal.completed",
        "transaction.created",
        "withdrawal.created"
      ].sort()
    )
    expect(value(s, "pixgate_webhook_attempts_total", { mode: "test", outcome: "delivered" })).toBe(7)
    expect(
      value(s, "pixgate_webhook_attempt_duration_seconds_count", { mode: "test", outcome: "delivered" })
    ).toBe(7)
    expect(value(s, "pixgate_webhook_deliveries_finished_total", { mode: "test", status: "delivered" })).toBe(
      7
    )
    // Tracing is off: no traceparent on the deliveries.
    expect(received.every((r) => r.headers.traceparent === undefined)).toBe(true)

    // Jobs: the attempts and the sandbox's two payout timers, claimed and run.
    expect(value(s, "pixgate_worker_jobs_claimed_total", { kind: "webhook.attempt" })).toBe(7)
    expect(value(s, "pixgate_worker_jobs_claimed_total", { kind: "sandbox.payout.settle" })).toBe(1)
    expect(value(s, "pixgate_worker_jobs_claimed_total", { kind: "sandbox.payout.fail" })).toBe(1)
    expect(value(s, "pixgate_worker_jobs_claimed_total", { kind: "sandbox.charge.pay" })).toBe(1)
    expect(value(s, "pixgate_worker_job_lag_seconds_count", { kind: "webhook.attempt" })).toBe(7)
    expect(value(s, "pixgate_worker_job_duration_seconds_count", { kind: "sandbox.payout.settle" })).toBe(1)
    expect(value(s, "pixgate_worker_job_failures_total")).toBe(0)
    expect(has(s, "pixgate_worker_jobs_in_flight", { lane: "webhooks" })).toBe(true)
    expect(has(s, "pixgate_worker_jobs_in_flight", { lane: "timers" })).toBe(true)
    expect(has(s, "pixgate_worker_lane_backlogged", { lane: "webhooks" })).toBe(true)
    expect(has(s, "pixgate_worker_oldest_due_job_age_seconds", { lane: "timers" })).toBe(true)

    // The ledger check.
    expect(value(s, "pixgate_ledger_check_ok", { mode: "test" })).toBe(1)
    expect(value(s, "pixgate_ledger_check_problems", { mode: "test" })).toBe(0)
    expect(value(s, "pixgate_ledger_check_timestamp_seconds", { mode: "test" })).toBeGreaterThan(1.7e9)
  })

  it("checks the ledger of both modes periodically when asked to", async () => {
    // Only the periodic check looks at live mode here.
    await until("a periodic check of live mode", async () =>
      has(await scrape(), "pixgate_ledger_check_timestamp_seconds", { mode: "live" })
    )
    const s = await scrape()
    expect(value(s, "pixgate_ledger_check_ok", { mode: "live" })).toBe(1)
    expect(value(s, "pixgate_ledger_check_problems", { mode: "live" })).toBe(0)
  })

  it("the Grafana dashboard queries only metrics a scrape has", async () => {
    const dashboard = JSON.parse(
      readFileSync(new URL("../../../docs/grafana/pixgate-dashboard.json", import.meta.url), "utf8")
    ) as { panels: ReadonlyArray<{ targets?: ReadonlyArray<{ expr: string }> }> }
    const names = new Set((await scrape()).map((sample) => sample.name))
    const queried = dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).flatMap((target) => target.expr.match(/\bpixgate_[a-z_]+/g) ?? [])
    )
    expect(queried.length).toBeGreaterThan(10)
    // PSP calls exist only with a live gateway, the pool only on Postgres (their own tests scrape them).
    const missing = queried.filter(
      (name) => !names.has(name) && !name.startsWith("pixgate_psp_") && !name.startsWith("pixgate_db_pool_")
    )
    expect(missing).toEqual([])
  })

  it("passes promtool check metrics after the run: counters typed counter, seconds in s, no Effect fiber metrics", async () => {
    const text = (await send(server.url, "GET", "/metrics", { headers: auth })).text
    const lint = await promtool(["check", "metrics"], text)
    expect(lint.output).toBe("")
    expect(lint.code).toBe(0)
    const types = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]))
    const units = new Map([...text.matchAll(/^# UNIT (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]))
    expect([...types].filter(([name, type]) => name.endsWith("_total") && type !== "counter")).toEqual([])
    expect([...types].filter(([name]) => name.endsWith("_seconds") && units.get(name) !== "s")).toEqual([])
    expect(
      [...types.keys()].filter((name) => !name.startsWith("pixgate_") && name !== "target_info")
    ).toEqual([])
    expect(text).not.toContain("effect_fiber")
  })
})
