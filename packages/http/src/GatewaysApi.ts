/**
 * The admin API's gateway per merchant: the live gateways this server has, which one holds a
 * merchant's live money, and the assignment of a merchant to another (`PUT`, effective a few
 * seconds later or at `effectiveAt`; money already in flight stays with its bank). The group
 * is added by `PixgateApi` behind the admin token; its handlers are `handlers`.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Domain, Engine, Errors, type MerchantGateways } from "@pixgate/core"
import { Effect, Option, Schema } from "effect"
import * as ApiErrors from "./ApiErrors.js"

const Capabilities = Schema.Struct({
  charges: Schema.Boolean,
  dueDateCharges: Schema.Boolean,
  sends: Schema.Boolean,
  refunds: Schema.Boolean,
  reconciliation: Schema.Boolean,
  recurring: Schema.Boolean,
  infractions: Schema.Boolean
}).annotations({ identifier: "GatewayCapabilities", description: "What a gateway can do" })

/** One live gateway of the server. */
export const Gateway = Schema.Struct({
  name: Schema.String,
  isDefault: Schema.Boolean,
  capabilities: Capabilities
}).annotations({ identifier: "Gateway" })

/** The server's live gateways, the default first. */
export const GatewayList = Schema.Struct({ data: Schema.Array(Gateway) }).annotations({
  identifier: "GatewayList"
})

const Assignment = Schema.Struct({
  gateway: Schema.String,
  effectiveAt: Schema.String,
  assignedAt: Schema.String
}).annotations({ identifier: "GatewayAssignment" })

/** A merchant's live gateway. */
export const MerchantGateway = Schema.Struct({
  merchantId: Schema.String,
  gateway: Schema.String,
  isDefault: Schema.Boolean,
  configured: Schema.Boolean,
  capabilities: Schema.NullOr(Capabilities),
  next: Schema.NullOr(Schema.Struct({ gateway: Schema.String, effectiveAt: Schema.String })),
  history: Schema.Array(Assignment)
}).annotations({ identifier: "MerchantGateway" })

/** The body of an assignment. */
export const AssignGateway = Schema.Struct({
  gateway: Schema.String.annotations({ description: "A live gateway's name (`GET /gateways`)" }),
  effectiveAt: Schema.optional(
    Schema.String.annotations({
      description: "When it takes effect (ISO 8601), at least 5 seconds from now; default: 5 seconds from now"
    })
  )
}).annotations({ identifier: "AssignGateway" })

const MerchantPath = Schema.Struct({ merchantId: Schema.String })

const describe = (identifier: string, summary: string, description?: string) =>
  OpenApi.annotations({ identifier, summary, description })

/** The group (behind the admin token, added by `PixgateApi`). */
export const AdminGatewaysGroup = HttpApiGroup.make("adminGateways")
  .add(
    HttpApiEndpoint.get("listGateways", "/gateways")
      .addSuccess(GatewayList)
      .annotateContext(
        describe("listGateways", "The server's live gateways, the default first, with what each can do")
      )
  )
  .add(
    HttpApiEndpoint.get("getMerchantGateway", "/merchants/:merchantId/gateway")
      .setPath(MerchantPath)
      .addSuccess(MerchantGateway)
      .annotateContext(
        describe(
          "getMerchantGateway",
          "The live gateway (bank) that holds a merchant's live money, a change not in effect yet, and every assignment"
        )
      )
  )
  .add(
    HttpApiEndpoint.put("assignMerchantGateway", "/merchants/:merchantId/gateway")
      .setPath(MerchantPath)
      .setPayload(AssignGateway)
      .addSuccess(MerchantGateway)
      .annotateContext(
        describe(
          "assignMerchantGateway",
          "Assign a merchant's live money to one of the server's gateways",
          "Live charges and payouts created from `effectiveAt` (default: 5 seconds from now) go through the new " +
            "gateway. Charges, payouts and refunds created before stay with the bank that has them, to their end " +
            "(a refund goes back through the bank that received the PIX), so money in flight never changes bank. " +
            "422 `invalid_gateway` for a name the server does not have; 409 `gateway_change_pending` while a " +
            "change as late or later waits to take effect."
        )
      )
  )
  .addError(
    Schema.Union(
      ApiErrors.InvalidJson,
      ApiErrors.NotFound,
      ApiErrors.Refused,
      ApiErrors.PayloadTooLarge,
      ApiErrors.AdminValidationError,
      ApiErrors.StorageUnavailable
    )
  )
  .annotateContext(
    OpenApi.annotations({
      title: "Admin gateways",
      description: "The live gateways and each merchant's (a gateway per merchant)"
    })
  )

const iso = (ms: number) => new Date(ms).toISOString()

const view = (g: MerchantGateways.MerchantGateway): typeof MerchantGateway.Type => ({
  merchantId: g.merchantId,
  gateway: g.gateway,
  isDefault: g.isDefault,
  configured: g.configured,
  capabilities: g.capabilities,
  next: g.next === null ? null : { gateway: g.next.gateway, effectiveAt: iso(g.next.effectiveAt) },
  history: g.history.map((a) => ({
    gateway: a.gateway,
    effectiveAt: iso(a.effectiveAt),
    assignedAt: iso(a.assignedAt)
  }))
})

const merchantIdOf = (raw: string) =>
  Option.match(Domain.idDecoder(Domain.MerchantId)(raw), {
    onNone: () => Effect.fail(Errors.notFound("Merchant")),
    onSome: Effect.succeed
  })

/** The group's handlers, one engine call each. */
export const handlers = {
  listGateways: () => Effect.map(Engine.Engine, (engine) => ({ data: [...engine.merchantGateways.list] })),
  getMerchantGateway: ({ path }: { readonly path: { readonly merchantId: string } }) =>
    Effect.flatMap(merchantIdOf(path.merchantId), (id) =>
      Effect.flatMap(Engine.Engine, (engine) => Effect.map(engine.merchantGateways.get(id), view))
    ),
  assignMerchantGateway: ({
    path,
    payload
  }: {
    readonly path: { readonly merchantId: string }
    readonly payload: typeof AssignGateway.Type
  }) =>
    Effect.gen(function* () {
      const id = yield* merchantIdOf(path.merchantId)
      const at = payload.effectiveAt === undefined ? undefined : Date.parse(payload.effectiveAt)
      if (at !== undefined && Number.isNaN(at))
        return yield* Errors.validation(
          "invalid_field",
          "effectiveAt",
          "effectiveAt must be an ISO 8601 date-time"
        )
      const engine = yield* Engine.Engine
      return view(yield* engine.merchantGateways.assign(id, payload.gateway, at))
    })
}
