/** The handlers of the webhook operations (`WebhookOpsApi`): one engine call each. */
import { Engine } from "@pixgate/core"
import { Effect } from "effect"
import type { GroupHandlers } from "./EndpointHandlers.js"
import type { AdminWebhookOpsGroup } from "./WebhookOpsApi.js"

/** By endpoint name. */
export const handlers: GroupHandlers<typeof AdminWebhookOpsGroup> = {
  resendWebhooks: ({ path, payload }) =>
    Effect.flatMap(Engine.Engine, (e) =>
      e.webhookOps.resend({ merchantId: path.merchantId, since: payload.since, mode: payload.mode })
    ),
  getWebhookHealth: ({ path }) => Effect.flatMap(Engine.Engine, (e) => e.webhookOps.health(path.merchantId)),
  enableWebhookEndpoint: ({ path }) =>
    Effect.flatMap(Engine.Engine, (e) => e.webhookOps.enable(path.merchantId, path.mode))
}
