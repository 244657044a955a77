/**
 * The webhook dispatcher, delivering to a local node:http receiver (a child) that answers 200.
 * Events come from payouts of one merchant whose test endpoint is the receiver: each payout
 * makes `transaction.created` and `withdrawal.created` at once, and `withdrawal.completed`
 * when the sandbox settles it 2-3 s later (three deliveries a payout).
 *
 * - Latency: payouts at a fixed rate; the receiver measures each event's first arrival minus
 *   its `timestamp` (the event's createdAt, stamped in the unit that commits it).
 * - Throughput: the receiver holds its answers while payouts run at full speed and their
 *   settlements come due, so a backlog of deliveries piles up in the jobs table; on release,
 *   deliveries/s = answers / (last answer - release). Settlement jobs run in the same mix.
 *
 * Baseline: a plain loop POSTing signed bodies of the same shape with node:http and a keep-alive
 * agent (Pixgate's client), 64 at a time (its webhook concurrency): the same number as fast as
 * it can, then the same rate.
 */
import { setTimeout as sleep } from "node:timers/promises"
import { request } from "undici"
import { cpuMsOf } from "../lib/cpu.js"
import type { LatencySummary } from "../lib/histogram.js"
import { admin, runSender, type Server, startReceiver, waitForIdle } from "../lib/pixgate.js"
import { compared, type Result } from "../lib/report.js"
import { failures, keyHeaders, measure, type Settings, type StoreRun } from "./common.js"

interface Stats {
  readonly events: number
  readonly answered: number
  readonly duplicates: number
  readonly lastAnswerAt: number
  readonly releasedAt: number
  readonly types: Record<string, number>
  readonly latency: LatencySummary
}

const control = async (receiver: Server, path: string): Promise<Stats> => {
  const response = await request(`${receiver.origin}${path}`, { method: path === "/_stats" ? "GET" : "POST" })
  return (await response.body.json()) as Stats
}

/**
 * Payouts per second of the latency phase (about 60 deliveries/s): a light load, so the figure
 * is the dispatcher's latency rather than a saturated server's queue.
 */
const latencyRate = 20

const body = JSON.stringify({ amount: 0.01, pixKey: "cliente@example.com" })

