/**
 * Each concern's entry of the suite over a store that provides only the tags the entry names: a
 * part that reached for another concern would fail with a missing service. Together these run
 * every test of `runStoreConformance`.
 */
import { MemoryStore, Store } from "@pixgate/core"
import {
  runDeliveryStoreConformance,
  runIdempotencyStoreConformance,
  runJobStoreConformance,
  runLedgerStoreConformance,
  runMerchantStoreConformance,
  runPanelStoreConformance
} from "@pixgate/store-conformance"
import { Context, Effect, Layer } from "effect"

/** A fresh in-memory store behind exactly `pick`'s tags. */
const only = <R>(pick: (impl: Store.StoreShape) => Context.Context<R>): Layer.Layer<R> =>
  Layer.effectContext(Effect.map(MemoryStore.make, pick))

const merchants = (impl: Store.StoreShape) => Context.make(Store.MerchantStore, impl)
const ledger = (impl: Store.StoreShape) =>
  merchants(impl).pipe(Context.add(Store.LedgerStore, impl), Context.add(Store.ReadStore, impl))

runMerchantStoreConformance("MerchantStore alone", () => only(merchants))
runPanelStoreConformance("PanelStore over MerchantStore", () =>
  only((impl) => merchants(impl).pipe(Context.add(Store.PanelStore, impl)))
)
runLedgerStoreConformance("LedgerStore and ReadStore over MerchantStore", () => only(ledger))
runIdempotencyStoreConformance("IdempotencyStore over the ledger's", () =>
  only((impl) => ledger(impl).pipe(Context.add(Store.IdempotencyStore, impl)))
)
runJobStoreConformance("JobStore over MerchantStore and LedgerStore", () =>
  only((impl) =>
    merchants(impl).pipe(Context.add(Store.LedgerStore, impl), Context.add(Store.JobStore, impl))
  )
)
runDeliveryStoreConformance("DeliveryStore over the ledger's and JobStore", () =>
  only((impl) => ledger(impl).pipe(Context.add(Store.JobStore, impl), Context.add(Store.DeliveryStore, impl)))
)
