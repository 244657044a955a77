/**
 * Reading Asaas payments and telling the engine about a received one: by id
 * (`GET /payments/{id}`), by the engine's txid (`GET /payments?externalReference=`), and
 * `credit`, which reports a `RECEIVED` payment with the end-to-end id of the Pix that paid it
 * (`GET /pix/transactions/{id}`). Only `RECEIVED` is money in the account: a Pix `CONFIRMED`
 * may still be held by Asaas's precautionary block and end `REFUNDED`, so it is not credited.
 * Used by the webhook, the per-charge checks and reconciliation alike.
 */
import { BankGateway, Ids, type Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import type { AsaasClient, AsaasError, AsaasResponse } from "./Client.js"
import * as Wire from "./Wire.js"

/**
 * A call that got no usable answer: what was asked and why. No answer or a 5xx is an unknown
 * outcome (the request may have been carried out); another answer is Asaas's refusal.
 */
export const readFailure = (what: string, e: AsaasError | AsaasResponse) =>
  new BankGateway.GatewayFailure({
    message: "status" in e ? `${what}: ${Wire.describe(e.status, e.body)}` : `${what}: ${e.message}`,
    ...("status" in e ? {} : { cause: e }),
    ...(!("status" in e) || e.status >= 500 ? { outcome: "unknown" as const } : {})
  })

/** The payment with Asaas id `id`; none when Asaas does not know it. */
export const byId = (client: AsaasClient, id: string) =>
  client.call({ method: "GET", path: `/payments/${encodeURIComponent(id)}` }).pipe(
    Effect.mapError((e) => readFailure("Reading a payment", e)),
    Effect.flatMap((res) =>
      res.status === 404
        ? Effect.succeed(Option.none<Wire.WirePayment>())
        : res.status === 200
          ? Effect.succeed(Wire.payment(res.body))
          : Effect.fail(readFailure("Reading a payment", res))
    )
  )

/** The payment made for the engine's charge `txid` (its `externalReference`), removed ones left out. */
export const byReference = (client: AsaasClient, txid: string) =>
  client.call({ method: "GET", path: "/payments", query: { externalReference: txid, limit: "10" } }).pipe(
    Effect.mapError((e) => readFailure("Finding a charge's payment", e)),
    Effect.flatMap((res) =>
      res.status === 200
        ? Effect.succeed(
            Option.fromNullable(
              Wire.list(res.body)
                .data.map(Wire.payment)
                .flatMap((p) =>
                  Option.isSome(p) && !p.value.deleted && p.value.externalReference === txid ? [p.value] : []
                )
                .at(0)
            )
          )
        : Effect.fail(readFailure("Finding a charge's payment", res))
    )
  )

/** The end-to-end id of the Pix transaction `id`. */
const endToEndOf = (client: AsaasClient, id: string) =>
  client.call({ method: "GET", path: `/pix/transactions/${encodeURIComponent(id)}` }).pipe(
    Effect.mapError((e) => readFailure("Reading a Pix transaction", e)),
    Effect.flatMap((res) => {
      const e2e = Wire.str(Wire.record(res.body).endToEndIdentifier)
      return res.status === 200 && e2e !== undefined
        ? Effect.succeed(e2e)
        : Effect.fail(readFailure("Reading a Pix transaction", res))
    })
  )

/** Whether the engine still waits for `txid`'s money (a charge not paid yet, pending or expired). */
const waiting = (ctx: BankGateway.GatewayContext, txid: string) =>
  Effect.map(ctx.findByTxid(txid), (found) =>
    Option.exists(found, (t) => t.paidAt === null && (t.status === "pending" || t.status === "failed"))
  )

/**
 * Tells the engine about a received payment of one of its charges (a `RECEIVED` payment whose
 * `externalReference` is a txid) that it still waits for, with its Pix's end-to-end id;
 * anything else is `ignored` without another call to Asaas.
 */
export const credit = (
  client: AsaasClient,
  ctx: BankGateway.GatewayContext,
  payment: Wire.WirePayment
): Effect.Effect<BankGateway.ChargePaidOutcome, BankGateway.GatewayFailure | Store.StoreError> =>
  Effect.gen(function* () {
    const txid = payment.externalReference
    if (payment.status !== "RECEIVED" || txid === undefined || !Ids.isTxid(txid)) return "ignored" as const
    if (!(yield* waiting(ctx, txid))) return "ignored" as const
    if (payment.pixTransaction === undefined) {
      yield* Effect.logWarning(
        "A received payment names no Pix transaction yet; it is read again later"
      ).pipe(Effect.annotateLogs({ paymentId: payment.id, txid }))
      return "ignored" as const
    }
    const endToEndId = yield* endToEndOf(client, payment.pixTransaction)
    return yield* ctx.paymentReceived({ txid, endToEndId, amount: payment.value })
  })
