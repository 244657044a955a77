/**
 * `POST /api/v1/charges`: a dynamic BR Code, its QR PNG and one pending transaction (with its
 * event and sandbox timers) per request, all load on one merchant. Baseline: the same HTTP
 * load on the baseline server doing one `INSERT INTO transactions` through the same driver
 * (no BR Code, no QR image: the QR rows show what those cost). Also the server CPU per charge
 * (user + system from /proc, its sandbox payment 2-3 s later included), against the baseline
 * server's per INSERT.
 */

import { must } from "@pixgate/testkit/must"
import type { LoadResult } from "../lib/load.js"
import { waitForIdle } from "../lib/pixgate.js"
import type { Result } from "../lib/report.js"
import { keyHeaders, loadFigures, measure, type Settings, type StoreRun, summary } from "./common.js"
import { baselineMerchant, cpuPer } from "./payouts.js"

// 10.00 to 14.99 as JSON number text (never 10.070000000000001): never the sandbox's magic
// amounts (6.66 is never paid, 7.77 is charged back).
const amount = (n: number) => `${10 + Math.floor((n % 500) / 100)}.${String(n % 100).padStart(2, "0")}`

/** Runs the charges row with its baseline. */
export const run = async (settings: Settings, store: StoreRun): Promise<Array<Result>> => {
  let base: LoadResult | undefined
  const baseCpu = await cpuPer(store.db, store.baseline.pid, async () => {
    base = await measure(settings, store.baseline.origin, (n) => ({
      method: "POST",
      path: "/charge",
      headers: { "content-type": "application/json" },
      body: `{"merchantId":"${baselineMerchant(0)}","amount":${amount(n)}}`
    }))
  })
  settings.log(summary(`baseline charge SQL (${store.kind})`, must(base, "the baseline's charges load")))
  let result: LoadResult | undefined
  // The sandbox payments included: the CPU is read again once the jobs have drained.
  const cpu = await cpuPer(store.db, store.pixgate.pid, async () => {
    result = await measure(settings, store.pixgate.origin, (n) => ({
      method: "POST",
      path: "/api/v1/charges",
      headers: keyHeaders(store.one.testKey, true),
      body: `{"amount":${amount(n)},"description":"benchmark"}`
    }))
    settings.log(summary(`POST /api/v1/charges (${store.kind})`, result))
    const left = await waitForIdle(store.db, 120_000)
    if (left > 0) settings.log(`  ${left} jobs still pending after the charges (${store.kind})`)
  })
  settings.log(`  server CPU per charge: ${cpu.toFixed(0)} µs (raw SQL server: ${baseCpu.toFixed(0)} µs)`)
  return [
    {
      name: "Charges: server CPU",
      store: store.kind,
      metric: "CPU per charge",
      value: cpu,
      unit: "µs",
      baseline: baseCpu,
      baselineOf: "the raw-SQL server's CPU per INSERT (Postgres' own CPU not counted on either)",
      ratio: cpu / baseCpu
    },
    ...loadFigures({
      name: "POST /api/v1/charges",
      store: store.kind,
      unit: "charges/s",
      result: must(result, "the charges load"),
      baseline: must(base, "the baseline's charges load"),
      baselineOf: "raw SQL: one INSERT, same driver",
      // A charge is a payout's work plus its BR Code, QR image and the sandbox payment after.
      targets: { rps: { text: ">= 0.3x raw INSERT", met: (v, b) => v >= 0.3 * b } }
    })
  ]
}
