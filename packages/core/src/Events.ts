/**
 * Event records and their payloads. `transaction.completed` has the spec's shape; the others
 * follow it (docs/decisions.md): transactionId, type, status, amount, the ids that exist, `reason`
 * on failures and a `chargeback` object on chargeback events.
 */
import type { Chargeback, Event, EventType, Transaction } from "./Domain.js"
import * as Ids from "./Ids.js"
import * as Money from "./Money.js"

const iso = (ms: number): string => new Date(ms).toISOString()

const make = (tx: Transaction, type: EventType, data: Record<string, unknown>, now: number): Event => ({
  id: Ids.eventId(now),
  merchantId: tx.merchantId,
  mode: tx.mode,
  type,
  data,
  createdAt: now
})

const summary = (tx: Transaction): Record<string, unknown> => {
  const data: Record<string, unknown> = {
    transactionId: tx.id,
    type: tx.type,
    status: tx.status,
    amount: Money.toReais(tx.amount)
  }
  if (tx.txid !== null) data.txid = tx.txid
  if (tx.endToEndId !== null) data.endToEndId = tx.endToEndId
  if (tx.pixKey !== null) data.pixKey = tx.pixKey
  return data
}

/** `transaction.created`: any new transaction. */
export const transactionCreated = (tx: Transaction, now: number): Event =>
  make(tx, "transaction.created", summary(tx), now)

/** `withdrawal.created`: a new payout. */
export const withdrawalCreated = (tx: Transaction, now: number): Event =>
  make(tx, "withdrawal.created", summary(tx), now)

/** `transaction.completed` with the spec's fields (and the common ones). */
export const transactionCompleted = (tx: Transaction, now: number): Event =>
  make(tx, "transaction.completed", { ...summary(tx), paidAt: iso(tx.paidAt ?? now) }, now)

/** `transaction.failed` with its reason (e.g. `expired`). */
export const transactionFailed = (tx: Transaction, reason: string, now: number): Event =>
  make(tx, "transaction.failed", { ...summary(tx), reason }, now)

/** `withdrawal.completed`: the bank confirmed a payout. */
export const withdrawalCompleted = (tx: Transaction, now: number): Event =>
  make(tx, "withdrawal.completed", summary(tx), now)

const chargebackJson = (cb: Chargeback) => ({
  id: cb.id,
  amount: Money.toReais(cb.amount),
  status: cb.status,
  reason: cb.reason,
  createdAt: iso(cb.createdAt),
  updatedAt: iso(cb.updatedAt)
})

/** `chargeback.created`: a payer disputed a deposit. */
export const chargebackCreated = (tx: Transaction, cb: Chargeback, now: number): Event =>
  make(tx, "chargeback.created", { ...summary(tx), chargeback: chargebackJson(cb) }, now)

/** `chargeback.updated`: a dispute changed state. */
export const chargebackUpdated = (tx: Transaction, cb: Chargeback, now: number): Event =>
  make(tx, "chargeback.updated", { ...summary(tx), chargeback: chargebackJson(cb) }, now)
