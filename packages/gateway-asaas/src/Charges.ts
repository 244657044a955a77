/**
 * A charge at Asaas: a payment with `billingType: PIX`, `externalReference` = the engine's
 * txid, `dueDate` = the São Paulo day the charge expires, and its QR code
 * (`GET /payments/{id}/pixQrCode`: the `payload` is the BR Code, used as is). Asaas takes no id
 * of the caller's, so the payment is first looked up by its txid: the same-key retry of a
 * creation whose outcome was unknown adopts the payment Asaas made instead of making a second
 * one. Once a payment may exist, any failure is an unknown outcome, so the engine's
 * `charge.unknown` timer can remove a payment nobody adopted.
 */
import { BankGateway, type Domain } from "@pixgate/core"
import { Effect, Either, Option } from "effect"
import type { AsaasClient } from "./Client.js"
import * as Customers from "./Customers.js"
import * as Payments from "./Payments.js"
import type { Resolved } from "./Settings.js"
import * as Wire from "./Wire.js"

const unknown = (message: string) => new BankGateway.GatewayFailure({ message, outcome: "unknown" })

/** Asks Asaas for a payment; a 200 with a payment, else a failure classified as `readFailure`. */
const createPayment = (settings: Resolved, client: AsaasClient, charge: Domain.Transaction, txid: string) =>
  Effect.gen(function* () {
    const customer = yield* Customers.forCharge(settings, client, charge)
    const res = yield* client
      .call({
        method: "POST",
        path: "/payments",
        body: {
          customer,
          billingType: "PIX",
          value: Wire.reais(charge.amount),
          dueDate: Wire.day(charge.expiresAt ?? charge.createdAt),
          externalReference: txid,
          ...(charge.description === null ? {} : { description: charge.description.slice(0, 500) })
        }
      })
      .pipe(Effect.mapError((e) => Payments.readFailure("Creating the charge", e)))
    const made = res.status === 200 ? Wire.payment(res.body) : Option.none()
    if (Option.isSome(made)) return made.value
    yield* Effect.logWarning("Asaas refused the creation of a charge").pipe(
      Effect.annotateLogs({ txid, ...Wire.fields(res.status, res.body) })
    )
    // A 200 without a payment in it made something all the same.
    return yield* Effect.fail(
      res.status === 200
        ? unknown("Creating the charge: Asaas's answer holds no payment")
        : Payments.readFailure("Creating the charge", res)
    )
  })

/** The QR code of a payment that exists: its BR Code and location; any failure is unknown. */
const qrCode = (client: AsaasClient, payment: Wire.WirePayment) =>
  Effect.gen(function* () {
    const res = yield* client
      .call({ method: "GET", path: `/payments/${encodeURIComponent(payment.id)}/pixQrCode` })
      .pipe(Effect.mapError((e) => unknown(`Reading the charge's QR code: ${e.message}`)))
    const payload = Wire.str(Wire.record(res.body).payload)
    if (res.status !== 200 || payload === undefined)
      return yield* Effect.fail(
        unknown(`Reading the charge's QR code: ${Wire.describe(res.status, res.body)}`)
      )
    const location = Wire.location(payload)
    if (Either.isLeft(location))
      return yield* Effect.fail(unknown(`Reading the charge's QR code: ${location.left}`))
    return { location: location.right, brCode: payload }
  })

/** `createCharge` of the gateway. */
export const create =
  (settings: Resolved, client: AsaasClient) =>
  (
    charge: Domain.Transaction
  ): Effect.Effect<{ location: string; brCode?: string }, BankGateway.GatewayFailure> =>
    Effect.gen(function* () {
      if (charge.dueTerms !== null)
        return yield* new BankGateway.GatewayFailure({
          message: "Creating the charge: due-date charges are not offered through the Asaas gateway"
        })
      if (charge.txid === null)
        return yield* new BankGateway.GatewayFailure({
          message: "Creating the charge: the charge has no txid"
        })
      const txid = charge.txid
      const existing = yield* Payments.byReference(client, txid).pipe(
        Effect.tapError((e) =>
          Effect.logWarning("Asaas could not be asked about a charge before creating it").pipe(
            Effect.annotateLogs({ txid, error: e.message })
          )
        )
      )
      const payment = Option.isSome(existing)
        ? existing.value
        : yield* createPayment(settings, client, charge, txid)
      // A payment paid, refunded or removed can never be served (definite).
      if (payment.status !== "PENDING" && payment.status !== "OVERDUE")
        return yield* new BankGateway.GatewayFailure({
          message: `Creating the charge: the bank's payment ${payment.id} is ${payment.status}`
        })
      return yield* qrCode(client, payment)
    })
