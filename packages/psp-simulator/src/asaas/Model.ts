/**
 * The simulated Asaas account's records (customers, payments, Pix transactions, refunds,
 * transfers, webhook configurations) and their JSON as Asaas's API v3 shows them: amounts are
 * JSON numbers of reais, days are `YYYY-MM-DD` and moments `YYYY-MM-DD HH:mm:ss` in São Paulo
 * time, lists are `{ object: "list", hasMore, totalCount, limit, offset, data }`.
 */
import { randomUUID } from "node:crypto"
import { randomAlphanumeric } from "../Model.js"

/** A payer the account bills. */
export interface Customer {
  readonly id: string
  readonly name: string
  readonly cpfCnpj: string
  readonly notificationDisabled: boolean
  readonly externalReference?: string
  readonly dateCreated: Date
}

/** A payment's status (the Pix ones Asaas documents). */
export type PaymentStatus = "PENDING" | "OVERDUE" | "CONFIRMED" | "RECEIVED" | "REFUNDED"

/** A refund of a received payment, as listed in its `refunds` (amounts in centavos). */
export interface Refund {
  readonly value: number
  readonly description?: string
  readonly dateCreated: Date
  status: "PENDING" | "DONE" | "CANCELLED"
}

/** A charge (cobrança) with `billingType: PIX` (amounts in centavos). */
export interface Payment {
  readonly id: string
  readonly customer: string
  readonly value: number
  readonly dueDate: string
  readonly description?: string
  readonly externalReference?: string
  readonly dateCreated: Date
  readonly payload: string
  status: PaymentStatus
  deleted: boolean
  netValue: number
  paymentDate?: string
  pixTransaction?: string
  readonly refunds: Array<Refund>
}

/** The Pix that paid a payment (amount in centavos). */
export interface PixTransaction {
  readonly id: string
  readonly endToEndIdentifier: string
  readonly value: number
  readonly payment: string
  readonly effectiveDate: Date
}

/** A transfer's status. */
export type TransferStatus = "PENDING" | "BANK_PROCESSING" | "DONE" | "CANCELLED" | "FAILED"

/** A transfer to a Pix key (amount in centavos). */
export interface Transfer {
  readonly id: string
  readonly value: number
  readonly pixAddressKey: string
  readonly pixAddressKeyType: string
  readonly description?: string
  readonly externalReference?: string
  readonly dateCreated: Date
  status: TransferStatus
  endToEndIdentifier?: string
  effectiveDate?: Date
  failReason?: string
}

/** A webhook configuration (`POST /v3/webhooks`). */
export interface WebhookConfig {
  readonly id: string
  readonly name: string
  readonly url: string
  readonly email?: string
  readonly authToken?: string
  readonly events: ReadonlyArray<string>
  readonly sendType: string
  enabled: boolean
  interrupted: boolean
  /** Failed deliveries in a row (15 interrupt the queue). */
  failures: number
}

/** Everything the simulated account holds (in memory, gone on close). */
export interface AsaasState {
  readonly customers: Map<string, Customer>
  readonly payments: Map<string, Payment>
  readonly pixTransactions: Map<string, PixTransaction>
  readonly transfers: Map<string, Transfer>
  readonly webhooks: Map<string, WebhookConfig>
  /** The account's balance (centavos): received Pix in, transfers and refunds out. */
  balance: number
}

/** An empty account with `balance` centavos. */
export const emptyState = (balance: number): AsaasState => ({
  customers: new Map(),
  payments: new Map(),
  pixTransactions: new Map(),
  transfers: new Map(),
  webhooks: new Map(),
  balance
})

/** An Asaas-style id (`cus_`, `pay_`, `evt_` and 12 letters and digits). */
export const newId = (prefix: string) => `${prefix}_${randomAlphanumeric(12).toLowerCase()}`

/** A transfer's or Pix transaction's id (Asaas uses UUIDs for them). */
export const newUuid = () => randomUUID()

/** São Paulo is UTC-3 all year (no daylight saving since 2019). */
const saoPaulo = (at: Date) => new Date(at.getTime() - 3 * 3_600_000).toISOString()

/** The São Paulo day of a moment, `YYYY-MM-DD`. */
export const day = (at: Date) => saoPaulo(at).slice(0, 10)