/** Runs both phases on one store, and the baseline sender against the same receiver. */
export const run = async (settings: Settings, store: StoreRun): Promise<Array<Result>> => {
  const receiver = await startReceiver()
  try {
    const api = admin(store.pixgate)
    const merchant = await api.createMerchant("Webhooks")
    await api.topUp(merchant.merchantId, 1_000_000)
    await api.setWebhook(
      merchant.merchantId,
      `${receiver.origin}/hook`,
      "whsec_YmVuY2htYXJrLXdlYmhvb2stc2VjcmV0"
    )
    const payout = () => ({
      method: "POST" as const,
      path: "/api/v1/payouts",
      headers: keyHeaders(merchant.testKey, true),
      body
    })

    // Latency at a steady rate.
    await control(receiver, "/_reset")
    const steady = await measure(settings, store.pixgate.origin, payout, {
      rate: latencyRate,
      connections: 16
    })
    await waitForIdle(store.db, 60_000)
    const latency = await control(receiver, "/_stats")
    const steadySeconds = (settings.warmupMs + settings.durationMs) / 1000
    settings.log(
      `webhooks at ${latencyRate} payouts/s (${store.kind}, ${steady.rps.toFixed(0)}/s done): ${latency.events} events, ` +
        `p50 ${latency.latency.p50} ms, p99 ${latency.latency.p99} ms`
    )

    // Throughput: build a backlog while the receiver holds its answers, then release it.
    await control(receiver, "/_reset")
    await control(receiver, "/_hold")
    const backlogStart = Date.now()
    const burst = await measure(settings, store.pixgate.origin, payout, {
      durationMs: settings.quick ? 500 : 3_000
    })
    await sleep(3_200) // every settlement of the burst is due now
    // The server's CPU (user + system, /proc) over the drain: steadier than the rate on a
    // shared machine. It includes the settlements due in the mix and the idle check's polls.
    const cpuBefore = cpuMsOf(store.pixgate.pid)
    await control(receiver, "/_release")
    const left = await waitForIdle(store.db, 120_000)
    const drainCpuMs = cpuMsOf(store.pixgate.pid) - cpuBefore
    await sleep(200)
    const drained = await control(receiver, "/_stats")
    const seconds = Math.max(0.001, (drained.lastAnswerAt - drained.releasedAt) / 1000)
    const rate = drained.answered / seconds
    const statuses = await store.db.query<{ status: string; n: number | string }>(
      `SELECT status, COUNT(*) AS n FROM webhook_deliveries WHERE merchant_id = '${merchant.merchantId}'
        AND created_at >= ${backlogStart} GROUP BY status`
    )
    const byStatus = Object.fromEntries(statuses.map((s) => [s.status, Number(s.n)]))
    const cpuPerDelivery = (drainCpuMs * 1000) / Math.max(1, drained.answered)
    settings.log(
      `webhook backlog (${store.kind}): ${drained.answered} answers in ${seconds.toFixed(2)} s = ${Math.round(rate)}/s; ` +
        `deliveries ${JSON.stringify(byStatus)}${left > 0 ? `; ${left} jobs left` : ""}; ` +
        `server CPU per delivery ${cpuPerDelivery.toFixed(0)} µs`
    )

    // Baselines against the same receiver.
    await control(receiver, "/_reset")
    const sent = await runSender({
      TARGET: `${receiver.origin}/hook`,
      MODE: "drain",
      COUNT: String(Math.max(settings.quick ? 300 : 1_000, drained.answered))
    })
    await control(receiver, "/_reset")
    const steadyRate = Math.max(1, Math.round(latency.events / steadySeconds))
    await runSender({
      TARGET: `${receiver.origin}/hook`,
      MODE: "rate",
      RATE: String(steadyRate),
      DURATION_MS: String(settings.warmupMs + settings.durationMs)
    })
    const baseLatency = await control(receiver, "/_stats")
    settings.log(
      `baseline sender (${store.kind}): ${Math.round(sent.rps)}/s; at ${steadyRate}/s p50 ${baseLatency.latency.p50} ms, ` +
        `p99 ${baseLatency.latency.p99} ms`
    )

    const notes = [
      failures(steady),
      failures(burst),
      byStatus.failed ? `${byStatus.failed} deliveries failed` : undefined,
      byStatus.pending ? `${byStatus.pending} deliveries still pending` : undefined
    ].filter(Boolean)
    const note = notes.length > 0 ? notes.join("; ") : undefined
    const name = "Webhook dispatcher"
    return [
      {
        ...compared({
          name,
          store: store.kind,
          metric: "deliveries/s (backlog)",
          value: rate,
          unit: "/s",
          baseline: sent.rps,
          baselineOf: "plain node:http loop, 64 in flight"
        }),
        // One healthy endpoint's backlog against the plain sender of the same run.
        target: store.kind === "postgres" ? ">= 0.5x sender" : ">= 0.7x sender",
        met: rate >= (store.kind === "postgres" ? 0.5 : 0.7) * sent.rps && !byStatus.failed,
        note: `${drained.answered} deliveries from ${burst.ok} payouts${note ? `; ${note}` : ""}`
      },
      {
        name,
        store: store.kind,
        metric: "server CPU per delivery (backlog)",
        value: cpuPerDelivery,
        unit: "µs",
        note: "user + system time of the server over the drain (/proc), per delivery"
      },
      {
        ...compared({
          name,
          store: store.kind,
          metric: "commit-to-arrival p50",
          value: latency.latency.p50,
          unit: "ms",
          baseline: baseLatency.latency.p50,
          baselineOf: `plain node:http loop at ${steadyRate}/s`
        }),
        note: `${latency.events} events; payouts at ${latencyRate}/s asked, ${steady.rps.toFixed(0)}/s done (~${steadyRate} deliveries/s)`
      },
      {
        ...compared({
          name,
          store: store.kind,
          metric: "commit-to-arrival p99",
          value: latency.latency.p99,
          unit: "ms",
          baseline: baseLatency.latency.p99,
          baselineOf: `plain node:http loop at ${steadyRate}/s`
        }),
        target: "< 100 ms",
        met: latency.latency.p99 < 100
      }
    ]
  } finally {
    await receiver.stop()
  }
}
