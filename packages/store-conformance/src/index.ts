/**
 * One conformance suite for the Pixgate storage port. Every store (memory, SQLite, Postgres)
 * runs it; tests create fresh merchants and keep jobs in private time windows, so one store
 * instance serves the whole suite.
 */
import { layer } from "@effect/vitest"
import {
  type AdminTokenStore,
  type InfractionStore,
  type MerchantGatewayStore,
  type PaymentLinkStore,
  type RefundStore,
  Store,
  type SubscriptionStore,
  type WebhookOpsStore
} from "@pixgate/core"
import { Context, Effect, Layer } from "effect"
import { adminTokens } from "./internal/adminTokens.js"
import { batching } from "./internal/batching.js"
import { chargebacks } from "./internal/chargebacks.js"
import { concurrency } from "./internal/concurrency.js"
import { deliveries } from "./internal/deliveries.js"
import type { DeliveryParts, IdempotencyParts, LedgerParts } from "./internal/helpers.js"
import { idempotency } from "./internal/idempotency.js"
import { infractions } from "./internal/infractions.js"
import { jobs } from "./internal/jobs.js"
import { ledger, ledgerClean, movements } from "./internal/ledger.js"
import { listing } from "./internal/listing.js"
import { type MailParts, mailAndTeam } from "./internal/mail.js"
import { merchantGateways } from "./internal/merchantGateways.js"
import { merchants } from "./internal/merchants.js"
import { money } from "./internal/money.js"
import { panel } from "./internal/panel.js"
import { paymentLinks } from "./internal/paymentLinks.js"
import { refunds } from "./internal/refunds.js"
import { overlappingSettlements, settlements } from "./internal/settlements.js"
import { subscriptions } from "./internal/subscriptions.js"
import { timers } from "./internal/timers.js"
import { totals } from "./internal/totals.js"
import { webhookOps } from "./internal/webhookOps.js"

export * from "./authCache.js"
export * from "./fixtures.js"
export type { DeliveryParts, IdempotencyParts, LedgerParts } from "./internal/helpers.js"
export { cycleRecord, subscriptionRecord } from "./internal/subscriptions.js"

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
    settlements(it)
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

/** `PaymentLinkStore` (migration 0024): links, their atomic usage limit and the charges they made. */
export const runPaymentLinkStoreConformance = (
  name: string,
  makeLayer: () => Layer.Layer<PaymentLinkStore.PaymentLinkStore, unknown, never>
): void => layer(makeLayer(), { excludeTestServices: true })(name, (it) => paymentLinks(it))

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
 * `MailStore` and `TeamStore` (migration 0021): the e-mail outbox with its jobs, notification
 * choices, removing a panel user, last sign-ins. Every store of this repository provides them
 * beside the `Store`.
 */
export const runMailStoreConformance = (
  name: string,
  makeLayer: () => Layer.Layer<MailParts, unknown, never>
): void => layer(makeLayer(), { excludeTestServices: true })(name, (it) => mailAndTeam(it))

/**
 * `InfractionStore` (MED infractions, migration 0022) over the `Store` it shares its units with:
 * blocks, state changes, devoluções booked once. Every store of this repository provides it
 * beside the `Store`, so each runs this entry next to `runStoreConformance`.
 */
export const runInfractionStoreConformance = (
  name: string,
  makeLayer: () => Layer.Layer<Store.Stores | InfractionStore.InfractionStore, unknown, never>
): void => layer(makeLayer(), { excludeTestServices: true })(name, (it) => infractions(it))

/**
 * `RefundStore` (refunds, migration 0012) over the `Store` it shares its units with: a refund's
 * checks decided in its unit, its id written once, the charge `refunded` when its completed
 * refunds reach what it received, concurrent refunds never passing it. Every store of this
 * repository provides it beside the `Store`, so each runs this entry next to `runStoreConformance`.
 */
export const runRefundStoreConformance = (
  name: string,
  makeLayer: () => Layer.Layer<LedgerParts | RefundStore.RefundStore, unknown, never>
): void => layer(makeLayer(), { excludeTestServices: true })(name, (it) => refunds(it))

/**
 * `SubscriptionStore`: subscriptions and their cycles, versioned changes, one cycle per
 * (subscription, sequence) even under racing inserts. Every store of this repository provides it.
 */
export const runSubscriptionStoreConformance = (
  name: string,
  makeLayer: () => Layer.Layer<SubscriptionStore.SubscriptionStore, unknown, never>
): void => layer(makeLayer(), { excludeTestServices: true })(name, (it) => subscriptions(it))

/**
 * `MerchantGatewayStore`: each merchant's live gateway, an append-only history of assignments
 * (migration 0025). Every store of this repository provides it beside the `Store`.
 */
export const runMerchantGatewayStoreConformance = (
  name: string,
  makeLayer: () => Layer.Layer<
    MerchantGatewayStore.MerchantGatewayStore | Store.MerchantStore,
    unknown,
    never
  >
): void => layer(makeLayer(), { excludeTestServices: true })(name, (it) => merchantGateways(it))

/**
 * `WebhookOpsStore`: disabled endpoints, the attempts an endpoint's health reads, resends of
 * failed deliveries (once per range, spaced), endpoint counts by state (migration 0026), over
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
    listing(it)
    totals(it)
    ledger(it)
    movements(it)
    concurrency(it, options.concurrency)
    settlements(it)
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

/** The second instance of `runOverlappingSettlements`, beside the first's `Store`. */
class SecondStore extends Context.Tag("@pixgate/store-conformance/SecondStore")<
  SecondStore,
  Store.StoreShape
>() {}

/**
 * Batches of settlements (`LedgerStore.advanceEach`) from two store instances over one database
 * at once, overlapping each other and single transitions: every transition applies exactly
 * once, every balance and event is what one by one leaves. `makeFirst` and `makeSecond` open
 * the same database (two connections, pools or processes' worth of stores).
 */
export const runOverlappingSettlements = (
  name: string,
  makeFirst: () => Layer.Layer<Store.Store, unknown, never>,
  makeSecond: () => Layer.Layer<Store.Store, unknown, never>,
  options: { readonly timeout?: number } = {}
): void =>
  layer(
    // The second opens once the first has (a new SQLite file's data key is written once).
    Layer.effect(SecondStore, Store.Store).pipe(
      Layer.provide(makeSecond()),
      Layer.provideMerge(Layer.provideMerge(Store.fromFull, makeFirst()))
    ),
    { excludeTestServices: true, ...(options.timeout === undefined ? {} : { timeout: options.timeout }) }
  )(name, (it) => {
    it.effect("overlapping batches of two instances apply each transition once", () =>
      Effect.gen(function* () {
        return yield* overlappingSettlements(yield* Store.Store, yield* SecondStore)
      })
    )
  })
