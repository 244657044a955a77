/**
 * The least admin token scope each operation of `AdminApi` needs (core's `AdminAccess` says what
 * each scope covers): reads need `read-only`; redelivery, test events and sandbox actions
 * `operator`; whatever hands out access (merchants, API keys, webhook secrets and signing keys,
 * panel invites and reset links), changes prices or moves real money (refunds) `full`. `metrics`
 * opens none of them. The table names every endpoint of the definition: one added there and
 * not here does not compile.
 */
import type { HttpApi, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import type { AdminAccess } from "@pixgate/core"
import type { AdminApi } from "./PixgateApi.js"

type Groups = typeof AdminApi extends HttpApi.HttpApi<infer _Id, infer G, infer _E, infer _R> ? G : never

/** One scope per endpoint of every admin group, by group and endpoint name. */
export type Table = {
  readonly [Name in HttpApiGroup.HttpApiGroup.Name<Groups>]: {
    readonly [E in HttpApiGroup.HttpApiGroup.Endpoints<
      HttpApiGroup.HttpApiGroup.WithName<Groups, Name>
    > as HttpApiEndpoint.HttpApiEndpoint.Name<E>]: AdminAccess.AdminNeed
  }
}

/** The least scope of each admin operation. */
export const needs: Table = {
  admin: {
    createMerchant: "full",
    getMerchant: "read-only",
    listKeys: "read-only",
    createKey: "full",
    revokeKey: "full",
    setWebhook: "full",
    rotateSigningKey: "full",
    getWebhookStatus: "read-only",
    getBalance: "read-only",
    setFeePlan: "full",
    getWebhookLog: "read-only",
    invitePanelUser: "full",
    createPanelResetLink: "full",
    getAuditLog: "read-only",
    sendTestEvent: "operator",
    redeliverEvent: "operator",
    sandboxTopUp: "operator",
    sandboxPayCharge: "operator",
    sandboxSettlePayout: "operator",
    sandboxFailPayout: "operator",
    sandboxOpenChargeback: "operator",
    sandboxResolveChargeback: "operator",
    erasePayer: "full"
  },
  adminRefunds: { createRefund: "full", listRefunds: "read-only" },
  adminAudit: { getAdminAuditLog: "read-only" },
  adminInfractions: { listInfractions: "read-only", answerInfraction: "full" },
  adminEvents: { stream: "read-only" },
  adminGateways: {
    listGateways: "read-only",
    getMerchantGateway: "read-only",
    assignMerchantGateway: "full"
  },
  adminWebhookOps: {
    resendWebhooks: "operator",
    getWebhookHealth: "read-only",
    enableWebhookEndpoint: "operator"
  },
  adminSubscriptions: { subscriptionPayer: "operator" },
  adminDocumentation: { openapi: "read-only" }
}
