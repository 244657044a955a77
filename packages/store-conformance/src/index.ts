/**
 * One conformance suite for the Pixgate storage port. Every store (memory, SQLite, Postgres)
 * runs it; tests create fresh merchants and keep jobs in private time windows, so one store
 * instance serves the whole suite.
 */
import { layer } from "@effect/vitest"
import type { Store } from "@pixgate/core"
import type { Layer } from "effect"
import { batching } from "./internal/batching.js"
import { chargebacks } from "./internal/chargebacks.js"
import { concurrency } from "./internal/concurrency.js"
import { deliveries } from "./internal/deliveries.js"
import { idempotency } from "./internal/idempotency.js"
import { jobs } from "./internal/jobs.js"
import { ledger, ledgerClean } from "./internal/ledger.js"
import { listing } from "./internal/listing.js"
import { merchants } from "./internal/merchants.js"
import { money } from "./internal/money.js"
import { panel } from "./internal/panel.js"
import { timers } from "./internal/timers.js"
import { totals } from "./internal/totals.js"

export * from "./fixtures.js"

/** Options of the suite. */
export interface StoreConformanceOptions {
  /** How many of the 1,000 racing payouts run at once ("unbounded" by default). */
  readonly concurrency?: number
}

/**
 * Registers `describe(name)` with the whole suite over one store built from `makeLayer` (once,
 * before the first test; released after the last). The store must be the suite's only writer.
 */
export const runStoreConformance = (
  name: string,
  makeLayer: () => Layer.Layer<Store.Store, unknown, never>,
  options: StoreConformanceOptions = {}
): void =>
  layer(makeLayer(), { excludeTestServices: true })(name, (it) => {
    merchants(it)
    panel(it)
    money(it)
    chargebacks(it)
    listing(it)
    totals(it)
    ledger(it)
    idempotency(it)
    jobs(it)
    timers(it)
    deliveries(it)
    concurrency(it, options.concurrency)
    batching(it)
    ledgerClean(it)
  })
