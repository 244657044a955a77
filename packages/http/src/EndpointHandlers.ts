/**
 * What each endpoint of `PixgateApi` does, bound by group and endpoint name: one engine call per
 * endpoint over the decoded request. The native dispatcher serves these; an `HttpApiBuilder`
 * group can serve the same functions (`Handlers.charges.create(...)`), so there is one copy of
 * what the API does whichever server runs it. Handlers read the authenticated merchant from
 * `CurrentCaller` (the API-key middleware provides it) and the engine from `Engine.Engine`.
 * Idempotency is the server's part, not the handler's: an endpoint annotated
 * `IdempotentOperation` is decoded and handled inside `engine.idempotency.run(caller, key,
 * operation, body, ...)`, with `Idempotent-Replayed: true` on a replay (see Endpoints).
 * Exported as `Handlers` by `@pixgate/http`.
 */
import type { HttpApi, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { type Auth, type Domain, Engine, type Errors, Views } from "@pixgate/core"
import { Effect } from "effect"
import * as GatewaysApi from "./GatewaysApi.js"
import * as InfractionsApi from "./InfractionsApi.js"
import { CurrentCaller, type PixgateApi, type ReadinessJson } from "./PixgateApi.js"
import * as RefundsHandlers from "./RefundsHandlers.js"
import * as SubscriptionSandboxHandlers from "./SubscriptionSandboxHandlers.js"
import * as SubscriptionsHandlers from "./SubscriptionsHandlers.js"
import * as Timestamp from "./Timestamp.js"
import * as WebhookOpsHandlers from "./WebhookOpsHandlers.js"

/** What a handler receives: the decoded request. */
export interface Input<Path, UrlParams, Payload, Headers> {
  readonly path: Path
  readonly urlParams: UrlParams
  readonly payload: Payload
  readonly headers: Headers
}

/**
 * The handler of one endpoint: it may use the engine and what its group's middleware provides
 * (`CurrentCaller` behind the API key).
 */
export type Handler<E extends HttpApiEndpoint.HttpApiEndpoint.Any, Provided = never> = (
  input: Input<
    HttpApiEndpoint.HttpApiEndpoint.PathParsed<E>,
    HttpApiEndpoint.HttpApiEndpoint.UrlParams<E>,
    HttpApiEndpoint.HttpApiEndpoint.Payload<E>,
    HttpApiEndpoint.HttpApiEndpoint.Headers<E>
  >
) => Effect.Effect<HttpApiEndpoint.HttpApiEndpoint.Success<E>, Errors.PixgateError, Engine.Engine | Provided>

type Groups = typeof PixgateApi extends HttpApi.HttpApi<infer _Id, infer G, infer _E, infer _R> ? G : never

/** The handlers of one group, by endpoint name. */
export type GroupHandlers<G extends HttpApiGroup.HttpApiGroup.Any> = {
  readonly [E in HttpApiGroup.HttpApiGroup.Endpoints<G> as HttpApiEndpoint.HttpApiEndpoint.Name<E>]: Handler<
    E,
    HttpApiGroup.HttpApiGroup.Provides<G>
  >
}

/**
 * The groups answered by handlers, by name. The others are the router's and the transport's:
 * `removed` (410 for every method), the documentation groups (the documents of the mount point)
 * and the event streams (`EventStream.ts`, written as they are made).
 */
export type ServedGroup = Exclude<
  HttpApiGroup.HttpApiGroup.Name<Groups>,
  "removed" | "documentation" | "adminDocumentation" | "events" | "adminEvents"
>

/** Every handler, by group and endpoint name. */
export type AllHandlers = {
  readonly [Name in ServedGroup]: GroupHandlers<HttpApiGroup.HttpApiGroup.WithName<Groups, Name>>
}

/** The health check's answer: no engine needed, the cheapest probe of the process. */
export const health = (): Views.HealthJson => ({ status: "ok", timestamp: Timestamp.iso(Date.now()) })

/** The readiness answer's body (its status is 200 when `ready`, else 503). */
export const readiness: Effect.Effect<ReadinessJson, never, Engine.Engine> = Effect.flatMap(
  Engine.Engine,
  (engine) =>
    Effect.map(engine.health.readiness, (r) => ({
      status: r.ready ? "ready" : "unready",
      checks: r.checks,
      failed: r.failed
    }))
)

const admin = Effect.map(Engine.Engine, (engine) => engine.admin)

/** The engine's admin operations. */
const withAdmin = <A, E>(f: (admin: Engine.EngineShape["admin"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(admin, f)

/** The engine and the caller. */
const withCaller = <A, E>(f: (engine: Engine.EngineShape, caller: Auth.Caller) => Effect.Effect<A, E>) =>
  Effect.flatMap(Engine.Engine, (engine) => Effect.flatMap(CurrentCaller, (caller) => f(engine, caller)))

const merchantView = (m: Domain.Merchant) => ({
  merchantId: m.id,
  name: m.name,
  city: m.city,
  feePlan: m.feePlan,
  createdAt: Views.iso(m.createdAt)
})

/** Every endpoint's handler, by group and endpoint name. */
export const Handlers: AllHandlers = {
  health: { check: () => Effect.sync(health), live: () => Effect.sync(health), ready: () => readiness },
  charges: {
    create: ({ payload }) => withCaller((engine, caller) => engine.charges.create(caller, payload))
  },
  payouts: {
    create: ({ payload }) => withCaller((engine, caller) => engine.payouts.create(caller, payload))
  },
  transactions: {
    list: ({ urlParams }) => withCaller((engine, caller) => engine.transactions.list(caller, urlParams))
  },
  subscriptions: SubscriptionsHandlers.handlers,
  admin: {
    createMerchant: ({ payload }) => withAdmin((a) => a.createMerchant(payload)),
    getMerchant: ({ path }) => withAdmin((a) => Effect.map(a.getMerchant(path.merchantId), merchantView)),
    listKeys: ({ path }) => withAdmin((a) => Effect.map(a.listKeys(path.merchantId), (data) => ({ data }))),
    createKey: ({ path, payload }) => withAdmin((a) => a.createKey(path.merchantId, payload.mode)),
    revokeKey: ({ path }) => withAdmin((a) => a.revokeKey(path.keyId)),
    setWebhook: ({ path, payload }) =>
      withAdmin((a) =>
        a.setWebhook({
          merchantId: path.merchantId,
          mode: path.mode,
          url: payload.url,
          secret: payload.secret,
          secretHeader: payload.secretHeader
        })
      ),
    rotateSigningKey: ({ path, payload }) =>
      withAdmin((a) =>
        a.rotateSigningKey({
          merchantId: path.merchantId,
          mode: path.mode,
          ...(payload.overlapSeconds === undefined ? {} : { overlapSeconds: payload.overlapSeconds })
        })
      ),
    getWebhookStatus: ({ path }) => withAdmin((a) => a.webhookStatus(path.merchantId)),
    getBalance: ({ path, urlParams }) => withAdmin((a) => a.balance(path.merchantId, urlParams.mode)),
    setFeePlan: ({ path, payload }) => withAdmin((a) => a.setFeePlan(path.merchantId, payload)),
    getWebhookLog: ({ path, urlParams }) =>
      withAdmin((a) =>
        Effect.map(a.webhookLog({ merchantId: path.merchantId, ...urlParams }), (data) => ({ data }))
      ),
    invitePanelUser: ({ path, payload }) => withAdmin((a) => a.inviteUser(path.merchantId, payload)),
    createPanelResetLink: ({ path, payload }) => withAdmin((a) => a.resetLink(path.merchantId, payload)),
    getAuditLog: ({ path, urlParams }) => withAdmin((a) => a.auditLog(path.merchantId, urlParams)),
    redeliverEvent: ({ path }) => withAdmin((a) => a.redeliver(path.eventId)),
    sendTestEvent: ({ path }) => withAdmin((a) => a.sendTestEvent(path.merchantId, path.mode)),
    erasePayer: ({ payload }) =>
      Effect.flatMap(Engine.Engine, (engine) => engine.erasure.erasePayer(payload.document)),
    sandboxTopUp: ({ path, payload }) => withAdmin((a) => a.topUp(path.merchantId, payload)),
    sandboxPayCharge: ({ path, urlParams }) =>
      withAdmin((a) => a.sandboxPayCharge(path.transactionId, urlParams)),
    sandboxSettlePayout: ({ path }) => withAdmin((a) => a.sandboxSettlePayout(path.transactionId)),
    sandboxFailPayout: ({ path }) => withAdmin((a) => a.sandboxFailPayout(path.transactionId)),
    sandboxOpenChargeback: ({ path, payload }) =>
      withAdmin((a) => a.sandboxOpenChargeback(path.transactionId, payload)),
    sandboxResolveChargeback: ({ path, payload }) =>
      withAdmin((a) => a.sandboxResolveChargeback(path.chargebackId, payload.outcome))
  },
  adminRefunds: RefundsHandlers.handlers,
  adminInfractions: InfractionsApi.handlers,
  adminGateways: GatewaysApi.handlers,
  adminAudit: {
    getAdminAuditLog: ({ urlParams }) =>
      Effect.flatMap(Engine.Engine, (engine) => engine.adminTokens.auditLog(urlParams))
  },
  adminWebhookOps: WebhookOpsHandlers.handlers,
  adminSubscriptions: SubscriptionSandboxHandlers.handlers
}
