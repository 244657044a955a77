/**
 * Asaas's webhooks: a trigger, never the truth. Each event (`{ id, event, payment | transfer }`)
 * only names what changed; the gateway reads it back from Asaas before telling the engine
 * anything: a payment `RECEIVED` is credited with its Pix's end-to-end id; a merchant's refund
 * listed `DONE` or `CANCELLED` settles or fails; a transfer `DONE`, `FAILED` or `CANCELLED`
 * settles or fails its payout. With a `webhookToken` set, an event without that token in the
 * `asaas-access-token` header is refused (and Asaas retries it) before anything is read.
 *
 * `register` creates the webhook configuration (`POST /webhooks`), non-sequential: the gateway
 * reads each event back whatever arrived first, so one event that fails must not hold the rest.
 */
import { BankGateway, Domain, Sha256 } from "@pixgate/core"
import { Effect, Option, Redacted, Schema } from "effect"
import type { AsaasClient } from "./Client.js"
import * as Payments from "./Payments.js"
import type { Resolved } from "./Settings.js"
import * as Wire from "./Wire.js"

/** The events the gateway listens to. */
export const events = [
  "PAYMENT_RECEIVED",
  "PAYMENT_CONFIRMED",
  "PAYMENT_REFUNDED",
  "PAYMENT_PARTIALLY_REFUNDED",
  "TRANSFER_DONE",
  "TRANSFER_FAILED",
  "TRANSFER_CANCELLED"
] as const

const decodeRefundId = Schema.decodeUnknownOption(Domain.RefundId)

/** The engine's refund a listed refund is (`Refunds.bankRefundId` is its id without the `_`). */
const refundId = (refund: Wire.WireRefund) =>
  Wire.refundIdOf(refund.description).pipe(
    Option.filter((id) => id.startsWith("rfd")),
    Option.flatMap((id) => decodeRefundId(`rfd_${id.slice(3)}`))
  )

/** Reports the merchants' refunds a payment lists as final. */
const refundsOf = (ctx: BankGateway.GatewayContext, payment: Wire.WirePayment) =>
  Effect.forEach(
    payment.refunds,
    (refund) =>
      Option.match(refundId(refund), {
        onNone: () => Effect.void,
        onSome: (id) =>
          refund.status === "DONE"
            ? Effect.asVoid(ctx.refundSettled(id))
            : refund.status === "CANCELLED"
              ? Effect.asVoid(ctx.refundFailed(id, "bank_rejected"))
              : Effect.void
      }),
    { discard: true }
  )

const onPayment = (client: AsaasClient, ctx: BankGateway.GatewayContext, id: string) =>
  Effect.gen(function* () {
    const payment = yield* Payments.byId(client, id)
    if (Option.isNone(payment)) {
      yield* Effect.logWarning("An Asaas webhook named a payment Asaas does not know; ignored").pipe(
        Effect.annotateLogs({ paymentId: id })
      )
      return
    }
    yield* Payments.credit(client, ctx, payment.value)
    yield* refundsOf(ctx, payment.value)
  })

const onTransfer = (client: AsaasClient, ctx: BankGateway.GatewayContext, id: string) =>
  Effect.gen(function* () {
    const res = yield* client
      .call({ method: "GET", path: `/transfers/${encodeURIComponent(id)}` })
      .pipe(Effect.mapError((e) => Payments.readFailure("Reading a transfer", e)))
    if (res.status === 404) return
    const transfer = res.status === 200 ? Wire.transfer(res.body) : Option.none()
    if (Option.isNone(transfer)) return yield* Payments.readFailure("Reading a transfer", res)
    const payout = yield* Domain.findById(
      Domain.TransactionId,
      transfer.value.externalReference,
      ctx.getTransaction
    )
    if (Option.isNone(payout) || payout.value.type !== "withdrawal" || payout.value.status !== "pending")
      return
    const status = Wire.sendStatus(transfer.value)
    if (status._tag === "Settled") yield* ctx.payoutSettled(payout.value.id, status.endToEndId)
    else if (status._tag === "Rejected") {
      yield* Effect.logWarning("The bank rejected a payout; its money returns").pipe(
        Effect.annotateLogs({
          transactionId: payout.value.id,
          bankReason: status.reason,
          bankCode: status.code
        })
      )
      yield* ctx.payoutFailed(payout.value.id, "bank_rejected")
    }
  })

/** The gateway's `callback`. */
export const callback =
  (settings: Resolved, client: AsaasClient): NonNullable<BankGateway.BankGatewayShape["callback"]> =>
  (cb: BankGateway.BankCallback, ctx: BankGateway.GatewayContext) =>
    Effect.gen(function* () {
      if (settings.webhookToken !== undefined) {
        const presented = cb.header?.("asaas-access-token") ?? ""
        if (!Sha256.sameSecret(presented, Redacted.value(settings.webhookToken))) {
          yield* Effect.logWarning("An Asaas webhook without the configured asaas-access-token was refused")
          return yield* new BankGateway.GatewayFailure({
            message: "The webhook's asaas-access-token is not the configured one"
          })
        }
      }
      const event = Wire.event(cb.body)
      if (Option.isNone(event)) return
      if (event.value.payment !== undefined) yield* onPayment(client, ctx, event.value.payment)
      else if (event.value.transfer !== undefined) yield* onTransfer(client, ctx, event.value.transfer)
    })

/**
 * Registers `url` (the engine's `/bank/callbacks/<secret>`) as a webhook of the account for the
 * gateway's `events`, with the settings' token; `email` is where Asaas reports delivery problems.
 */
export const register = (
  settings: Resolved,
  client: AsaasClient,
  url: string,
  email?: string
): Effect.Effect<void, BankGateway.GatewayFailure> =>
  Effect.gen(function* () {
    const res = yield* client
      .call({
        method: "POST",
        path: "/webhooks",
        body: {
          name: "pixgate",
          url,
          enabled: true,
          interrupted: false,
          sendType: "NON_SEQUENTIALLY",
          events,
          ...(email === undefined ? {} : { email }),
          ...(settings.webhookToken === undefined ? {} : { authToken: Redacted.value(settings.webhookToken) })
        }
      })
      .pipe(Effect.mapError((e) => new BankGateway.GatewayFailure({ message: e.message, cause: e })))
    if (res.status !== 200)
      return yield* new BankGateway.GatewayFailure({
        message: `Asaas refused the webhook: ${Wire.describe(res.status, res.body)}`
      })
  })
