/**
 * The simulated Asaas account's rules: customers, Pix charges and their QR codes, payments by a
 * payer, removals, refunds (partial ones add up to at most the payment), transfers to Pix keys
 * out of the balance (an identical transfer within 15 minutes is refused with 409, as Asaas
 * documents), and the webhook event each change emits.
 */
import * as BrCode from "../BrCode.js"
import type { CallbackMode } from "../Callbacks.js"
import { endToEndId, randomAlphanumeric } from "../Model.js"
import type { Events } from "./Events.js"
import {
  type AsaasState,
  type Customer,
  day,
  newId,
  newUuid,
  type Payment,
  type PixTransaction,
  paymentJson,
  type Refund,
  type Transfer,
  transferJson
} from "./Model.js"

/** What happens to a new transfer without a control call. */
export type TransferOutcome = "manual" | "done" | "fail" | "instant"

/** What happens to a new refund without a control call. */
export type RefundOutcome = "done" | "cancel" | "manual"

/** A request the account refuses: the status and Asaas's error `code`. */
export class AccountError extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    readonly code: string,
    message: string
  ) {
    super(message)
  }
}

/** Settings of the simulated account. */
export interface AccountSettings {
  readonly ispb: string
  readonly merchantName: string
  readonly merchantCity: string
  /** Host and path prefix of the QR codes' locations (not served by the simulator). */
  readonly locationHost: string
  /** Asaas's fee on a received Pix (centavos), kept out of `netValue` and the balance. */
  readonly pixFee: number
  /** Identical transfers (same value and key) within this window are refused with 409. */
  readonly duplicateWindowMs: number
  readonly transferOutcome: () => TransferOutcome
  readonly refundOutcome: () => RefundOutcome
  readonly eventMode: () => CallbackMode
  readonly now: () => Date
}

/** Options of `pay`. */
export interface PayOptions {
  /** `CONFIRMED` holds the money (Asaas's precautionary block) until `receive`. Default `RECEIVED`. */
  readonly status?: "RECEIVED" | "CONFIRMED"
  /** How the event is delivered; the simulator's mode when absent. */
  readonly events?: CallbackMode
  /** Pay a payment that is removed or paid already. */
  readonly force?: boolean
}

/** The account: its state and every change to it. */
export class Account {
  constructor(
    readonly settings: AccountSettings,
    readonly state: AsaasState,
    readonly events: Events
  ) {}

  private get now() {
    return this.settings.now()
  }

  /** Registers a payer. */
  createCustomer(input: Omit<Customer, "id" | "dateCreated">): Customer {
    const customer: Customer = { ...input, id: newId("cus"), dateCreated: this.now }
    this.state.customers.set(customer.id, customer)
    return customer
  }

  /** Creates a Pix charge and its dynamic QR code (a due-date location, as Asaas issues them). */
  createPayment(input: {
    readonly customer: string
    readonly value: number
    readonly dueDate: string
    readonly description?: string
    readonly externalReference?: string
  }): Payment {
    if (!this.state.customers.has(input.customer))
      throw new AccountError(400, "invalid_customer", "Cliente inexistente.")
    if (input.dueDate < day(this.now))
      throw new AccountError(400, "invalid_dueDate", "A data de vencimento não pode ser inferior à hoje.")
    const location = `${this.settings.locationHost}/qr/cobv/${randomAlphanumeric(32).toLowerCase()}`
    const payment: Payment = {
      ...input,
      id: newId("pay"),
      dateCreated: this.now,
      payload: BrCode.dynamic({
        location,
        merchantName: this.settings.merchantName,
        merchantCity: this.settings.merchantCity
      }),
      status: "PENDING",
      deleted: false,
      netValue: input.value - this.settings.pixFee,
      refunds: []
    }
    this.state.payments.set(payment.id, payment)
    void this.emit("PAYMENT_CREATED", payment, this.settings.eventMode())
    return payment
  }

