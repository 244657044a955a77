/**
 * Pixgate under a real Prometheus (Debian's `prometheus`, scraping every second and evaluating
 * deploy/prometheus's rules every second): a live-mode engine on Postgres (a pool of 3) with
 * the PSP simulator, its metrics on a port of their own.
 *
 * - The first failure of each kind is counted 1 by `increase()`: each counter's series exists
 *   at 0 before it, so Prometheus has a sample to count from.
 * - Under load, and in the situations the alerts are for (5xx, slow requests, the bank failing,
 *   slow and refusing tokens, webhook receivers down, a corrupted ledger, a small pool, the
 *   database gone, the metrics listener gone), every query of the Grafana dashboard and every
 *   rule's expression is valid and returns data; each alert whose situation the test creates
 *   returns data itself. The others watch a duration longer than a test (a ledger check
 *   missing for two hours, a lane's job waiting for minutes, jobs failing for ten minutes): their
 *   signal (the expression without its threshold) returns data here, and their unit tests
 *   (deploy/prometheus/tests) show them firing.
 */
import { createServer, type Server as HttpServer } from "node:http"
import { afterAll, beforeAll, expect, it } from "@effect/vitest"
import { PgStore } from "@pixgate/store-pg"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { listen } from "@pixgate/testkit/harness"
import { type Live, startLive, until } from "@pixgate/testkit/live"
import { must } from "@pixgate/testkit/must"
import {
  createDatabase,
  databaseUrl,
  describePostgres,
  dropDatabase,
  postgresAvailable
} from "@pixgate/testkit/postgres"
import { pause, testWait } from "@pixgate/testkit/wait"
import { Duration } from "effect"
import pg from "pg"
import * as Telemetry from "../src/Telemetry.js"
import { type Prometheus, startPrometheus } from "./support/prometheusServer.js"
import { dashboardExpressions, ruleNames, rulesFile } from "./support/promql.js"

let database: string
let telemetry: Telemetry.Telemetry
let live: Live
let prometheus: Prometheus
const receivers: Array<HttpServer> = []

/** A webhook receiver answering `status`, or never (until the attempt's time-out) when undefined. */
const receiver = async (status: number | undefined): Promise<string> => {
  const server = createServer((req, res) => {
    req.resume()
    if (status !== undefined) req.on("end", () => res.writeHead(status).end())
  })
  receivers.push(server)
  return listen(server)
}

beforeAll(async () => {
  if (!postgresAvailable) return
  database = await createDatabase()
  telemetry = await Telemetry.start({ metrics: { port: 0 } }, undefined)
  live = await startLive(
    databaseUrl(database),
    // The bank's default time-out, which PixgatePspSlow's threshold is half of.
    { timeoutMs: 10_000 },
    {},
    {
      telemetry: must(telemetry.layer, "telemetry.layer"),
      // A small pool (its alerts' situation), waited for as long as a loaded machine needs.
      store: PgStore.layer({
        url: databaseUrl(database),
        keys: testKeys,
        maxConnections: 3,
        connectTimeout: "30 seconds"
      }),
      engine: {
        config: {
          allowPrivateWebhookUrls: true,
          allowInsecureLiveWebhooks: true,
          jobLease: Duration.seconds(5),
          webhookTimeout: Duration.seconds(1),
          // Long enough for Prometheus to scrape a first attempt alone; short enough for a
          // delivery to fail for good within the test.
          webhookRetryDelays: [Duration.seconds(5), Duration.seconds(5), Duration.seconds(5)],
          webhookFailingAfter: 3
        }
      }
    }
  )
  const target = new URL(must(telemetry.metricsUrl, "telemetry.metricsUrl")).host
  prometheus = await startPrometheus({ pixgate: [target] }, [rulesFile])
  await until(
    "Prometheus scrapes Pixgate",
    async () => (await prometheus.query('up{job="pixgate"} == 1')).length > 0
  )
}, testWait(2))

afterAll(async () => {
  await prometheus?.stop()
  await live?.close()
  await telemetry?.close()
  for (const server of receivers) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
  if (database !== undefined) {
    await sql(`ALTER DATABASE "${database}" WITH ALLOW_CONNECTIONS true`, "postgres")
    await dropDatabase(database)
  }
}, testWait(1))

