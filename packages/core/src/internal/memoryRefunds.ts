/**
 * Refunds (devoluções) in memory (MemoryStore), over the store's own tables so a unit's refund,
 * entry and effects are written together (each operation synchronous, so atomic in one JS
 * thread).
 */
import { Effect, Option } from "effect"
import type { Refund, RefundId, Transaction, TransactionId } from "../domain/Domain.js"
import { availableAccount } from "../domain/Domain.js"
import * as Money from "../domain/Money.js"
import type { RefundStoreShape } from "../ports/RefundStore.js"
import type { Effects } from "../ports/Store.js"
import { StoreError } from "../ports/Store.js"
import { oldestFirst, own, type Tables } from "./memoryTables.js"

const atomic = <A>(body: () => A): Effect.Effect<A, StoreError> =>
  Effect.try({
    try: body,
    catch: (cause) =>
      new StoreError({ message: cause instanceof Error ? cause.message : String(cause), cause })
  })

const found = <A>(value: A | undefined): Option.Option<A> => Option.fromNullable(value)

/** The refunds' table beside the store's tables, and how a unit records its effects. */
interface State {
  readonly t: Tables
  readonly record: (effects: Effects) => void
  readonly refunds: Map<RefundId, Refund>
}

/** What a charge's refunds add up to, of the given statuses. */
const refundedOf =
  ({ refunds }: State) =>
  (transactionId: TransactionId, statuses: ReadonlyArray<Refund["status"]>) => {
    let sum = 0
    for (const r of refunds.values()) {
      if (r.transactionId === transactionId && statuses.includes(r.status)) sum += r.amount
    }
    return Money.Cents(sum)
  }

const insertRefund =
  (state: State): RefundStoreShape["insertRefund"] =>
  (input) =>
    atomic(() => {
      const { t, record, refunds } = state
      const { refund } = input
      const existing = refunds.get(refund.id)
      if (existing !== undefined) return { _tag: "Exists", refund: existing } as const
      const charge = t.transactions.get(refund.transactionId)
      if (
        charge === undefined ||
        charge.type !== "deposit" ||
        charge.merchantId !== refund.merchantId ||
        charge.mode !== refund.mode
      )
        return { _tag: "NotFound" } as const
      if (charge.status !== "completed") return { _tag: "NotCompleted", status: charge.status } as const
      const received = charge.receivedAmount ?? charge.amount
      const refunded = refundedOf(state)(charge.id, ["pending", "completed"])
      if (refunded + refund.amount > received)
        return { _tag: "Exceeds", refundable: Money.Cents(received - refunded) } as const
      if (t.accountBalance(refund.mode, availableAccount(refund.merchantId)) < refund.amount)
        return { _tag: "Insufficient" } as const
      const effects = input.effects(charge, Money.Cents(refunded + refund.amount))
      t.assertWritable(input.entry, effects)
      refunds.set(refund.id, own(refund))
      t.post(input.entry)
      record(effects)
      return { _tag: "Created", refund } as const
    })

const finishRefund =
  (state: State): RefundStoreShape["finishRefund"] =>
  (input) =>
    atomic(() => {
      const { t, record, refunds } = state
      const current = refunds.get(input.id)
      if (current === undefined || current.status !== "pending") return Option.none()
      const charge = t.transactions.get(current.transactionId)
      if (charge === undefined) return Option.none()
      const updated: Refund = own({
        ...current,
        status: input.to,
        updatedAt: input.at,
        ...(input.failureReason === undefined ? {} : { failureReason: input.failureReason }),
        ...(input.returnId === undefined ? {} : { returnId: input.returnId })
      })
      const received = charge.receivedAmount ?? charge.amount
      const completed =
        refundedOf(state)(charge.id, ["completed"]) + (input.to === "completed" ? updated.amount : 0)
      const after: Transaction =
        input.to === "completed" && completed >= received && charge.status === "completed"
          ? own({ ...charge, status: "refunded", updatedAt: input.at })
          : charge
      const refunded =
        refundedOf(state)(charge.id, ["pending", "completed"]) - (input.to === "failed" ? current.amount : 0)
      const effects = input.effects(updated, after, Money.Cents(refunded))
      t.assertWritable(input.entry, effects)
      refunds.set(updated.id, updated)
      if (after !== charge) t.transactions.set(after.id, after)
      t.post(input.entry)
      record(effects)
      return Option.some({ refund: updated, charge: after })
    })

/**
 * The refunds' operations over the store's tables (`record` writes effects and tells the worker),
 * and what a charge's refunds of some statuses add up to (the infractions' returns read it).
 */
export const refundOps = (
  t: Tables,
  record: (effects: Effects) => void
): {
  readonly ops: RefundStoreShape
  readonly refundedOf: (
    transactionId: TransactionId,
    statuses: ReadonlyArray<Refund["status"]>
  ) => Money.Cents
} => {
  const state: State = { t, record, refunds: new Map() }
  const { refunds } = state
  const ops: RefundStoreShape = {
    insertRefund: insertRefund(state),
    finishRefund: finishRefund(state),
    setRefundReturnId: (id, returnId, at) =>
      atomic(() => {
        const current = refunds.get(id)
        if (current === undefined || current.status !== "pending") return false
        refunds.set(id, own({ ...current, returnId, updatedAt: at }))
        return true
      }),
    getRefund: (id) => atomic(() => found(refunds.get(id))),
    listRefunds: (transactionId) =>
      atomic(() => [...refunds.values()].filter((r) => r.transactionId === transactionId).sort(oldestFirst))
  }
  return { ops, refundedOf: refundedOf(state) }
}