  /** A payment by id, or 404. */
  payment(id: string): Payment {
    const payment = this.state.payments.get(id)
    if (payment === undefined) throw new AccountError(404, "not_found", `No payment ${id}.`)
    return payment
  }

  /** A payer pays a payment's QR code: a Pix transaction, the balance, `PAYMENT_RECEIVED`. */
  async pay(id: string, options: PayOptions = {}): Promise<PixTransaction> {
    const payment = this.payment(id)
    const open = !payment.deleted && (payment.status === "PENDING" || payment.status === "OVERDUE")
    if (!open && options.force !== true)
      throw new AccountError(
        409,
        "invalid_action",
        `payment ${id} is ${payment.deleted ? "removed" : payment.status}`
      )
    const pix: PixTransaction = {
      id: newUuid(),
      endToEndIdentifier: endToEndId("E", this.settings.ispb, this.now),
      value: payment.value,
      payment: payment.id,
      effectiveDate: this.now
    }
    this.state.pixTransactions.set(pix.id, pix)
    payment.pixTransaction = pix.id
    payment.paymentDate = day(this.now)
    const status = options.status ?? "RECEIVED"
    payment.status = status
    if (status === "RECEIVED") this.state.balance += payment.netValue
    const event = status === "RECEIVED" ? "PAYMENT_RECEIVED" : "PAYMENT_CONFIRMED"
    await this.emit(event, payment, options.events ?? this.settings.eventMode())
    return pix
  }

  /** Ends a precautionary block: a `CONFIRMED` payment becomes `RECEIVED`. */
  async receive(id: string, events?: CallbackMode) {
    const payment = this.payment(id)
    if (payment.status !== "CONFIRMED")
      throw new AccountError(409, "invalid_action", `payment ${id} is ${payment.status}`)
    payment.status = "RECEIVED"
    this.state.balance += payment.netValue
    await this.emit("PAYMENT_RECEIVED", payment, events ?? this.settings.eventMode())
  }

  /** Removes a payment not paid yet (its QR code can no longer be paid). */
  deletePayment(id: string) {
    const payment = this.payment(id)
    if (payment.deleted) throw new AccountError(404, "not_found", `No payment ${id}.`)
    if (payment.status !== "PENDING")
      throw new AccountError(400, "invalid_action", "Não é possível remover uma cobrança já paga.")
    payment.deleted = true
    void this.emit("PAYMENT_DELETED", payment, this.settings.eventMode())
  }

  /** Refunds part or all of a received payment out of the balance. */
  refund(id: string, input: { readonly value?: number; readonly description?: string }): Payment {
    const payment = this.payment(id)
    if (payment.deleted || payment.status !== "RECEIVED")
      throw new AccountError(400, "invalid_action", "Somente cobranças recebidas podem ser estornadas.")
    const refunded = payment.refunds
      .filter((r) => r.status !== "CANCELLED")
      .reduce((sum, r) => sum + r.value, 0)
    const value = input.value ?? payment.value - refunded
    if (value <= 0 || refunded + value > payment.value)
      throw new AccountError(400, "invalid_value", "O valor do estorno excede o valor da cobrança.")
    if (value > this.state.balance)
      throw new AccountError(400, "insufficient_balance", "Saldo insuficiente para o estorno.")
    this.state.balance -= value
    const refund: Refund = {
      value,
      dateCreated: this.now,
      status: "PENDING",
      ...(input.description === undefined ? {} : { description: input.description })
    }
    payment.refunds.push(refund)
    const outcome = this.settings.refundOutcome()
    if (outcome !== "manual")
      setImmediate(() => {
        if (refund.status === "PENDING")
          this.decideRefund(payment, refund, outcome === "done" ? "DONE" : "CANCELLED")
      })
    return payment
  }

