/**
 * `GET /api/v1/transactions`: the first page of 20, filtered on `status=completed` and the
 * last 30 days, for merchants holding 10,000 / 100,000 / 1,000,000 transactions seeded by
 * direct SQL (see lib/seed.ts; the filter matches about 6.6% of a merchant's rows, so the
 * `total` counts 660 / 6,600 / 66,000 rows). Baseline: the same two statements (the page, and the
 * total from the per-day counts) as raw SQL through the same driver, on the same data.
 *
 * Each size is loaded twice: flat out over 32 connections (req/s; the latency there is mostly
 * the queue, connections / throughput by Little's law, for the raw baseline too), then at a
 * steady 200 req/s over 16 connections, where p50/p99 measure the request itself: the latency
 * targets (p99 < 25 ms at 1M rows, and within 2x of the 10k p99) are read from those rows.
 */

import { must } from "@pixgate/testkit/must"
import { admin } from "../lib/pixgate.js"
import type { Result } from "../lib/report.js"
import { lastThirtyDays, seedTransactions } from "../lib/seed.js"
import { keyHeaders, loadFigures, measure, type Settings, type StoreRun, summary } from "./common.js"

/** Requests per second of the latency rows: a quarter or less of what the server answers flat out. */
const steadyRate = 200

const label = (size: number) => (size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`)

/** Seeds one merchant per size and loads the listing of each, smallest first. */
export const run = async (settings: Settings, store: StoreRun): Promise<Array<Result>> => {
  const api = admin(store.pixgate)
  const now = Date.now()
  const filter = lastThirtyDays(now)
  const results: Array<Result> = []
  const p99s = new Map<number, number>()
  for (const [index, size] of settings.listSizes.entries()) {
    const merchant = await api.createMerchant(`List ${label(size)}`)
    const seeded = await seedTransactions(
      store.db,
      merchant.merchantId,
      String.fromCharCode(65 + index),
      size,
      now
    )
    settings.log(
      `seeded ${size.toLocaleString("en-US")} transactions in ${seeded.seconds.toFixed(1)} s (${store.kind})`
    )
    const baseRequest = () =>
      ({
        method: "GET",
        path: `/list?merchant=${merchant.merchantId}&status=${filter.status}&from=${filter.from}&to=${filter.to}`
      }) as const
    const path = `/api/v1/transactions?status=${filter.status}&startDate=${filter.startDate}&endDate=${filter.endDate}`
    const request = () => ({ method: "GET", path, headers: keyHeaders(merchant.testKey) }) as const

    // Saturated: as many requests as 32 connections get answered (latency there is mostly queue).
    const base = await measure(settings, store.baseline.origin, baseRequest)
    settings.log(summary(`baseline list SQL, ${label(size)} (${store.kind})`, base))
    const result = await measure(settings, store.pixgate.origin, request)
    settings.log(summary(`GET /api/v1/transactions, ${label(size)} (${store.kind})`, result))
    results.push(
      ...loadFigures({
        name: `GET /api/v1/transactions, ${label(size)} rows`,
        store: store.kind,
        unit: "req/s",
        result,
        baseline: base,
        baselineOf: "raw SQL: page + counts total, same driver"
      })
    )

    // At a steady rate well below saturation: the time a request takes, which is what the
    // latency targets and the growth with the data are about.
    const atRate = { rate: steadyRate, connections: 16 }
    const baseSteady = await measure(settings, store.baseline.origin, baseRequest, atRate)
    const steady = await measure(settings, store.pixgate.origin, request, atRate)
    settings.log(
      summary(`GET /api/v1/transactions at ${steadyRate}/s, ${label(size)} (${store.kind})`, steady)
    )
    p99s.set(size, steady.latency.p99)
    const smallest = must(p99s.get(settings.listSizes[0]), "p99s.get(settings.listSizes[0])")
    results.push(
      ...loadFigures({
        name: `GET /api/v1/transactions, ${label(size)} rows, at ${steadyRate} req/s`,
        store: store.kind,
        unit: "req/s",
        result: steady,
        baseline: baseSteady,
        baselineOf: `raw SQL at ${steadyRate} req/s`,
        p50: true,
        ...(size >= 1_000_000 ? { targets: { p99: { text: "< 25 ms", met: (v: number) => v < 25 } } } : {})
      }).filter((r) => r.metric !== "throughput")
    )
    if (index > 0) {
      results.push({
        name: `Listing p99 at ${steadyRate} req/s: ${label(size)} vs ${label(settings.listSizes[0])} rows`,
        store: store.kind,
        metric: "p99 latency",
        value: steady.latency.p99,
        unit: "ms",
        baseline: smallest,
        baselineOf: `the ${label(settings.listSizes[0])} row`,
        ratio: steady.latency.p99 / smallest,
        ...(size >= 1_000_000 ? { target: "<= 2x", met: steady.latency.p99 <= 2 * smallest } : {})
      })
    }
  }
  return results
}
