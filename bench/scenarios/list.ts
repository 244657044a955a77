/**
 * `GET /api/v1/transactions`: the first page of 20, filtered on `status=completed` and the
 * last 30 days, for merchants holding 10,000 / 100,000 / 1,000,000 transactions seeded by
 * direct SQL (see lib/seed.ts; the filter matches about 6.6% of a merchant's rows, so the
 * `total` counts 660 / 6,600 / 66,000 rows). Baseline: the same two statements (the page, and the
 * total from the per-day counts) as raw SQL through the same driver, on the same data.
 */
import { admin } from "../lib/pixgate.js"
import type { Result } from "../lib/report.js"
import { lastThirtyDays, seedTransactions } from "../lib/seed.js"
import { keyHeaders, loadFigures, measure, type Settings, type StoreRun, summary } from "./common.js"

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
    const base = await measure(settings, store.baseline.origin, () => ({
      method: "GET",
      path: `/list?merchant=${merchant.merchantId}&status=${filter.status}&from=${filter.from}&to=${filter.to}`
    }))
    settings.log(summary(`baseline list SQL, ${label(size)} (${store.kind})`, base))
    const path = `/api/v1/transactions?status=${filter.status}&startDate=${filter.startDate}&endDate=${filter.endDate}`
    const result = await measure(settings, store.pixgate.origin, () => ({
      method: "GET",
      path,
      headers: keyHeaders(merchant.testKey)
    }))
    settings.log(summary(`GET /api/v1/transactions, ${label(size)} (${store.kind})`, result))
    p99s.set(size, result.latency.p99)
    const smallest = p99s.get(settings.listSizes[0]!)!
    const rows = loadFigures({
      name: `GET /api/v1/transactions, ${label(size)} rows`,
      store: store.kind,
      unit: "req/s",
      result,
      baseline: base,
      baselineOf: "raw SQL: page + counts total, same driver",
      ...(size >= 1_000_000 ? { targets: { p99: { text: "< 25 ms", met: (v: number) => v < 25 } } } : {})
    })
    results.push(...rows)
    if (index > 0) {
      results.push({
        name: `Listing p99: ${label(size)} vs ${label(settings.listSizes[0]!)} rows`,
        store: store.kind,
        metric: "p99 latency",
        value: result.latency.p99,
        unit: "ms",
        baseline: smallest,
        baselineOf: `the ${label(settings.listSizes[0]!)} row`,
        ratio: result.latency.p99 / smallest,
        ...(size >= 1_000_000 ? { target: "<= 2x", met: result.latency.p99 <= 2 * smallest } : {})
      })
    }
  }
  return results
}
