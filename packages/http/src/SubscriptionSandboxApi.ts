/**
 * The sandbox payer's actions on a test subscription in the admin API (core
 * `Subscriptions.payer`): approve or reject the authorisation, revoke it, set or clear the
 * payer's maximum, make the payer's account short of funds on some cycles, have retries paid or
 * not, and cancel a scheduled debit as the payer. One endpoint whose body names the action; a
 * live subscription is refused (`sandbox_only`). Their group carries no security here:
 * `PixgateApi` adds the admin token, which it defines.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import type { Errors } from "@pixgate/core"
import { Schema } from "effect"
import * as ApiErrors from "./ApiErrors.js"
import { Subscription } from "./SubscriptionsApi.js"

/** The errors the sandbox payer's actions answer with, besides storage being unavailable. */
export type SubscriptionSandboxError =
  | Errors.ValidationError
  | Errors.NotFound
  | Errors.Refused
  | Errors.Conflict

const Valor = Schema.String.pipe(
  Schema.pattern(/^\d{1,10}\.\d{2}$/, { message: () => "valorMaximo must be an amount such as 120.00" })
).annotations({ description: "An amount as the standard writes it", examples: ["120.00"] })

const action = <A extends string>(name: A, description: string) =>
  Schema.Literal(name).annotations({ description })

/** What `subscriptionPayer` takes: the action and what it needs. */
export const PayerActionRequest = Schema.Union(
  Schema.Struct({ action: action("approve", "The payer authorises a subscription waiting for them") }),
  Schema.Struct({ action: action("reject", "The payer refuses a subscription waiting for them") }),
  Schema.Struct({
    action: action("revoke", "The payer revokes the authorisation: no debit after it (SLDB)")
  }),
  Schema.Struct({
    action: action("setMaximum", "The payer sets (or, with null, clears) the most a cycle may debit"),
    valorMaximo: Schema.NullOr(Valor)
  }),
  Schema.Struct({
    action: action(
      "insufficientFunds",
      "The payer's account is short of funds on these cycles (1 = the first)"
    ),
    cycles: Schema.Array(Schema.Int.pipe(Schema.positive())).annotations({ examples: [[2]] })
  }),
  Schema.Struct({
    action: action(
      "payOnRetry",
      "Whether a retry of a cycle that failed for no funds is paid (default true)"
    ),
    pay: Schema.Boolean
  }),
  Schema.Struct({
    action: action("cancelCycle", "The payer cancels a scheduled debit (until the day before it)"),
    txid: Schema.String
  })
).annotations({
  identifier: "SandboxPayerAction",
  description: "What the sandbox's payer does",
  examples: [
    { action: "insufficientFunds", cycles: [2] },
    { action: "setMaximum", valorMaximo: "120.00" }
  ]
})

const PayerPath = Schema.Struct({ merchantId: Schema.String, subscriptionId: Schema.String })

/** The sandbox payer's endpoint, behind the admin token (added by `PixgateApi`). */
export const AdminSubscriptionsGroup = HttpApiGroup.make("adminSubscriptions")
  .add(
    HttpApiEndpoint.post(
      "subscriptionPayer",
      "/sandbox/merchants/:merchantId/subscriptions/:subscriptionId/payer"
    )
      .setPath(PayerPath)
      .setPayload(PayerActionRequest)
      .addSuccess(Subscription)
      .annotateContext(
        OpenApi.annotations({
          identifier: "sandboxSubscriptionPayer",
          summary: "Sandbox: the payer acts on a test subscription",
          description:
            "Approve or reject a subscription waiting for the payer (409 `subscription_not_pending` once answered), " +
            "revoke it (409 `subscription_not_cancellable` once ended), set the payer's maximum (a cycle above it is " +
            "rejected, AM02), make the payer short of funds on cycles (rejected, NIEC), have retries paid or not, or " +
            "cancel a scheduled debit as the payer (409 `cycle_not_cancellable` on or after its day). Test " +
            "subscriptions only (409 `sandbox_only`). Answers the subscription as it now is."
        })
      )
  )
  .addError(
    Schema.Union(
      ApiErrors.InvalidJson,
      ApiErrors.NotFound,
      ApiErrors.Refused,
      ApiErrors.Conflict,
      ApiErrors.PayloadTooLarge,
      ApiErrors.AdminValidationError,
      ApiErrors.StorageUnavailable
    )
  )
  .annotateContext(
    OpenApi.annotations({
      title: "Sandbox subscriptions",
      description:
        "The sandbox payer's side of Pix Automático: approve, reject, revoke, a maximum, no funds, retries"
    })
  )
