/**
 * Refunds (devoluções) in the admin API: `POST /merchants/{merchantId}/charges/{transactionId}/refunds`
 * (part or all of a completed charge, named by its required Idempotency-Key) and `GET` on the
 * same path (a charge's refunds, oldest first, with what is left to refund). Core's
 * `Refunds.create` and the admin operations `createRefund` and `listRefunds` do the work. The
 * group carries no security here: `PixgateApi` adds the admin token, which it defines. Its
 * operations keep the admin group's OpenAPI tag (`Admin`), so the document names them as before.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { AdminViews, type Errors, type Money, type Refunds, Requests } from "@pixgate/core"
import { type Effect, Schema } from "effect"
import * as ApiDocument from "./ApiDocument.js"
import * as ApiErrors from "./ApiErrors.js"

const describe = (identifier: string, summary: string, description?: string) =>
  OpenApi.annotations({ identifier, summary, description })

/** The charge a refund belongs to, of a merchant. */
const RefundPath = Schema.Struct({ merchantId: Schema.String, transactionId: Schema.String })

/** The Idempotency-Key that names a refund (required: a refund without one could be made twice). */
export const RefundHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(
    Schema.String.annotations({
      description:
        "Required, 1-255 characters: names the refund. A repeat on the same charge answers the first refund " +
        "(the same amount and description) or 422 `idempotency_mismatch`; it never refunds twice."
    })
  )
})

/** What creating a refund may answer besides the admin operations' errors. */
const CreateRefundErrors = Schema.Union(
  ApiErrors.IdempotencyMismatch,
  ApiErrors.InsufficientBalance,
  ApiErrors.GatewayUnavailable
)

// The endpoint lists every error of its engine operation: an operation that may fail in a new way
// does not compile until the endpoint lists the new error.
const createRefundCovered: ApiErrors.Covers<
  typeof ApiErrors.AdminErrors.Type | typeof CreateRefundErrors.Type | Errors.StorageUnavailable,
  Effect.Effect.Error<ReturnType<Refunds.RefundsShape["create"]>>
> = true
// A refund's amount reaches core in centavos. (Naming `Errors` and `Money` in this file also lets
// the group's emitted declaration refer to them.)
const refundInCentavos: Requests.CreateRefund["amount"] extends Money.Cents ? true : false = true
void [createRefundCovered, refundInCentavos]

/** A charge's refunds, behind the admin token (added by `PixgateApi`). */
export const AdminRefundsGroup = HttpApiGroup.make("adminRefunds")
  .add(
    HttpApiEndpoint.post("createRefund", "/merchants/:merchantId/charges/:transactionId/refunds")
      .setPath(RefundPath)
      .setPayload(Requests.CreateRefund)
      .setHeaders(RefundHeaders)
      .addSuccess(AdminViews.Refund, { status: 201 })
      .addError(CreateRefundErrors)
      .annotateContext(
        describe(
          "createRefund",
          "Refund part or all of a completed charge (devolução)",
          "Within 90 days of the payment, up to what the charge received (its refunds add up). The amount leaves " +
            "the available balance at once (422 `insufficient_balance` when it does not cover it; the charge's fee " +
            "stays earned). The refund is `pending` until the bank answers (`refund.completed` or `refund.failed`, " +
            "which puts the amount back); the charge becomes `refunded` once refunded in full. The Idempotency-Key " +
            "names the refund: a repeat answers the first refund, never a second one."
        )
      )
  )
  .add(
    HttpApiEndpoint.get("listRefunds", "/merchants/:merchantId/charges/:transactionId/refunds")
      .setPath(RefundPath)
      .addSuccess(AdminViews.RefundList)
      .annotateContext(
        describe("listRefunds", "A charge's refunds, oldest first, with what is left to refund")
      )
  )
  .addError(ApiErrors.AdminErrors)
  // The admin group's tag: the document lists refunds among the merchant panel's operations.
  .annotateContext(OpenApi.annotations(ApiDocument.adminTag))
