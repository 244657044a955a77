/**
 * Small builders of valid records for storage tests. Every id is fresh, so tests that share one
 * store never see each other's data; times default to `baseTime`; amounts are centavos.
 */
import type { Store } from "@pixgate/core"
import { Domain, Fees, Ids, Money } from "@pixgate/core"

type Account = Domain.Account
type Mode = Domain.Mode
type MerchantId = Domain.MerchantId
type Transaction = Domain.Transaction

/** The instant the fixtures default to: 2026-03-02T12:00:00.000Z. */
export const baseTime = Date.UTC(2026, 2, 2, 12)

/** A merchant with the default fee plan. */
export const makeMerchant = (overrides: Partial<Domain.Merchant> = {}): Domain.Merchant => ({
  id: Ids.merchantId(baseTime),
  name: "Loja Conformidade",
  city: "SAO PAULO",
  feePlan: Fees.defaultPlan,
  createdAt: baseTime,
  ...overrides
})

/** Options of the transaction builders. */
export interface TransactionOptions {
  readonly mode?: Mode
  /** Centavos; 10,000 (R$ 100.00) by default. */
  readonly amount?: number
  /** createdAt and updatedAt. */
  readonly at?: number
  readonly status?: Domain.TransactionStatus
  readonly plan?: Fees.FeePlan
}

const transaction = (
  merchantId: MerchantId,
  type: Domain.TransactionType,
  fees: (plan: Fees.FeePlan, amount: Money.Cents) => Fees.Fees,
  options: TransactionOptions
): Transaction => {
  const at = options.at ?? baseTime
  const amount = Money.Cents(options.amount ?? 10_000)
  const { feeAmount, gatewayFeeAmount, netAmount } = fees(options.plan ?? Fees.defaultPlan, amount)
  return Domain.newTransaction({
    id: Ids.transactionId(at),
    merchantId,
    mode: options.mode ?? "test",
    type,
    status: options.status ?? "pending",
    amount,
    feeAmount,
    gatewayFeeAmount,
    netAmount,
    createdAt: at
  })
}

/** A pending charge (`deposit`) with a fresh txid, expiring an hour after `at`. */
export const makeCharge = (merchantId: MerchantId, options: TransactionOptions = {}): Transaction => {
  const charge = transaction(merchantId, "deposit", Fees.forCharge, options)
  return {
    ...charge,
    txid: Ids.newTxid(charge.createdAt),
    clientName: "Fulano de Tal",
    expiresAt: charge.createdAt + 3_600_000
  }
}

/** A pending payout (`withdrawal`) to an e-mail PIX key. */
export const makePayout = (merchantId: MerchantId, options: TransactionOptions = {}): Transaction => ({
  ...transaction(merchantId, "withdrawal", Fees.forPayout, options),
  pixKey: "fulano@example.com",
  pixKeyType: "email"
})

/** What a payout takes from the available balance: amount + fee. */
export const payoutDebit = (payout: Transaction): Money.Cents => Money.add(payout.amount, payout.feeAmount)

/** A journal entry from `[account, centavos]` legs (callers keep them summing to zero). */
export const entry = (
  mode: Mode,
  kind: string,
  legs: ReadonlyArray<readonly [Account, number]>,
  options: { readonly transactionId?: Domain.TransactionId; readonly at?: number } = {}
): Domain.JournalEntry => ({
  id: Ids.entryId(options.at ?? baseTime),
  mode,
  kind,
  transactionId: options.transactionId ?? null,
  postings: legs.map(([account, amount]) => ({ account, amount: Money.Cents(amount) })),
  createdAt: options.at ?? baseTime
})

/** Money into a merchant's available balance (sandbox funding in test mode, the bank in live). */
export const topUpEntry = (merchantId: MerchantId, mode: Mode, amount: number, at = baseTime) =>
  entry(
    mode,
    "sandbox.topup",
    [
      [mode === "test" ? "sandbox:funding" : "bank:settlement", -amount],
      [`merchant:${merchantId}:available`, amount]
    ],
    { at }
  )

/** A paid charge: the merchant gets `netAmount`, fees split, the bank side pays `amount`. */
export const chargeCompletedEntry = (charge: Transaction, at = baseTime) =>
  entry(
    charge.mode,
    "charge.completed",
    [
      ["bank:settlement", -charge.amount],
      [`merchant:${charge.merchantId}:available`, charge.netAmount],
      ["platform:fees", charge.feeAmount - charge.gatewayFeeAmount],
      ["gateway:fees", charge.gatewayFeeAmount]
    ],
    { transactionId: charge.id, at }
  )

/** A new payout: the balance pays amount + fee. */
export const payoutCreatedEntry = (payout: Transaction, at = baseTime) =>
  entry(
    payout.mode,
    "payout.created",
    [
      [`merchant:${payout.merchantId}:available`, -payoutDebit(payout)],
      ["bank:settlement", payout.amount],
      ["platform:fees", payout.feeAmount - payout.gatewayFeeAmount],
      ["gateway:fees", payout.gatewayFeeAmount]
    ],
    { transactionId: payout.id, at }
  )

