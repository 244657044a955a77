/**
 * Refunds of received Pix through Asaas (`POST /payments/{id}/refund`, partial ones allowed up
 * to the payment's value). Asaas gives a refund no id of the caller's and lists a payment's
 * refunds in its `refunds` (value, status `PENDING`/`DONE`/`CANCELLED`, description), so each
 * refund's description starts with the engine's id for it (`pixgate:<id>`): `status` reads the
 * payment and finds it there, and a refund whose answer was lost is found, never sent twice.
 *
 * - The merchant's refunds: the engine's `PixRefunder`, ids `Refunds.bankRefundId`.
 * - A PIX the engine did not credit (paid late, another amount): `asaas.payment.return`
 *   (ref = charge id) refunds what was received, id derived from the charge, and marks the charge
 *   `refunded` once Asaas says `DONE`.
 */
import { type BankGateway, Refunds as CoreRefunds, Domain, Jobs, type Store } from "@pixgate/core"
import { Clock, Effect, Option } from "effect"
import type { AsaasClient } from "./Client.js"
import * as Payments from "./Payments.js"
import type { Resolved } from "./Settings.js"
import * as Wire from "./Wire.js"

/** The refund id of a PIX returned for a charge: derived from the charge, so a retry repeats it. */
export const returnId = (chargeId: string): string => `R${chargeId.replace(/[^a-zA-Z0-9]/g, "")}`

/** Asks Asaas for a refund of `payment`; the refund's status as the answer tells it. */
export const request = (
  client: AsaasClient,
  payment: Wire.WirePayment,
  bankId: string,
  amount: Domain.Transaction["amount"],
  words: string | null
): Effect.Effect<BankGateway.SendStatus> =>
  client
    .call({
      method: "POST",
      path: `/payments/${encodeURIComponent(payment.id)}/refund`,
      body: { value: Wire.reais(amount), description: Wire.refundDescription(bankId, words) }
    })
    .pipe(
      Effect.map((res): BankGateway.SendStatus => {
        if (res.status === 200)
          return Option.match(Wire.payment(res.body), {
            onNone: () => ({ _tag: "Unknown", reason: "Asaas's answer holds no payment" }),
            onSome: (p) => {
              const status = Wire.refundStatus(p, bankId)
              return status._tag === "NotFound"
                ? { _tag: "Unknown", reason: "Asaas's answer lists no such refund" }
                : status
            }
          })
        if (res.status === 400 || res.status === 404)
          return {
            _tag: "Rejected",
            reason: Wire.describe(res.status, res.body),
            code: Wire.errorOf(res.body).code ?? `HTTP ${res.status}`
          }
        return { _tag: "Unknown", reason: Wire.describe(res.status, res.body) }
      }),
      Effect.catchAll((e) =>
        Effect.succeed({ _tag: "Unknown" as const, reason: `${e.reason}: ${e.message}` })
      )
    )

/** The payment of `charge` and the status of refund `bankId` in it. */
const statusOf = (client: AsaasClient, charge: Domain.Transaction, bankId: string) =>
  Payments.byReference(client, charge.txid ?? "").pipe(
    Effect.map((found) =>
      Option.match(found, {
        onNone: (): readonly [Option.Option<Wire.WirePayment>, BankGateway.SendStatus] => [
          Option.none(),
          { _tag: "Rejected", reason: "Asaas has no payment for this charge" }
        ],
        onSome: (p) => [Option.some(p), Wire.refundStatus(p, bankId)] as const
      })
    ),
    Effect.catchAll((e) => Effect.succeed([Option.none(), { _tag: "Unknown", reason: e.message }] as const))
  )

/** The gateway's refunder of merchants' refunds. */
export const refunder = (settings: Resolved, client: AsaasClient): BankGateway.PixRefunder => ({
  pollDelay: settings.pollDelayMs,
  status: (refund, charge) =>
    Effect.map(statusOf(client, charge, CoreRefunds.bankRefundId(refund.id)), ([, s]) => s),
  send: (refund, charge) =>
    Effect.flatMap(statusOf(client, charge, CoreRefunds.bankRefundId(refund.id)), ([payment, status]) =>
      Option.isNone(payment)
        ? Effect.succeed(status)
        : request(
            client,
            payment.value,
            CoreRefunds.bankRefundId(refund.id),
            refund.amount,
            refund.description
          )
    )
})

/** Returns a PIX the engine recorded but did not credit, asking first whether it was asked. */
export const returnJob =
  (settings: Resolved, client: AsaasClient) =>
  (job: Store.ClaimedJob, ctx: BankGateway.GatewayContext): Effect.Effect<void, Store.StoreError> =>
    Effect.gen(function* () {
      const found = yield* Domain.findById(Domain.TransactionId, job.ref, ctx.getTransaction)
      const now = yield* Clock.currentTimeMillis
      if (Option.isNone(found) || found.value.status !== "failed" || found.value.receivedAmount === null)
        return yield* ctx.finishJob(job.id)
      const charge = found.value
      const id = returnId(charge.id)
      const [payment, asked] = yield* statusOf(client, charge, id)
      const status =
        asked._tag === "NotFound" && Option.isSome(payment)
          ? yield* request(client, payment.value, id, charge.receivedAmount ?? charge.amount, null)
          : asked
      const fields = { transactionId: charge.id, endToEndId: charge.endToEndId }
      switch (status._tag) {
        case "Settled":
          yield* Effect.logInfo("A PIX not credited went back to its payer").pipe(Effect.annotateLogs(fields))
          // As the current job: the charge's change completes this job in its unit.
          return yield* Effect.flatMap(
            Effect.provideService(ctx.paymentReturned(charge.id), Jobs.CurrentJob, job.id),
            (applied) => (applied ? Effect.void : ctx.finishJob(job.id))
          )
        case "Rejected":
          yield* Effect.logError(
            "Asaas refused to return a PIX; asking again (the merchant may have to act)"
          ).pipe(Effect.annotateLogs({ ...fields, bankReason: status.reason, bankCode: status.code }))
          return yield* ctx.retryJob(job.id, now + settings.reconcileIntervalMs)
        default:
          return yield* ctx.retryJob(job.id, now + settings.pollDelayMs)
      }
    })