/** A moment as Asaas writes it, `YYYY-MM-DD HH:mm:ss` in São Paulo time. */
export const moment = (at: Date) => saoPaulo(at).slice(0, 19).replace("T", " ")

/** Reais (a JSON number with at most two decimals, above zero) as centavos; undefined otherwise. */
export const centsOf = (value: unknown): number | undefined => {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) return undefined
  const cents = Math.round(value * 100)
  return cents / 100 === value && cents <= 99_999_999_999 ? cents : undefined
}

/** Centavos as reais. */
export const reais = (cents: number) => cents / 100

/** A page of `items` as Asaas lists them (`offset`, `limit` up to 100, default 10). */
export const page = <A>(items: ReadonlyArray<A>, query: URLSearchParams) => {
  const offset = Math.max(0, Number(query.get("offset") ?? 0) || 0)
  const limit = Math.min(100, Math.max(1, Number(query.get("limit") ?? 10) || 10))
  return {
    object: "list",
    hasMore: offset + limit < items.length,
    totalCount: items.length,
    limit,
    offset,
    data: items.slice(offset, offset + limit)
  }
}

/** A customer's JSON. */
export const customerJson = (c: Customer) => ({
  object: "customer",
  id: c.id,
  dateCreated: day(c.dateCreated),
  name: c.name,
  cpfCnpj: c.cpfCnpj,
  notificationDisabled: c.notificationDisabled,
  externalReference: c.externalReference ?? null,
  deleted: false
})

/** A payment's status as read now: a pending one past its due day is `OVERDUE`. */
export const statusAt = (p: Payment, now: Date): PaymentStatus =>
  p.status === "PENDING" && p.dueDate < day(now) ? "OVERDUE" : p.status

/** A payment's JSON. */
export const paymentJson = (p: Payment, now: Date) => ({
  object: "payment",
  id: p.id,
  dateCreated: day(p.dateCreated),
  customer: p.customer,
  dueDate: p.dueDate,
  value: reais(p.value),
  netValue: reais(p.netValue),
  billingType: "PIX",
  status: statusAt(p, now),
  description: p.description ?? null,
  externalReference: p.externalReference ?? null,
  pixTransaction: p.pixTransaction ?? null,
  paymentDate: p.paymentDate ?? null,
  clientPaymentDate: p.paymentDate ?? null,
  invoiceUrl: `https://sandbox.asaas.simulado/i/${p.id.slice(4)}`,
  deleted: p.deleted,
  refunds:
    p.refunds.length === 0
      ? null
      : p.refunds.map((r) => ({
          dateCreated: moment(r.dateCreated),
          status: r.status,
          value: reais(r.value),
          description: r.description ?? null,
          transactionReceiptUrl: null
        }))
})

/** A Pix transaction's JSON. */
export const pixTransactionJson = (t: PixTransaction) => ({
  id: t.id,
  endToEndIdentifier: t.endToEndIdentifier,
  value: reais(t.value),
  status: "DONE",
  type: "CREDIT",
  effectiveDate: moment(t.effectiveDate),
  payment: t.payment
})

/** A transfer's JSON. */
export const transferJson = (t: Transfer) => ({
  object: "transfer",
  id: t.id,
  type: "BANK_ACCOUNT",
  dateCreated: day(t.dateCreated),
  status: t.status,
  value: reais(t.value),
  netValue: reais(t.value),
  transferFee: 0,
  effectiveDate: t.effectiveDate === undefined ? null : day(t.effectiveDate),
  scheduleDate: day(t.dateCreated),
  endToEndIdentifier: t.endToEndIdentifier ?? null,
  authorized: true,
  failReason: t.failReason ?? null,
  externalReference: t.externalReference ?? null,
  description: t.description ?? null,
  operationType: "PIX",
  bankAccount: { pixAddressKey: t.pixAddressKey }
})

/** A webhook configuration's JSON (its token is never shown). */
export const webhookJson = (w: WebhookConfig) => ({
  id: w.id,
  name: w.name,
  url: w.url,
  email: w.email ?? null,
  enabled: w.enabled,
  interrupted: w.interrupted,
  authToken: null,
  sendType: w.sendType,
  events: w.events
})
