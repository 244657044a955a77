/**
 * What the bank tells the engine: a charge was paid, a payout settled or failed, an infraction
 * (MED) was opened or resolved. The sandbox's timers and a live gateway's webhook both arrive
 * here, so test and live money follow the same rules. Every handler is idempotent.
 */
import { Effect, Option } from "effect"
import { Gateways } from "./BankGateway.js"
import { EngineConfig } from "./Config.js"
import type { Transaction, TransactionId } from "./Domain.js"
import * as Events from "./Events.js"
import * as Ids from "./Ids.js"
import { completing } from "./Jobs.js"
import * as Ledger from "./Ledger.js"
import { Store, type StoreError } from "./Store.js"

/** A payer's PIX arrived for a charge. */
export interface ChargePaid {
  readonly txid: string
  /** The payer's PSP's end-to-end id; generated when absent (sandbox). */
  readonly endToEndId?: string
  readonly paidAt?: number
}

/** Bank event operations. */
export interface BankEventsShape {
  /** Completes a pending charge, once: balance += netAmount, `transaction.completed`. */
  readonly chargePaid: (event: ChargePaid) => Effect.Effect<boolean, StoreError>
}

/** Builds the service. */
export const make = Effect.gen(function* () {
  const store = yield* Store
  const config = yield* EngineConfig
  const gateways = yield* Gateways

  const chargePaid = (event: ChargePaid) =>
    Effect.gen(function* () {
      const found = yield* store.findByTxid(event.txid)
      if (Option.isNone(found) || found.value.status !== "pending" || found.value.type !== "deposit") {
        return false
      }
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const paidAt = event.paidAt ?? now
      if (found.value.expiresAt !== null && paidAt >= found.value.expiresAt) return false
      const paid: Transaction = {
        ...found.value,
        status: "completed",
        endToEndId: event.endToEndId ?? Ids.newEndToEndId(config.ispb, now),
        paidAt,
        updatedAt: now
      }
      const timers = Option.match(gateways.forMode(paid.mode), {
        onNone: () => [],
        onSome: (g) => g.timers("charge.completed", paid, paid.id, now)
      })
      const advanced = yield* store.advance({
        id: paid.id as TransactionId,
        from: "pending",
        to: "completed",
        at: now,
        endToEndId: paid.endToEndId!,
        paidAt,
        entry: Ledger.chargeCompleted(paid, now),
        effects: { events: [Events.transactionCompleted(paid, now)], jobs: timers, ...(yield* completing) }
      })
      return Option.isSome(advanced)
    })

  return { chargePaid } satisfies BankEventsShape
})
