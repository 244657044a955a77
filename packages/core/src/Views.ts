/**
 * The public JSON of the spec's resources: reais as JSON numbers, ISO 8601 UTC times,
 * lowercase status and type. The engine API returns these, so embedders and HTTP see the same.
 */
import type { Transaction } from "./Domain.js"
import type { Fees } from "./Fees.js"
import * as FeesModule from "./Fees.js"
import * as Money from "./Money.js"

/** ISO 8601 UTC of epoch milliseconds. */
export const iso = (ms: number): string => new Date(ms).toISOString()

/** The spec's Fees object. */
export type FeesJson = ReturnType<typeof FeesModule.toJson>

/** Element of `data` in the transaction list. */
export interface TransactionJson {
  readonly id: string
  readonly type: Transaction["type"]
  readonly status: Transaction["status"]
  readonly amount: number
  readonly clientName: string | null
  readonly clientDocument: string | null
  readonly pixKey: string | null
  readonly txid: string | null
  readonly endToEndId: string | null
  readonly feeAmount: number
  readonly gatewayFeeAmount: number
  readonly netAmount: number
  readonly createdAt: string
  readonly updatedAt: string
}

/** A transaction as the list shows it. */
export const transaction = (tx: Transaction): TransactionJson => ({
  id: tx.id,
  type: tx.type,
  status: tx.status,
  amount: Money.toReais(tx.amount),
  clientName: tx.clientName,
  clientDocument: tx.clientDocument,
  pixKey: tx.pixKey,
  txid: tx.txid,
  endToEndId: tx.endToEndId,
  feeAmount: Money.toReais(tx.feeAmount),
  gatewayFeeAmount: Money.toReais(tx.gatewayFeeAmount),
  netAmount: Money.toReais(tx.netAmount),
  createdAt: iso(tx.createdAt),
  updatedAt: iso(tx.updatedAt)
})

/** Charge creation result. */
export interface ChargeJson {
  readonly transactionId: string
  readonly txid: string
  readonly qrCode: string
  readonly qrCodeBase64: string
  readonly expiresAt: string
  readonly amount: number
  readonly fees: FeesJson
}

/** Payout creation result. */
export interface PayoutJson {
  readonly transactionId: string
  readonly endToEndId: string
  readonly status: "pending"
  readonly amount: number
  readonly fees: FeesJson
}

/** The pagination envelope. */
export interface TransactionPageJson {
  readonly data: ReadonlyArray<TransactionJson>
  readonly total: number
  readonly page: number
  readonly limit: number
  readonly pages: number
}

/** The Fees object of a transaction's stored amounts. */
export const fees = (tx: Transaction): FeesJson => FeesModule.toJson(feesOf(tx))

/** Recovers the Fees of a stored transaction. */
export const feesOf = (tx: Transaction): Fees => ({
  feeAmount: tx.feeAmount,
  gatewayFeeAmount: tx.gatewayFeeAmount,
  adminMargin: Money.sub(tx.feeAmount, tx.gatewayFeeAmount),
  netAmount: tx.netAmount
})
