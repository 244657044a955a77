/**
 * Chargebacks (MED disputes), reported by the bank gateway. Opening holds the disputed amount
 * (available -> held, which may drive available below zero: the only way it can go negative);
 * accepting (resolved for the payer) refunds the deposit and the held money leaves; rejecting
 * (resolved for the merchant) releases the hold. Each step sends its event.
 */
import { Context, Effect, Layer, Option } from "effect"
import * as Events from "../contract/Events.js"
import type { Chargeback, ChargebackId, TransactionId } from "../domain/Domain.js"
import * as Ids from "../domain/Ids.js"
import * as Ledger from "../domain/Ledger.js"
import type { Cents } from "../domain/Money.js"
import { completing } from "../jobs/Jobs.js"
import { Gateways } from "../ports/BankGateway.js"
import { LedgerStore, ReadStore, type StoreError } from "../ports/Store.js"
import * as GatewayRouting from "./GatewayRouting.js"

/** Why an infraction could not be applied. */
export type ChargebackRefusal = "not_found" | "not_completed" | "already_open" | "invalid_amount" | "not_open"

/** Chargeback operations. */
export interface ChargebacksShape {
  /** Opens a dispute over a completed deposit (full amount unless given). */
  readonly open: (
    transactionId: TransactionId,
    options?: { readonly amount?: Cents; readonly reason?: string }
  ) => Effect.Effect<Either<Chargeback>, StoreError>
  /** Resolves an open dispute: `accepted` for the payer (refund) or `rejected` for the merchant. */
  readonly resolve: (
    id: ChargebackId,
    outcome: "accepted" | "rejected"
  ) => Effect.Effect<Either<Chargeback>, StoreError>
}

/** A chargeback or why there is none. */
export type Either<A> =
  | { readonly ok: true; readonly value: A }
  | { readonly ok: false; readonly reason: ChargebackRefusal }

const refuse = (reason: ChargebackRefusal) => ({ ok: false, reason }) as const

/** Builds the service. */
export const make = Effect.gen(function* () {
  const store = yield* LedgerStore
  const reads = yield* ReadStore
  const gateways = yield* Gateways

  const open: ChargebacksShape["open"] = (transactionId, options = {}) =>
    Effect.gen(function* () {
      const found = yield* reads.getTransaction(transactionId)
      if (Option.isNone(found) || found.value.type !== "deposit") return refuse("not_found")
      const deposit = found.value
      if (deposit.status !== "completed") return refuse("not_completed")
      // What the payer paid: a due-date charge's differs from its original amount.
      const received = deposit.receivedAmount ?? deposit.amount
      const amount = options.amount ?? received
      if (amount <= 0 || amount > received) return refuse("invalid_amount")
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const chargeback: Chargeback = {
        id: Ids.chargebackId(now),
        transactionId,
        merchantId: deposit.merchantId,
        mode: deposit.mode,
        amount,
        reason: options.reason ?? "payer_dispute",
        status: "open",
        createdAt: now,
        updatedAt: now
      }
      const timers = Option.match(yield* GatewayRouting.ofTransaction(gateways, deposit), {
        onNone: () => [],
        onSome: (g) => g.timers("chargeback.opened", deposit, chargeback.id, now)
      })
      const opened = yield* store.openChargeback(
        chargeback,
        Ledger.chargebackOpened(chargeback, deposit, now),
        {
          events: [Events.chargebackCreated(deposit, chargeback, now)],
          jobs: timers,
          ...(yield* completing)
        }
      )
      if (!opened) return refuse("already_open")
      return { ok: true, value: chargeback } as const
    })

  const resolve: ChargebacksShape["resolve"] = (id, outcome) =>
    Effect.gen(function* () {
      const found = yield* reads.getChargeback(id)
      if (Option.isNone(found)) return refuse("not_found")
      if (found.value.status !== "open") return refuse("not_open")
      const deposit = yield* reads.getTransaction(found.value.transactionId)
      if (Option.isNone(deposit)) return refuse("not_found")
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const resolved: Chargeback = { ...found.value, status: outcome, updatedAt: now }
      const refund = outcome === "accepted"
      const after = refund ? { ...deposit.value, status: "refunded" as const, updatedAt: now } : deposit.value
      const entry = refund
        ? Ledger.chargebackAccepted(resolved, deposit.value, now)
        : Ledger.chargebackRejected(resolved, deposit.value, now)
      const done = yield* store.resolveChargeback({
        id,
        status: outcome,
        at: now,
        refund,
        entry,
        effects: {
          events: [Events.chargebackUpdated(after, resolved, now)],
          jobs: [],
          ...(yield* completing)
        }
      })
      if (Option.isNone(done)) return refuse("not_open")
      return { ok: true, value: done.value } as const
    })

  return { open, resolve } satisfies ChargebacksShape
})

/** The chargebacks (MED) service, for the services and transports that use it. */
export class Chargebacks extends Context.Tag("@pixgate/core/Chargebacks")<Chargebacks, ChargebacksShape>() {}

/** The service over its dependencies, as its layer declares them (without spans: `Engine.layer` adds them). */
export const layer = Layer.effect(Chargebacks, make)
