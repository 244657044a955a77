/**
 * The journal entries of every money movement (pure). Sign convention: a merchant account's
 * balance is what the platform owes the merchant; `platform:fees` and `gateway:fees` grow with
 * fees earned and owed; `bank:settlement` mirrors the cash at the settlement bank with the
 * opposite sign, so every entry sums to zero.
 */
import type { Chargeback, JournalEntry, Mode, Posting, Refund, Transaction } from "./Domain.js"
import { availableAccount, heldAccount } from "./Domain.js"
import * as Ids from "./Ids.js"
import type { Infraction, InfractionReturn } from "./Infractions.js"
import type { Cents } from "./Money.js"
import * as Money from "./Money.js"

const entry = (
  mode: Mode,
  kind: string,
  transaction: Transaction | null,
  now: number,
  postings: ReadonlyArray<Posting>
): JournalEntry => ({
  id: Ids.entryId(now),
  mode,
  kind,
  transactionId: transaction === null ? null : transaction.id,
  postings: postings.filter((p) => p.amount !== 0),
  createdAt: now
})

/** A paid charge: the payer's money arrives, the merchant gets `netAmount`, fees split. */
export const chargeCompleted = (charge: Transaction, now: number): JournalEntry =>
  entry(charge.mode, "charge.completed", charge, now, [
    { account: "bank:settlement", amount: Money.negate(charge.receivedAmount ?? charge.amount) },
    { account: availableAccount(charge.merchantId), amount: charge.netAmount },
    { account: "platform:fees", amount: Money.sub(charge.feeAmount, charge.gatewayFeeAmount) },
    { account: "gateway:fees", amount: charge.gatewayFeeAmount }
  ])

/** A new payout: the balance pays `amount + fee` at once; the amount leaves through the bank. */
export const payoutCreated = (payout: Transaction, now: number): JournalEntry =>
  entry(payout.mode, "payout.created", payout, now, [
    { account: availableAccount(payout.merchantId), amount: Money.negate(payoutDebit(payout)) },
    { account: "bank:settlement", amount: payout.amount },
    { account: "platform:fees", amount: Money.sub(payout.feeAmount, payout.gatewayFeeAmount) },
    { account: "gateway:fees", amount: payout.gatewayFeeAmount }
  ])

/** What a payout takes from the available balance. */
export const payoutDebit = (payout: Transaction): Cents => Money.add(payout.amount, payout.feeAmount)

/** A failed payout: the exact reverse of its creation, so `amount + fee` returns. */
export const payoutFailed = (payout: Transaction, now: number): JournalEntry => {
  const created = payoutCreated(payout, now)
  return entry(
    payout.mode,
    "payout.failed",
    payout,
    now,
    created.postings.map((p) => ({ account: p.account, amount: Money.negate(p.amount) }))
  )
}

/** An internal payment between two merchants of one mode: no bank, no fee. */
export const payment = (sender: Transaction, receiver: Transaction, now: number): JournalEntry =>
  entry(sender.mode, "payment", sender, now, [
    { account: availableAccount(sender.merchantId), amount: Money.negate(sender.amount) },
    { account: availableAccount(receiver.merchantId), amount: receiver.amount }
  ])

/** A chargeback opens: the disputed amount moves from available to held. */
export const chargebackOpened = (cb: Chargeback, deposit: Transaction, now: number): JournalEntry =>
  entry(cb.mode, "chargeback.opened", deposit, now, [
    { account: availableAccount(cb.merchantId), amount: Money.negate(cb.amount) },
    { account: heldAccount(cb.merchantId), amount: cb.amount }
  ])

/** Resolved for the payer: the held money goes back to the payer through the bank. */
export const chargebackAccepted = (cb: Chargeback, deposit: Transaction, now: number): JournalEntry =>
  entry(cb.mode, "chargeback.accepted", deposit, now, [
    { account: heldAccount(cb.merchantId), amount: Money.negate(cb.amount) },
    { account: "bank:settlement", amount: cb.amount }
  ])

/** Resolved for the merchant: the hold is released. */
export const chargebackRejected = (cb: Chargeback, deposit: Transaction, now: number): JournalEntry =>
  entry(cb.mode, "chargeback.rejected", deposit, now, [
    { account: heldAccount(cb.merchantId), amount: Money.negate(cb.amount) },
    { account: availableAccount(cb.merchantId), amount: cb.amount }
  ])

/**
 * A refund (devolução) is created: its amount leaves the available balance at once, back to
 * the payer through the bank. The charge's fee stays earned (docs/decisions.md): no fee posting.
 */
export const refundCreated = (refund: Refund, now: number): JournalEntry => ({
  ...entry(refund.mode, "refund.created", null, now, [
    { account: availableAccount(refund.merchantId), amount: Money.negate(refund.amount) },
    { account: "bank:settlement", amount: refund.amount }
  ]),
  transactionId: refund.transactionId
})

/** A refund the bank rejected: the exact reverse of its creation, so the amount returns. */
export const refundFailed = (refund: Refund, now: number): JournalEntry => ({
  ...entry(refund.mode, "refund.failed", null, now, [
    { account: availableAccount(refund.merchantId), amount: refund.amount },
    { account: "bank:settlement", amount: Money.negate(refund.amount) }
  ]),
  transactionId: refund.transactionId
})

/**
 * A MED infraction's block (bloqueio cautelar): `amount` moves from available to held
 * (`merchant:<id>:held`, the blocked balance), out of reach of payouts and refunds.
 */
export const infractionBlocked = (inf: Infraction, amount: Cents, now: number): JournalEntry => ({
  ...entry(inf.mode, "infraction.blocked", null, now, [
    { account: availableAccount(inf.merchantId), amount: Money.negate(amount) },
    { account: heldAccount(inf.merchantId), amount }
  ]),
  transactionId: inf.transactionId
})

/** What is left of an infraction's block goes back to the available balance. */
export const infractionReleased = (inf: Infraction, amount: Cents, now: number): JournalEntry => ({
  ...entry(inf.mode, "infraction.released", null, now, [
    { account: heldAccount(inf.merchantId), amount: Money.negate(amount) },
    { account: availableAccount(inf.merchantId), amount }
  ]),
  transactionId: inf.transactionId
})

/**
 * A devolução the bank performed for a MED: the blocked part leaves held, the rest leaves the
 * available balance (below zero when it is short: a debt the next credits settle), all of it
 * to the payer through the bank.
 */
export const infractionReturned = (ret: InfractionReturn, now: number): JournalEntry => ({
  ...entry(ret.mode, "infraction.returned", null, now, [
    { account: heldAccount(ret.merchantId), amount: Money.negate(ret.fromBlocked) },
    { account: availableAccount(ret.merchantId), amount: Money.negate(ret.fromAvailable) },
    { account: "bank:settlement", amount: ret.amount }
  ]),
  transactionId: ret.transactionId
})

/** Sandbox money for testing payouts: test mode only, funded by `sandbox:funding`. */
export const sandboxTopUp = (
  merchantId: Transaction["merchantId"],
  amount: Cents,
  now: number
): JournalEntry =>
  entry("test", "sandbox.topup", null, now, [
    { account: "sandbox:funding", amount: Money.negate(amount) },
    { account: availableAccount(merchantId), amount }
  ])
