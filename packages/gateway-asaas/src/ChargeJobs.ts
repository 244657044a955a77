/**
 * The jobs that follow a charge at Asaas. An Asaas Pix QR code stays payable long after its due
 * day (12 months, Asaas documents), so the engine's expiry must reach the bank:
 *
 * - `asaas.payment.check` (ref = charge id): while the charge is pending, reads its payment once
 *   per interval and credits it if `RECEIVED` (a webhook that never came); from its expiry on,
 *   removes a payment still unpaid (`DELETE /payments/{id}`), so no payer can pay it, or
 *   reports a payment that was paid (the engine credits it or returns it as late).
 * - `asaas.payment.unknown` (ref = txid): a creation with an unknown outcome; once the retry
 *   window passed, a payment no charge adopted is removed, and what was found is logged once.
 */
import type { BankGateway, Store } from "@pixgate/core"
import { Domain } from "@pixgate/core"
import { Clock, Effect, Option } from "effect"
import type { AsaasClient } from "./Client.js"
import * as Payments from "./Payments.js"
import type { Resolved } from "./Settings.js"
import * as Wire from "./Wire.js"

/** Removes a payment not paid yet; true when Asaas removed it. */
export const remove = (client: AsaasClient, payment: Wire.WirePayment) =>
  Effect.gen(function* () {
    const res = yield* Effect.either(
      client.call({ method: "DELETE", path: `/payments/${encodeURIComponent(payment.id)}` })
    )
    if (res._tag === "Right" && res.right.status === 200) return true
    yield* Effect.logWarning("Asaas did not remove a payment; tried again later").pipe(
      Effect.annotateLogs(
        res._tag === "Left"
          ? { paymentId: payment.id, error: res.left.message }
          : { paymentId: payment.id, ...Wire.fields(res.right.status, res.right.body) }
      )
    )
    return false
  })

/** Reads (and credits) a pending charge's payment; removes it from the charge's expiry on. */
export const check =
  (settings: Resolved, client: AsaasClient) =>
  (job: Store.ClaimedJob, ctx: BankGateway.GatewayContext): Effect.Effect<void, Store.StoreError> =>
    Effect.gen(function* () {
      const found = yield* Domain.findById(Domain.TransactionId, job.ref, ctx.getTransaction)
      if (Option.isNone(found) || found.value.txid === null) return yield* ctx.finishJob(job.id)
      const charge = found.value
      const now = yield* Clock.currentTimeMillis
      const expiresAt = charge.expiresAt ?? now
      const later = (at: number) => ctx.retryJob(job.id, Math.max(at, now + 1000))
      const read = yield* Effect.either(Payments.byReference(client, charge.txid ?? ""))
      if (read._tag === "Left") {
        yield* Effect.logWarning("A charge's payment could not be read; asked again later").pipe(
          Effect.annotateLogs({ transactionId: charge.id, error: read.left.message })
        )
        return yield* later(now + settings.reconcileIntervalMs)
      }
      if (Option.isNone(read.right)) return yield* ctx.finishJob(job.id)
      const payment = read.right.value
      if (payment.status === "RECEIVED") {
        const credited = yield* Payments.credit(client, ctx, payment).pipe(
          Effect.as(true),
          Effect.catchTag("GatewayFailure", () => Effect.succeed(false))
        )
        return yield* credited ? ctx.finishJob(job.id) : later(now + settings.reconcileIntervalMs)
      }
      const open = payment.status === "PENDING" || payment.status === "OVERDUE"
      if (open && (now >= expiresAt || charge.status !== "pending")) {
        if (yield* remove(client, payment)) {
          yield* Effect.logInfo("An expired charge's payment was removed at Asaas").pipe(
            Effect.annotateLogs({ transactionId: charge.id, paymentId: payment.id })
          )
          return yield* ctx.finishJob(job.id)
        }
        return yield* later(now + settings.reconcileIntervalMs)
      }
      // Pending: asked again each interval, and at the expiry. Held (CONFIRMED): asked again.
      if (open || payment.status === "CONFIRMED")
        return yield* later(
          now < expiresAt
            ? Math.min(now + settings.reconcileIntervalMs, expiresAt)
            : now + settings.reconcileIntervalMs
        )
      return yield* ctx.finishJob(job.id)
    })

/** Finds out a creation with an unknown outcome once its retry window passed. */
export const unknown =
  (settings: Resolved, client: AsaasClient) =>
  (job: Store.ClaimedJob, ctx: BankGateway.GatewayContext): Effect.Effect<void, Store.StoreError> =>
    Effect.gen(function* () {
      const txid = job.ref
      const adopted = Effect.map(ctx.findByTxid(txid), Option.isSome)
      const log = (message: string, fields: Record<string, unknown> = {}) =>
        Effect.logWarning(message).pipe(Effect.annotateLogs({ txid, ...fields }))
      const later = Effect.flatMap(Clock.currentTimeMillis, (now) =>
        ctx.retryJob(job.id, now + settings.reconcileIntervalMs)
      )
      if (yield* adopted) return yield* ctx.finishJob(job.id)
      const read = yield* Effect.either(Payments.byReference(client, txid))
      if (read._tag === "Left") {
        yield* log("An unknown charge could not be asked about; asked again later", {
          error: read.left.message
        })
        return yield* later
      }
      if (Option.isNone(read.right)) {
        yield* Effect.logInfo("An unknown charge was never created at the bank").pipe(
          Effect.annotateLogs({ txid })
        )
        return yield* ctx.finishJob(job.id)
      }
      const payment = read.right.value
      if (payment.status === "RECEIVED" || payment.status === "CONFIRMED") {
        yield* Effect.logError(
          "A payment no charge adopted was paid at the bank; the PIX is in the account, not credited"
        ).pipe(Effect.annotateLogs({ txid, paymentId: payment.id }))
        return yield* ctx.finishJob(job.id)
      }
      if (payment.status !== "PENDING" && payment.status !== "OVERDUE") return yield* ctx.finishJob(job.id)
      // Asked once more just before removing: a retry may have adopted it meanwhile.
      if (yield* adopted) return yield* ctx.finishJob(job.id)
      if (!(yield* remove(client, payment))) return yield* later
      yield* log("A payment no charge adopted was removed at the bank", { paymentId: payment.id })
      return yield* ctx.finishJob(job.id)
    })