/** An event of a merchant. */
export const makeEvent = (
  merchantId: MerchantId,
  mode: Mode,
  type: Domain.EventType,
  options: { readonly at?: number; readonly data?: Record<string, unknown> } = {}
): Domain.Event => ({
  id: Ids.eventId(options.at ?? baseTime),
  merchantId,
  mode,
  type,
  data: options.data ?? { source: "conformance" },
  createdAt: options.at ?? baseTime
})

/** A durable job. */
export const makeJob = (kind: Domain.JobKind, ref: string, runAt: number): Domain.Job => ({
  id: Ids.jobId(runAt),
  kind,
  ref,
  runAt
})

/** Effects of a change: its events and jobs. */
export const effects = (
  events: ReadonlyArray<Domain.Event> = [],
  jobs: ReadonlyArray<Domain.Job> = []
): Store.Effects => ({ events, jobs })

/** A charge insert: no money moves yet, so no entry and no guard. */
export const chargeInsert = (charge: Transaction, caused = effects()): Store.NewTransactions => ({
  transactions: [charge],
  entry: null,
  guard: null,
  effects: caused
})

/** A payout insert guarded by "the available balance covers amount + fee". */
export const payoutInsert = (payout: Transaction, caused = effects()): Store.NewTransactions => ({
  transactions: [payout],
  entry: payoutCreatedEntry(payout, payout.createdAt),
  guard: { account: `merchant:${payout.merchantId}:available`, covers: payoutDebit(payout) },
  effects: caused
})

/** Pays a pending charge: pending -> completed with its end-to-end id and entry. */
export const completeCharge = (charge: Transaction, at = baseTime, caused = effects()): Store.Advance => ({
  id: charge.id,
  from: "pending",
  to: "completed",
  at,
  endToEndId: Ids.newEndToEndId("12345678", at),
  paidAt: at,
  entry: chargeCompletedEntry(charge, at),
  effects: caused
})

/** An open chargeback over (part of) a deposit. */
export const makeChargeback = (
  deposit: Transaction,
  options: { readonly amount?: number; readonly at?: number } = {}
): Domain.Chargeback => ({
  id: Ids.chargebackId(options.at ?? baseTime),
  transactionId: deposit.id,
  merchantId: deposit.merchantId,
  mode: deposit.mode,
  amount: Money.Cents(options.amount ?? deposit.netAmount),
  reason: "fraud",
  status: "open",
  createdAt: options.at ?? baseTime,
  updatedAt: options.at ?? baseTime
})

/** The hold of a chargeback: available -> held. */
export const chargebackOpenedEntry = (cb: Domain.Chargeback, at = baseTime) =>
  entry(
    cb.mode,
    "chargeback.opened",
    [
      [`merchant:${cb.merchantId}:available`, -cb.amount],
      [`merchant:${cb.merchantId}:held`, cb.amount]
    ],
    { transactionId: cb.transactionId, at }
  )

/** The end of a hold: to the payer through the bank (`accepted`) or back to available (`rejected`). */
export const chargebackResolvedEntry = (
  cb: Domain.Chargeback,
  status: "accepted" | "rejected",
  at = baseTime
) =>
  entry(
    cb.mode,
    `chargeback.${status}`,
    [
      [`merchant:${cb.merchantId}:held`, -cb.amount],
      [status === "accepted" ? "bank:settlement" : `merchant:${cb.merchantId}:available`, cb.amount]
    ],
    { transactionId: cb.transactionId, at }
  )

/** A stored API key with a random hash. */
export const makeApiKey = (merchantId: MerchantId, mode: Mode, at = baseTime): Domain.ApiKey => {
  const hash = Ids.randomBase62(64)
  return {
    id: Ids.apiKeyId(at),
    merchantId,
    mode,
    hash,
    hint: hash.slice(-4),
    createdAt: at,
    revokedAt: null
  }
}

/** A webhook endpoint. */
export const makeEndpoint = (
  merchantId: MerchantId,
  mode: Mode,
  options: {
    readonly url?: string
    readonly secret?: string
    readonly at?: number
    readonly signingKey?: string
    readonly secretHeader?: boolean
  } = {}
): Domain.NewWebhookEndpoint => ({
  merchantId,
  mode,
  url: options.url ?? `https://hooks.example.com/${merchantId}/${mode}`,
  secret: options.secret ?? `secret-${Ids.randomBase62(24)}`,
  secretHeader: options.secretHeader ?? true,
  updatedAt: options.at ?? baseTime,
  signingKey: options.signingKey ?? `whsec_${btoa(Ids.randomBase62(32))}`
})
