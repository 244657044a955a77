/** The handlers of the sandbox payer's actions (`SubscriptionSandboxApi`): one engine call. */
import { Domain, Engine, type Subscriptions, SubscriptionViews } from "@pixgate/core"
import { Effect } from "effect"
import type { GroupHandlers } from "./EndpointHandlers.js"
import type { AdminSubscriptionsGroup, PayerActionRequest } from "./SubscriptionSandboxApi.js"

/** The engine's payer action of a request. */
export const payerAction = (body: typeof PayerActionRequest.Type): Subscriptions.PayerAction => {
  switch (body.action) {
    case "approve":
    case "reject":
    case "revoke":
      return { _tag: body.action }
    case "setMaximum":
      return {
        _tag: "setMaximum",
        cents: body.valorMaximo === null ? null : (SubscriptionViews.parseValor(body.valorMaximo) ?? 0)
      }
    case "insufficientFunds":
      return { _tag: "insufficientFunds", cycles: body.cycles }
    case "payOnRetry":
      return { _tag: "payOnRetry", pay: body.pay }
    case "cancelCycle":
      return { _tag: "cancelCycle", txid: body.txid }
  }
}

/** By endpoint name. */
export const handlers: GroupHandlers<typeof AdminSubscriptionsGroup> = {
  subscriptionPayer: ({ path, payload }) =>
    Effect.flatMap(Engine.Engine, (e) =>
      e.subscriptions.payer(
        Domain.MerchantId.make(path.merchantId),
        path.subscriptionId,
        payerAction(payload)
      )
    )
}