  /** Decides a refund still `PENDING`: `DONE` (the payment refunded when nothing is left) or `CANCELLED`. */
  decideRefund(payment: Payment, refund: Refund, status: "DONE" | "CANCELLED") {
    if (refund.status !== "PENDING")
      throw new AccountError(409, "invalid_action", `refund is ${refund.status}`)
    refund.status = status
    if (status === "CANCELLED") this.state.balance += refund.value
    const done = payment.refunds.filter((r) => r.status === "DONE").reduce((sum, r) => sum + r.value, 0)
    if (status === "DONE" && done === payment.value) payment.status = "REFUNDED"
    // Asaas documents no event for a cancelled refund: it shows in the payment's `refunds` only.
    if (status === "DONE")
      void this.emit(
        done === payment.value ? "PAYMENT_REFUNDED" : "PAYMENT_PARTIALLY_REFUNDED",
        payment,
        this.settings.eventMode()
      )
  }

  /** A transfer to a Pix key out of the balance. */
  createTransfer(input: Omit<Transfer, "id" | "dateCreated" | "status">): Transfer {
    if (input.value > this.state.balance)
      throw new AccountError(400, "insufficient_balance", "Saldo insuficiente para realizar a transferência.")
    const since = this.now.getTime() - this.settings.duplicateWindowMs
    const identical = [...this.state.transfers.values()].some(
      (t) =>
        t.value === input.value &&
        t.pixAddressKey === input.pixAddressKey &&
        t.status !== "FAILED" &&
        t.status !== "CANCELLED" &&
        t.dateCreated.getTime() >= since
    )
    if (identical)
      throw new AccountError(
        409,
        "duplicated_transfer",
        "Transferência idêntica realizada nos últimos 15 minutos."
      )
    const outcome = this.settings.transferOutcome()
    const transfer: Transfer = { ...input, id: newUuid(), dateCreated: this.now, status: "PENDING" }
    this.state.balance -= input.value
    this.state.transfers.set(transfer.id, transfer)
    if (outcome === "instant") this.settle(transfer)
    void this.emit("TRANSFER_CREATED", transfer, this.settings.eventMode())
    if (outcome === "instant") void this.emit("TRANSFER_DONE", transfer, this.settings.eventMode())
    else if (outcome !== "manual")
      setImmediate(() => {
        if (transfer.status === "PENDING")
          void this.decideTransfer(transfer.id, outcome === "done" ? "DONE" : "FAILED").catch(() => undefined)
      })
    return transfer
  }

  /** A transfer by id, or 404. */
  transfer(id: string): Transfer {
    const transfer = this.state.transfers.get(id)
    if (transfer === undefined) throw new AccountError(404, "not_found", `No transfer ${id}.`)
    return transfer
  }

  private settle(transfer: Transfer) {
    transfer.status = "DONE"
    transfer.effectiveDate = this.now
    transfer.endToEndIdentifier = endToEndId("E", this.settings.ispb, this.now)
  }

  /** Decides a transfer not final yet: `DONE` (with the end-to-end id), `FAILED` or `CANCELLED` (money back). */
  async decideTransfer(
    id: string,
    status: "BANK_PROCESSING" | "DONE" | "FAILED" | "CANCELLED",
    options: { readonly failReason?: string; readonly events?: CallbackMode } = {}
  ): Promise<Transfer> {
    const transfer = this.transfer(id)
    if (transfer.status !== "PENDING" && transfer.status !== "BANK_PROCESSING")
      throw new AccountError(409, "invalid_action", `transfer ${id} is ${transfer.status}`)
    if (status === "DONE") this.settle(transfer)
    else transfer.status = status
    if (status === "FAILED" || status === "CANCELLED") {
      transfer.failReason = options.failReason ?? "Transferência recusada pelo banco de destino (simulado)."
      this.state.balance += transfer.value
    }
    const event = status === "BANK_PROCESSING" ? "TRANSFER_IN_BANK_PROCESSING" : `TRANSFER_${status}`
    await this.emit(event, transfer, options.events ?? this.settings.eventMode())
    return transfer
  }

  private emit(event: string, resource: Payment | Transfer, mode: CallbackMode) {
    return "pixAddressKey" in resource
      ? this.events.emit(event, "transfer", transferJson(resource), mode)
      : this.events.emit(event, "payment", paymentJson(resource, this.now), mode)
  }
}