/** Runs one statement on `db` (the test's database unless named). */
const sql = async (text: string, db = database): Promise<void> => {
  const client = new pg.Client({ connectionString: databaseUrl(db) })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

/** The value of a query with exactly one series (now, or at `time`). */
const single = async (expr: string, time?: number): Promise<number | undefined> => {
  const series = await prometheus.query(expr, time)
  return series.length === 1 ? must(series[0], expr).value : undefined
}

/**
 * Checks that `selector` is at 0 before `act`; then, once Prometheus has scraped its 1,
 * evaluates `increase()` over the last minute at that scrape's time (so the window ends on a
 * sample and nothing is extrapolated past it): the first failure counts exactly 1.
 */
const countsFirst = async (selector: string, act: () => Promise<unknown>) => {
  expect(await single(selector), `${selector} before`).toBe(0)
  await act()
  await until(`${selector} reaches 1 in Prometheus`, async () => (await single(selector)) === 1)
  const scraped = must(await single(`timestamp(${selector})`), `timestamp(${selector})`)
  expect(await single(`increase(${selector}[1m])`, scraped), selector).toBe(1)
}

const setWebhook = (merchantId: string, mode: "test" | "live", url: string) =>
  live.h.engine((e) => e.admin.setWebhook({ merchantId, mode, url, secret: "whsec-prometheus-test" }))

const charge = (key: string, amount = 12.5) =>
  live.h.request("POST", "/api/v1/charges", { key, body: { amount } })

/** Runs `task` `total` times, `width` at once. */
const inWaves = async (total: number, width: number, task: () => Promise<unknown>) => {
  for (let done = 0; done < total; done += width)
    await Promise.all(Array.from({ length: Math.min(width, total - done) }, task))
}

/** The alerts whose situation the scenarios create: their own expressions must return data. */
const litHere = [
  "PixgateHighErrorRatio",
  "PixgateLatencyBudgetBurnFast",
  "PixgateLatencyBudgetBurnSlow",
  "PixgateLiveMoneyUnavailable",
  "PixgateLedgerCheckFailed",
  "PixgateWebhookEndpointsFailing",
  "PixgateWebhookFailureShareHigh",
  "PixgateWebhookDeliveriesFailed",
  "PixgatePspErrors",
  "PixgatePspTokenRefused",
  "PixgatePspSlow",
  "PixgateDbPoolWaiting",
  "PixgateDbPoolSaturated"
]

/** The alerts of the last test (the database and the listener gone), valid here and lit there. */
const readinessAlerts = ["PixgateNotReady", "PixgateNoInstanceReady", "PixgateDown"]

/** An alert's signal: its expression without the threshold it compares to (`x > 60` is `x`). */
const signalOf = (expr: string): string => {
  const signal = expr.replace(/\s*(?:>|<|>=|<=|==|!=)\s*[\d.\s*()]+$/, "")
  expect(signal, expr).not.toBe(expr)
  return signal
}

describePostgres("Pixgate under Prometheus", () => {
  it(
    "counts 1 for the first refusal, failed payout and webhook failure of each kind through increase()",
    async () => {
      const merchant = await live.h.merchant("Primeiras falhas")
      // A refusal: a payout over an empty balance.
      await countsFirst('pixgate_payouts_total{mode="test", outcome="InsufficientBalance"}', async () =>
        expect(
          (
            await live.h.request("POST", "/api/v1/payouts", {
              key: merchant.testKey,
              body: { amount: 1, pixKey: "someone@example.com" }
            })
          ).status
        ).toBe(422)
      )
      // A payout the (sandbox) bank rejects.
      const paid = await charge(merchant.testKey, 50)
      await live.h.engine((e) => e.admin.sandboxPayCharge(paid.body.transactionId))
      await countsFirst('pixgate_payouts_total{mode="test", outcome="failed"}', async () =>
        expect(
          (
            await live.h.request("POST", "/api/v1/payouts", {
              key: merchant.testKey,
              body: { amount: 5, pixKey: "fail@pixgate.test" }
            })
          ).status
        ).toBe(201)
      )
      // Webhook receivers that answer 500 (the first endpoint marked failing, the first delivery
      // failed for good), hang past the time-out, or are not there.
      const rejecting = await live.h.merchant("Recusa")
      await setWebhook(rejecting.merchantId, "test", await receiver(500))
      const attempts = (outcome: string) =>
        `pixgate_webhook_attempts_total{mode="test", outcome="${outcome}"}`
      await countsFirst(attempts("rejected"), () =>
        live.h.engine((e) => e.admin.sendTestEvent(rejecting.merchantId, "test"))
      )
      // Its third failure in a row (10 s later) marks the endpoint failing; its fourth (15 s)
      // fails the delivery for good.
      await countsFirst(
        'pixgate_webhook_endpoint_transitions_total{mode="test", state="failing"}',
        async () => {}
      )
      await countsFirst(
        'pixgate_webhook_deliveries_finished_total{mode="test", status="failed"}',
        async () => {}
      )
      const hanging = await live.h.merchant("Espera")
      await setWebhook(hanging.merchantId, "test", await receiver(undefined))
      await countsFirst(attempts("timeout"), () =>
        live.h.engine((e) => e.admin.sendTestEvent(hanging.merchantId, "test"))
      )
      const absent = await live.h.merchant("Ausente")
      const closed = createServer()
      const nowhere = await listen(closed)
      await new Promise((resolve) => closed.close(resolve))
      await setWebhook(absent.merchantId, "test", nowhere)
      await countsFirst(attempts("unreachable"), () =>
        live.h.engine((e) => e.admin.sendTestEvent(absent.merchantId, "test"))
      )
    },
    testWait(3)
  )

  it(
    "counts 1 for the bank's first failure of each kind through increase()",
    async () => {
      const m = await live.merchant()
      // A 5xx (the live charge refused GatewayUnavailable), a reset, a time-out, a refused
      // token; each the first of its kind for its operation.
      const psp = (outcome: string) =>
        `pixgate_psp_calls_total{operation="PUT /v2/cob/:id", outcome="${outcome}"}`
      live.psp.addFault({ route: "cob.put", kind: "status", status: 500, times: 1 })
      await countsFirst('pixgate_charges_total{mode="live", outcome="GatewayUnavailable"}', async () =>
        expect((await charge(m.liveKey)).status).toBe(502)
      )
      expect(must(await single(`increase(${psp("http_5xx")}[1m])`), "http_5xx")).toBeGreaterThanOrEqual(1)
      live.psp.addFault({ route: "cob.put", kind: "reset", times: 1 })
      await countsFirst(psp("transport"), () => charge(m.liveKey))
      live.psp.addFault({ route: "cob.put", kind: "timeout", times: 1 })
      await countsFirst(psp("timeout"), () => charge(m.liveKey))
      // A refused token: the first call after the tokens expire renews one, and that is the
      // charge's PUT or the reconciliation's poll (every second), whichever comes first; the
      // series of the operation that tripped it counts exactly 1.
      const tokens = 'pixgate_psp_calls_total{outcome="token"}'
      expect(await single(`sum(${tokens})`), `${tokens} before`).toBe(0)
      live.psp.expireTokens()
      live.psp.addFault({ route: "token", kind: "status", status: 401, times: 1 })
      await charge(m.liveKey)
      await until(`${tokens} reaches 1 in Prometheus`, async () => (await single(`sum(${tokens})`)) === 1)
      const tripped = must((await prometheus.query(`${tokens} == 1`))[0], "the tripped series")
      const operation = must(tripped.metric.operation, "its operation")
      const selector = `pixgate_psp_calls_total{operation="${operation}", outcome="token"}`
      const scraped = must(await single(`timestamp(${selector})`), `timestamp(${selector})`)
      expect(await single(`increase(${selector}[1m])`, scraped), selector).toBe(1)
    },
    testWait(4)
  )

  // Set by the scenarios below, read by the checks after them.
  let scenarioStart = 0
  let testKey = ""

  it(
    "runs under load and in each alert's situation",
    async () => {
      scenarioStart = Date.now() / 1000
      const steady = await live.h.merchant("Carga")
      testKey = steady.testKey
      await setWebhook(steady.merchantId, "live", live.webhookUrl)
      const failing = await live.h.merchant("Receptor fora do ar")
      await setWebhook(failing.merchantId, "live", await receiver(500))
      // A first live delivery to fail for good (its four attempts over 15 s) while the load
      // runs: after the slow bank's charges, its endpoint's backlog and their checks at the bank
      // can hold a loaded machine's deliveries back past the wait below.
      await live.h.engine((e) => e.admin.sendTestEvent(failing.merchantId, "live"))

      // Load: 20 clients creating test charges and listing transactions, 400 fast requests.
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          for (let i = 0; i < 10; i++) {
            expect((await charge(steady.testKey)).status).toBe(201)
            expect(
              (await live.h.request("GET", "/api/v1/transactions?limit=5", { key: steady.testKey })).status
            ).toBe(200)
          }
        })
      )
      // A bank failing: 30 live charges answered 502 (5xx, live money refused, bank errors).
      // First, while no charge is pending: each pending charge is checked at the bank every
      // second, and after the slow bank's 100 charges those checks would dilute the failed share
      // of calls toward the alert's 5 % (7 % measured) on a slower run.
      live.psp.addFault({ route: "cob.put", kind: "status", status: 500, times: 30 })
      await inWaves(30, 15, async () => expect((await charge(steady.liveKey)).status).toBe(502))
      // A slow bank: 100 live charges slower than 1 s (the latency objective burns), whose
      // webhooks go to a receiver that answers 500 (attempts fail, the endpoint is marked
      // failing, deliveries fail for good).
      live.psp.addFault({ route: "cob.put", kind: "latency", ms: 1500, times: 100 })
      // (On a loaded machine a call may still pass the bank's time-out: 502, slow all the same.)
      const slow = async () => expect([201, 502]).toContain((await charge(failing.liveKey)).status)
      await inWaves(100, 25, slow)
      // Slower still: 12 calls past half the bank's time-out.
      live.psp.addFault({ route: "cob.put", kind: "latency", ms: 6000, times: 12 })
      await inWaves(12, 12, slow)
      // A corrupted ledger: a cached balance no longer equal to its postings.
      await sql("UPDATE balances SET amount = amount + 1 WHERE mode = 'test'")
      const check = await live.h.engine((e) => e.admin.checkLedger("test"))
      expect(check.balanceMismatches.length).toBeGreaterThan(0)
      await until(
        "a live delivery fails for good",
        async () =>
          ((await single(
            'increase(pixgate_webhook_deliveries_finished_total{mode="live", status="failed"}[5m])'
          )) ?? 0) > 0,
        testWait(2)
      )
    },
    testWait(4)
  )

  it(
    "evaluates every dashboard query and rule expression to data (alerts in their situations)",
    async () => {
      // The rules are evaluated on scrapes made after the scenarios. Each expression is read
      // up to the last scrape that succeeded (on a loaded machine one can pass its 1 s time-out,
      // and a failed scrape has a time, `up` 0, but none of the series), at least one made after
      // the scenarios; one still dark is read again on later scrapes and rule evaluations, for up
      // to a base wait (the series set at the scenarios' end may first appear in the last scrape,
      // after the range's last step).
      const after = Date.now() / 1000
      const lastGoodScrape = async () => (await single('timestamp(up{job="pixgate"} == 1)')) ?? 0
      let end = 0
      await until("Prometheus scrapes after the scenarios", async () => {
        end = await lastGoodScrape()
        return end > after + 1
      })
      const lit = async (expr: string) =>
        (await prometheus.queryRange(expr, scenarioStart, end)).some((series) => series.points > 0)
      const rules = await prometheus.rules()
      const { records, alerts } = ruleNames()
      expect(
        rules
          .filter((r) => r.type === "recording")
          .map((r) => r.name)
          .sort()
      ).toEqual([...records].sort())
      expect(
        rules
          .filter((r) => r.type === "alerting")
          .map((r) => r.name)
          .sort()
      ).toEqual([...alerts].sort())
      const checked: Array<{ readonly name: string; readonly expr: string }> = dashboardExpressions().map(
        ({ title, expr }) => ({ name: title, expr })
      )
      for (const rule of rules) {
        const expr =
          rule.type === "alerting" && !litHere.includes(rule.name) ? signalOf(rule.query) : rule.query
        if (rule.type === "alerting" && readinessAlerts.includes(rule.name)) {
          await prometheus.query(expr)
          continue
        }
        checked.push({ name: rule.name, expr })
      }
      const darkOf = async (candidates: ReadonlyArray<{ readonly name: string; readonly expr: string }>) => {
        const left: Array<{ readonly name: string; readonly expr: string }> = []
        for (const candidate of candidates) if (!(await lit(candidate.expr))) left.push(candidate)
        return left
      }
      let left = await darkOf(checked)
      const deadline = Date.now() + testWait(1)
      while (left.length > 0 && Date.now() < deadline) {
        await pause(2_000)
        end = Math.max(end, await lastGoodScrape())
        left = await darkOf(left)
      }
      const dark = left.map(({ name, expr }) => `${name}: ${expr}`)
      expect(dark).toEqual([])
    },
    testWait(4)
  )

  it(
    "the database gone: requests answer 503 and the readiness alerts return data; the listener gone: the scrape alert",
    async () => {
      await sql(`ALTER DATABASE "${database}" WITH ALLOW_CONNECTIONS false`, "postgres")
      await sql(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`,
        "postgres"
      )
      expect((await charge(testKey)).status).toBe(503)
      expect((await live.h.request("GET", "/api/health/ready")).status).toBe(503)
      const rules = await prometheus.rules()
      const query = (name: string) =>
        must(
          rules.find((r) => r.name === name),
          name
        ).query
      for (const name of ["PixgateNotReady", "PixgateNoInstanceReady"])
        await until(`${name} returns data`, async () => (await prometheus.query(query(name))).length > 0)
      await telemetry.close()
      await until(
        "PixgateDown returns data",
        async () => (await prometheus.query(query("PixgateDown"))).length > 0
      )
    },
    testWait(2)
  )
})
