/**
 * One conformance suite for the Pixgate storage port. Every store (memory, SQLite, Postgres)
 * runs it; tests create fresh merchants and keep jobs in private time windows, so one store
 * instance serves the whole suite.
 */
import { layer } from "@effect/vitest"
import { type AdminTokenStore, Store, type WebhookOpsStore } from "@pixgate/core"
import { Layer } from "effect"
import { adminTokens } from "./internal/adminTokens.js"
import { batching } from "./internal/batching.js"
import { chargebacks } from "./internal/chargebacks.js"
import { concurrency } from "./internal/concurrency.js"
import { deliveries } from "./internal/deliveries.js"
import type { DeliveryParts, IdempotencyParts, LedgerParts } from "./internal/helpers.js"
import { idempotency } from "./internal/idempotency.js"
import { jobs } from "./internal/jobs.js"
import { ledger, ledgerClean, movements } from "./internal/ledger.js"
import { listing } from "./internal/listing.js"
import { merchants } from "./internal/merchants.js"
import { money } from "./internal/money.js"
import { panel } from "./internal/panel.js"
import { refunds } from "./internal/refunds.js"
import { timers } from "./internal/timers.js"
import { totals } from "./internal/totals.js"
import { webhookOps } from "./internal/webhookOps.js"

export * from "./authCache.js"
export * from "./fixtures.js"
export type { DeliveryParts, IdempotencyParts, LedgerParts } from "./internal/helpers.js"

/** Options of the suite. */
export interface StoreConformanceOptions {
  /** How many of the 1,000 racing payouts run at once ("unbounded" by default). */
  readonly concurrency?: number
}

/**
 * Registers `describe(name)` with the whole suite over one store built from `makeLayer` (once,
 * before the first test; released after the last). The store must be the suite's only writer.
 * The layer may provide the whole `Store` alone: the focused tags are read from it.
 */
export const runStoreConformance = (
  name: string,
  makeLayer: () => Layer.Layer<Store.Store, unknown, never>,
  options: StoreConformanceOptions = {}
): void =>
  layer(Layer.provideMerge(Store.fromFull, makeLayer()), { excludeTestServices: true })(name, (it) => {
    merchants(it)
    panel(it)
    money(it)
    chargebacks(it)
    refunds(it)
    listing(it)
    totals(it)
    ledger(it)
    movements(it)
    idempotency(it)
    jobs(it)
    timers(it)
    deliveries(it)
    concurrency(it, options.concurrency)
    batching(it)
    ledgerClean(it)
  })

/*
 * One entry per concern, for an adapter built a concern at a time: each runs the parts of the
 * suite that exercise its concern, over a layer providing that concern's tag and the tags its
 * tests build on (merchants always; the ledger's money units for what hangs off a transaction).
 * Together they run every test of `runStoreConformance`.
 */

/** `MerchantStore`: merchants, API keys, webhook endpoints. */
export const runMerchantStoreConformance = (
  name: string,
  makeLayer: () => Layer.Layer<Store.MerchantStore, unknown, never>
): void => layer(makeLayer(), { excludeTestServices: true })(name, (it) => merchants(it))

/** `PanelStore`: panel users, invites and sessions (over `MerchantStore`). */
export const runPanelStoreConformance = (
  name: string,
  makeLayer: () => Layer.Layer<Store.MerchantStore | Store.PanelStore, unknown, never>
): void => layer(makeLayer(), { excludeTestServices: true })(name, (it) => panel(it))

/**
 * `AdminTokenStore`: admin tokens by hash, one live token per name, revocation, last use, the
 * admin audit log. Every store of this repository provides it beside the `Store` (its layer's
 * output), so each runs this entry next to `runStoreConformance`.
 */
export const runAdminTokenStoreConformance = (
  name: string,
  makeLayer: () => Layer.Layer<AdminTokenStore.AdminTokenStore, unknown, never>
): void => layer(makeLayer(), { excludeTestServices: true })(name, (it) => adminTokens(it))

/**
 * `WebhookOpsStore`: disabled endpoints, the attempts an endpoint's health reads, resends of
 * failed deliveries (once per range, spaced), endpoint counts by state (migration 0020), over
 * the store's deliveries. Every store of this repository provides it beside the `Store`.
 */
export const runWebhookOpsStoreConformance = (
  name: string,
  makeLayer: () => Layer.Layer<Store.Store | WebhookOpsStore.WebhookOpsStore, unknown, never>
): void =>
  layer(Layer.provideMerge(Store.fromFull, makeLayer()), { excludeTestServices: true })(name, (it) =>
    webhookOps(it)
  )

/**
 * `LedgerStore` and `ReadStore`: the guarded money units, chargebacks, the transaction list and
 * its totals, the ledger check, concurrent guarded payouts (over `MerchantStore`).
 */
export const runLedgerStoreConformance = (
  name: string,
  makeLayer: () => Layer.Layer<LedgerParts, unknown, never>,
  options: StoreConformanceOptions = {}
): void =>
  layer(makeLayer(), { excludeTestServices: true })(name, (it) => {
    chargebacks(it)
    refunds(it)
    listing(it)
    totals(it)
    ledger(it)
    movements(it)
    concurrency(it, options.concurrency)
    ledgerClean(it)
  })

/** `IdempotencyStore`: every outcome of a key, and the answer stored with its change (over the ledger's). */
export const runIdempotencyStoreConformance = (
  name: string,
  makeLayer: () => Layer.Layer<IdempotencyParts, unknown, never>
): void =>
  layer(makeLayer(), { excludeTestServices: true })(name, (it) => {
    idempotency(it)
    batching(it)
  })

/**
 * `JobStore`: claiming, leases, retries, the next due time (over `MerchantStore`, and
 * `LedgerStore`, whose units store jobs with the change that causes them).
 */
export const runJobStoreConformance = (
  name: string,
  makeLayer: () => Layer.Layer<Store.MerchantStore | Store.LedgerStore | Store.JobStore, unknown, never>
): void => layer(makeLayer(), { excludeTestServices: true })(name, (it) => jobs(it))

/**
 * `DeliveryStore`: the outbox (events becoming deliveries and jobs in the unit of their change),
 * timers, attempts, endpoint health and redelivery (over the ledger's and `JobStore`).
 */
export const runDeliveryStoreConformance = (
  name: string,
  makeLayer: () => Layer.Layer<DeliveryParts, unknown, never>
): void =>
  layer(makeLayer(), { excludeTestServices: true })(name, (it) => {
    money(it)
    timers(it)
    deliveries(it)
  })
