/**
 * Pixgate's HTTP contract as one `HttpApi`: every route, its request schemas (core `Requests`),
 * its answers (core `Views`, `AdminViews`) and every error with its status. The OpenAPI
 * documents, the native dispatcher (routes, decoders, encoders, error statuses), the Effect
 * `HttpApiBuilder` layers and the typed client are all read from it. It imports no Node
 * built-in, store or driver: a client or a web host can load it anywhere.
 */
import {
  HttpApi,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema,
  HttpApiSecurity,
  OpenApi,
  OpenApiJsonSchema
} from "@effect/platform"
import {
  AdminTokenViews,
  AdminViews,
  type Auth,
  type Charges,
  Domain,
  type Errors,
  type Money,
  type Payouts,
  Requests,
  type Transactions,
  Views
} from "@pixgate/core"
import { Context, type Effect, Schema } from "effect"
import * as ApiDocument from "./ApiDocument.js"
import * as ApiErrors from "./ApiErrors.js"
import { AdminEventsGroup, EventsGroup } from "./EventsApi.js"
import { AdminGatewaysGroup } from "./GatewaysApi.js"
import { AdminInfractionsGroup } from "./InfractionsApi.js"
import { AdminRefundsGroup } from "./RefundsApi.js"
import { AdminSubscriptionsGroup } from "./SubscriptionSandboxApi.js"
import * as SubscriptionsApi from "./SubscriptionsApi.js"
import type * as TransportErrors from "./TransportErrors.js"
import { AdminWebhookOpsGroup } from "./WebhookOpsApi.js"

/** Every error of the contract, as a client decodes it (core's and the transport's tagged errors). */
export type ApiError = TransportErrors.ApiError

/** The spec's version. */
export const version = "2.0.0"

/** The merchant a public API request authenticated as (its key's merchant and mode). */
export class CurrentCaller extends Context.Tag("@pixgate/http/CurrentCaller")<CurrentCaller, Auth.Caller>() {}

/** A merchant's API key in `x-api-key` (401 when missing, malformed, unknown or revoked), then the rate limit. */
export class ApiKey extends HttpApiMiddleware.Tag<ApiKey>()("@pixgate/http/ApiKey", {
  // Each wire declaration carries its status as an annotation (a middleware has no addError).
  failure: Schema.Union(ApiErrors.Unauthorized, ApiErrors.RateLimited),
  provides: CurrentCaller,
  security: {
    apiKey: HttpApiSecurity.apiKey({ key: "x-api-key", in: "header" }).pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "`sk_live_...` or `sk_test_...`")
    )
  }
}) {}

/**
 * An admin token as `Authorization: Bearer <token>`: 401 when missing, unknown or revoked, 403 when
 * its scope does not allow the operation (`AdminScopes`), 404 while no admin token exists at all
 * (the admin API is not there).
 */
export class AdminToken extends HttpApiMiddleware.Tag<AdminToken>()("@pixgate/http/AdminToken", {
  failure: Schema.Union(ApiErrors.Unauthorized, ApiErrors.Forbidden, ApiErrors.NotFound),
  security: {
    adminToken: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "An admin token (`pxa_...`, created with `pixgate admin-token create`; its scope says what it may do), " +
          "or PIXGATE_ADMIN_TOKEN (full)"
      )
    )
  }
}) {}

/** The optional `Idempotency-Key` of the create operations (checked by the engine). */
export const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(
    Schema.String.annotations({
      description:
        "Optional, 1-255 characters, kept 24 h per merchant and mode. A repeat with the same body returns the first " +
        "response with `Idempotent-Replayed: true`; a different body is 422; a repeat while the first runs is 409."
    })
  )
})

/**
 * The operation name under which an endpoint runs idempotently (its `Idempotency-Key` scope):
 * the request is decoded and handled inside `Idempotency.run`, so a replay answers what the
 * first request answered, refusals included.
 */
export class IdempotentOperation extends Context.Tag("@pixgate/http/IdempotentOperation")<
  IdempotentOperation,
  string
>() {}

/**
 * An optional query parameter: a string as it arrives (core's `Requests` reads it, with the
 * API's messages), documented as what it holds.
 */
const queryParameter = (description: string, holds: Schema.Schema.AnyNoContext) =>
  Schema.optional(
    Schema.String.annotations({ description, jsonSchema: { ...OpenApiJsonSchema.make(holds), description } })
  )

/** The query of `GET /api/v1/transactions` as it arrives, then read into a list request. */
export const ListTransactionsUrlParams = Schema.compose(
  Schema.Struct({
    page: queryParameter(
      "Page number (default 1)",
      Schema.Number.pipe(Schema.int(), Schema.greaterThanOrEqualTo(1))
    ),
    limit: queryParameter(
      "Items per page (default 20). Values above 100 are accepted and clamped to 100 (the answer's `limit` says 100), so the schema has no `maximum`",
      Schema.Number.pipe(Schema.int(), Schema.greaterThanOrEqualTo(1))
    ),
    type: queryParameter("Filter by type", Schema.Literal(...Domain.transactionTypes)),
    status: queryParameter("Filter by status", Schema.Literal(...Domain.transactionStatuses)),
    startDate: queryParameter(
      "First day, YYYY-MM-DD (UTC, inclusive)",
      Schema.String.annotations({ jsonSchema: { format: "date" } })
    ),
    endDate: queryParameter(
      "Last day, YYYY-MM-DD (UTC, inclusive)",
      Schema.String.annotations({ jsonSchema: { format: "date" } })
    )
  }),
  Requests.ListTransactionsRequest
)

/** `{ identifier, summary, description }` of an operation as OpenAPI annotations. */
const describe = (identifier: string, summary: string, description?: string) =>
  OpenApi.annotations({ identifier, summary, description })

/**
 * The readiness answer: `ready` (200) or `unready` (503), each check by name and the names of
 * those that failed. No timestamp, no error text: an unauthenticated probe learns nothing else.
 */
export const Readiness = Schema.Struct({
  status: Schema.Literal("ready", "unready"),
  checks: Schema.Struct({
    database: Schema.Literal("ok", "unreachable", "timeout").annotations({
      description: "`ok`: the database answered a ping in time; `timeout`: no answer within the bound"
    }),
    instance: Schema.Literal("ok", "draining").annotations({
      description: "`draining`: the instance is stopping and finishes what it has; send it nothing new"
    })
  }),
  failed: Schema.Array(Schema.Literal("database", "instance"))
}).annotations({
  identifier: "Readiness",
  description: "Whether this instance should get traffic, and which check failed",
  examples: [
    { status: "ready", checks: { database: "ok", instance: "ok" }, failed: [] },
    { status: "unready", checks: { database: "timeout", instance: "ok" }, failed: ["database"] }
  ]
})

/** The readiness answer's JSON. */
export type ReadinessJson = typeof Readiness.Type

/** The health checks: the spec's, liveness (the process) and readiness (database, draining). */
export const HealthGroup = HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("check", "/api/health")
      .addSuccess(Views.Health)
      .annotateContext(describe("getHealth", "Health check", "Reports availability. Needs no API key."))
  )
  .add(
    HttpApiEndpoint.get("live", "/api/health/live")
      .addSuccess(Views.Health)
      .annotateContext(
        describe(
          "getLiveness",
          "Liveness",
          "The process answers; checks nothing else (no database), so a database outage never restarts it. Needs no API key."
        )
      )
  )
  .add(
    HttpApiEndpoint.get("ready", "/api/health/ready")
      .addSuccess(Readiness)
      .addError(
        Readiness.annotations({
          description: "Not ready: `failed` names the checks that failed; probe again after `Retry-After`"
        }),
        { status: 503 }
      )
      .annotateContext(
        describe(
          "getReadiness",
          "Readiness",
          "200 when the database answers a ping within the readiness bound (2 s by default) and the " +
            "instance is not draining; else 503 naming the failed check. For load balancers. Needs no API key."
        )
      )
  )
  .annotateContext(
    OpenApi.annotations({
      title: "Health",
      description: "Whether the service is up and ready for traffic (no API key needed)"
    })
  )

/**
 * What a create operation run under an Idempotency-Key may answer besides its own refusals: a
 * body that is not JSON or too large, a field at fault, the key in flight or reused.
 */
const IdempotentCreateErrors = Schema.Union(
  ApiErrors.InvalidJson,
  ApiErrors.Conflict,
  ApiErrors.PayloadTooLarge,
  ApiErrors.ValidationError,
  ApiErrors.IdempotencyMismatch
)

/** What `POST /api/v1/charges` may answer besides the group's errors. */
const CreateChargeErrors = Schema.Union(IdempotentCreateErrors, ApiErrors.GatewayUnavailable)

/** What `POST /api/v1/payouts` may answer besides the group's errors. */
const CreatePayoutErrors = Schema.Union(
  IdempotentCreateErrors,
  ApiErrors.InsufficientBalance,
  ApiErrors.GatewayUnavailable
)

// Each endpoint lists every error of its engine operation (the group adds the 503): an operation
// that may fail in a new way does not compile until its endpoint lists the new error.
const createChargeCovered: ApiErrors.Covers<
  typeof CreateChargeErrors.Type | Errors.StorageUnavailable,
  Charges.CreateChargeError
> = true
const createPayoutCovered: ApiErrors.Covers<
  typeof CreatePayoutErrors.Type | Errors.StorageUnavailable,
  Payouts.CreatePayoutError
> = true
const listTransactionsCovered: ApiErrors.Covers<
  typeof ApiErrors.ValidationError.Type | Errors.StorageUnavailable,
  Effect.Effect.Error<ReturnType<Transactions.TransactionsShape["list"]>>
> = true
// A payout's body is decoded once, here at the edge, into core's terms: its amount in centavos.
// (Naming `Money` in this file also lets the groups' emitted declarations refer to it.)
const payoutInCentavos: Requests.CreatePayout["amount"] extends Money.Cents ? true : false = true
void [createChargeCovered, createPayoutCovered, listTransactionsCovered, payoutInCentavos]

/** `POST /api/v1/charges`. */
export const ChargesGroup = HttpApiGroup.make("charges")
  .add(
    HttpApiEndpoint.post("create", "/api/v1/charges")
      .annotate(IdempotentOperation, "charges.create")
      .setPayload(Requests.CreateCharge)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(Views.Charge, { status: 201 })
      .addError(CreateChargeErrors)
      .annotateContext(
        describe(
          "createCharge",
          "Create a PIX charge",
          "Returns the QR code (PNG, Base64) and the copy-and-paste BR Code. The transaction stays `pending` until " +
            "the payer pays (event `transaction.completed`); at `expiresAt` a pending charge becomes `failed`."
        )
      )
  )
  .middleware(ApiKey)
  .annotateContext(
    OpenApi.annotations({
      title: "Charges",
      description: "PIX charges: a QR code and a copy-and-paste BR Code the payer pays"
    })
  )

/** `POST /api/v1/payouts`. */
export const PayoutsGroup = HttpApiGroup.make("payouts")
  .add(
    HttpApiEndpoint.post("create", "/api/v1/payouts")
      .annotate(IdempotentOperation, "payouts.create")
      .setPayload(Requests.CreatePayout)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(Views.Payout, { status: 201 })
      .addError(CreatePayoutErrors)
      .annotateContext(
        describe(
          "createPayout",
          "Send a PIX payout",
          "Debits `amount` plus the payout fee (default 0.33) from the available balance; the recipient receives " +
            "the full amount. Status `pending` until the bank confirms (`withdrawal.completed`) or fails (no webhook)."
        )
      )
  )
  .middleware(ApiKey)
  .annotateContext(
    OpenApi.annotations({ title: "Payouts", description: "PIX payouts from the available balance" })
  )

/** `GET /api/v1/transactions`. */
export const TransactionsGroup = HttpApiGroup.make("transactions")
  .add(
    HttpApiEndpoint.get("list", "/api/v1/transactions")
      .setUrlParams(ListTransactionsUrlParams)
      .addSuccess(Views.TransactionPage)
      .addError(ApiErrors.ValidationError)
      .annotateContext(
        describe(
          "listTransactions",
          "List transactions",
          "The merchant's transactions of the key's mode, newest first. Dates are inclusive whole UTC days. " +
            "Invalid values are 422 `invalid_query`; `limit` above 100 is clamped to 100; a page past the end is empty."
        )
      )
  )
  .middleware(ApiKey)
  .annotateContext(
    OpenApi.annotations({
      title: "Transactions",
      description: "The merchant's charges, payouts and payments, newest first"
    })
  )

/** An OpenAPI 3.1 document, as the documentation endpoints answer it. */
const OpenApiDocument = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  description: "The OpenAPI 3.1 document",
  examples: [{ openapi: "3.1.0", info: { title: "Pixgate API", version }, paths: {} }]
})

/** The spec's "Removed" table (and `/v1/webhooks/:id`): every method on these paths answers 410. */
const removedTable = [
  ["GET", "/v1/balance", "Available balance (now only in the merchant panel)"],
  ["GET", "/v1/charges/:txid", "Charge status"],
  ["GET", "/v1/transactions/:id", "Single transaction"],
  ["GET", "/v1/payments/:referenceCode", "Payment status"],
  ["POST", "/v1/refunds", "Refunds"],
  ["GET", "/v1/refunds/:referenceCode", "Refund status"],
  ["POST", "/v1/webhooks", "Webhook management (now done in the merchant panel)"],
  ["GET", "/v1/webhooks", "Webhook management (now done in the merchant panel)"],
  ["DELETE", "/v1/webhooks", "Webhook management (now done in the merchant panel)"],
  ["GET", "/v1/webhooks/:id", "Webhook management (now done in the merchant panel)"],
  ["DELETE", "/v1/webhooks/:id", "Webhook management (now done in the merchant panel)"]
] as const

/** A removed method and path (router syntax), with its former summary. */
export interface RemovedEndpoint {
  readonly method: "GET" | "POST" | "DELETE"
  readonly path: `/${string}`
  readonly summary: string
}

/** The removed endpoints, with and without `/api`. */
export const removedEndpoints: ReadonlyArray<RemovedEndpoint> = removedTable.flatMap(
  ([method, path, summary]) => [
    { method, path, summary: `Removed: ${summary}` },
    { method, path: `/api${path}` as const, summary: `Removed: ${summary}` }
  ]
)

/** The paths removed in 2.0.0, with and without `/api`: 410 for every method. */
export const removedPaths: ReadonlyArray<`/${string}`> = [...new Set(removedEndpoints.map((e) => e.path))]

const removedName = (method: string, path: string) =>
  `removed${method[0]}${method.slice(1).toLowerCase()}${path
    .split(/[^A-Za-z0-9]+/)
    .map((w) => (w === "" ? "" : `${w[0].toUpperCase()}${w.slice(1)}`))
    .join("")}`

/** The path parameters of a router path, as a schema. */
const pathParams = (path: string) =>
  Schema.Struct(Object.fromEntries([...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => [m[1], Schema.String])))

const removedEndpoint = (endpoint: RemovedEndpoint) =>
  HttpApiEndpoint.make(endpoint.method)(removedName(endpoint.method, endpoint.path), endpoint.path)
    .setPath(pathParams(endpoint.path))
    .addError(ApiErrors.Gone)
    .annotateContext(
      OpenApi.annotations({
        identifier: removedName(endpoint.method, endpoint.path),
        summary: endpoint.summary,
        description: "Removed in version 2.0.0: every method on this path answers 410 `endpoint_removed`.",
        deprecated: true
      })
    )

const [firstRemoved, ...otherRemoved] = removedEndpoints.map(removedEndpoint)

/** The endpoints removed in 2.0.0, documented as deprecated operations answering 410. */
export const RemovedGroup = otherRemoved
  .reduce((group, endpoint) => group.add(endpoint), HttpApiGroup.make("removed").add(firstRemoved))
  .annotateContext(
    OpenApi.annotations({
      title: "Removed in 2.0.0",
      description:
        "Endpoints removed in version 2.0.0, kept documented so old clients learn why they fail: every method on these paths answers 410 `endpoint_removed`. Listed last and collapsed on the docs page"
    })
  )

/** The OpenAPI document and its docs page. */
export const DocumentationGroup = HttpApiGroup.make("documentation")
  .add(
    HttpApiEndpoint.get("openapi", "/api/openapi.json")
      .addSuccess(OpenApiDocument)
      .annotateContext(describe("getOpenApi", "This OpenAPI 3.1 document"))
  )
  .add(
    HttpApiEndpoint.get("docs", "/api/docs")
      .addSuccess(HttpApiSchema.Text({ contentType: "text/html" }).annotations({ description: "HTML page" }))
      .annotateContext(describe("getDocs", "This documentation as an HTML page"))
  )
  .add(
    HttpApiEndpoint.get("renderer", "/api/docs/scalar.js")
      .addSuccess(
        HttpApiSchema.Text({ contentType: "text/javascript" }).annotations({
          description:
            "JavaScript, gzip or brotli as `Accept-Encoding` allows (`Vary: Accept-Encoding`); `ETag` names its hash. " +
            "Under the docs page's URL (`?v=` the hash) cached for a year (`immutable`), otherwise revalidated (`no-cache`)"
        })
      )
      .addSuccess(
        HttpApiSchema.Empty(304).annotations({
          description: "Not modified: the `If-None-Match` of the request is this version"
        })
      )
      .annotateContext(
        describe(
          "getDocsRenderer",
          "The docs page's renderer",
          "Scalar's standalone API reference bundle, served by this server (no CDN)."
        )
      )
  )
  .annotateContext(
    OpenApi.annotations({ title: "Documentation", description: "This OpenAPI document and its docs page" })
  )

const MerchantPath = Schema.Struct({ merchantId: Schema.String })
const WebhookPath = Schema.Struct({ merchantId: Schema.String, mode: Requests.Mode }).annotations({
  [Requests.FirstProblemOnlyId]: true
})
const TransactionPath = Schema.Struct({ transactionId: Schema.String })
/** The merchant panel's operations, behind the admin token; paths relative to the admin mount. */
export const AdminGroup = HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.post("createMerchant", "/merchants")
      .setPayload(Requests.CreateMerchant)
      .addSuccess(AdminViews.CreatedMerchant, { status: 201 })
      .annotateContext(
        describe("createMerchant", "Create a merchant with one test and one live key (shown only now)")
      )
  )
  .add(
    HttpApiEndpoint.get("getMerchant", "/merchants/:merchantId")
      .setPath(MerchantPath)
      .addSuccess(AdminViews.Merchant)
      .annotateContext(describe("getMerchant", "Read a merchant"))
  )
  .add(
    HttpApiEndpoint.get("listKeys", "/merchants/:merchantId/keys")
      .setPath(MerchantPath)
      .addSuccess(AdminViews.ApiKeyList)
      .annotateContext(describe("listKeys", "List a merchant's API keys (ids and hints, never the keys)"))
  )
  .add(
    HttpApiEndpoint.post("createKey", "/merchants/:merchantId/keys")
      .setPath(MerchantPath)
      .setPayload(Requests.CreateKey)
      .addSuccess(AdminViews.CreatedKey, { status: 201 })
      .annotateContext(describe("createKey", "Create an API key for a mode (shown only now)"))
  )
  .add(
    HttpApiEndpoint.del("revokeKey", "/keys/:keyId")
      .setPath(Schema.Struct({ keyId: Schema.String }))
      .addSuccess(AdminViews.RevokedKey)
      .annotateContext(describe("revokeKey", "Revoke an API key"))
  )
  .add(
    HttpApiEndpoint.put("setWebhook", "/merchants/:merchantId/webhooks/:mode")
      .setPath(WebhookPath)
      .setPayload(Requests.SetWebhook)
      .addSuccess(AdminViews.WebhookEndpoint)
      .annotateContext(
        describe(
          "setWebhook",
          "Set the webhook endpoint (URL and secret) of a mode; the first time, the answer holds the endpoint's signing key (shown only now)"
        )
      )
  )
  .add(
    HttpApiEndpoint.post("rotateSigningKey", "/merchants/:merchantId/webhooks/:mode/signing-key")
      .setPath(WebhookPath)
      .setPayload(Requests.RotateSigningKey)
      .addSuccess(AdminViews.RotatedSigningKey)
      .annotateContext(
        describe(
          "rotateSigningKey",
          "Replace the endpoint's signing key (shown only now); the old one keeps signing for overlapSeconds (default 86400)"
        )
      )
  )
  .add(
    HttpApiEndpoint.get("getWebhookStatus", "/merchants/:merchantId/webhook-status")
      .setPath(MerchantPath)
      .addSuccess(AdminViews.WebhookStatus)
      .annotateContext(
        describe(
          "getWebhookStatus",
          "Each webhook endpoint's state (healthy or failing), deliveries pending and attempts in flight"
        )
      )
  )
  .add(
    HttpApiEndpoint.get("getBalance", "/merchants/:merchantId/balance")
      .setPath(MerchantPath)
      .setUrlParams(Requests.ModeParameter)
      .addSuccess(AdminViews.Balance)
      .annotateContext(describe("getBalance", "Available and held balance of a mode"))
  )
  .add(
    HttpApiEndpoint.put("setFeePlan", "/merchants/:merchantId/fee-plan")
      .setPath(MerchantPath)
      .setPayload(
        Requests.FeePlanInput.annotations({
          examples: [
            {
              charge: { gatewayRate: 2500, marginRate: 7400, gatewayFixed: 0, marginFixed: 0 },
              payout: { gatewayRate: 0, marginRate: 0, gatewayFixed: 10, marginFixed: 23 }
            }
          ]
        })
      )
      .addSuccess(AdminViews.FeePlanSet)
      .annotateContext(
        describe("setFeePlan", "Replace a merchant's fee plan (rates in ppm, fixed parts in centavos)")
      )
  )
  .add(
    HttpApiEndpoint.get("getWebhookLog", "/merchants/:merchantId/webhook-log")
      .setPath(MerchantPath)
      .setUrlParams(Requests.DeliveriesQuery)
      .addSuccess(AdminViews.DeliveryList)
      .annotateContext(describe("getWebhookLog", "Webhook deliveries with their attempts, newest first"))
  )
  .add(
    HttpApiEndpoint.post("invitePanelUser", "/merchants/:merchantId/panel-invites")
      .setPath(MerchantPath)
      .setPayload(Requests.InvitePanelUser)
      .addSuccess(AdminViews.PanelInvite, { status: 201 })
      .annotateContext(
        describe(
          "invitePanelUser",
          "Invite a person to the merchant panel with a role: the one-time link's path and token (shown only now)"
        )
      )
  )
  .add(
    HttpApiEndpoint.post("createPanelResetLink", "/merchants/:merchantId/panel-reset-links")
      .setPath(MerchantPath)
      .setPayload(Requests.PanelResetLink)
      .addSuccess(AdminViews.PanelResetLink, { status: 201 })
      .annotateContext(
        describe(
          "createPanelResetLink",
          "Issue a one-time password reset link (1 hour) for a panel user: its path and token (shown only now); using it signs the user out everywhere"
        )
      )
  )
  .add(
    HttpApiEndpoint.get("getAuditLog", "/merchants/:merchantId/audit-log")
      .setPath(MerchantPath)
      .setUrlParams(Requests.AuditQuery)
      .addSuccess(AdminViews.AuditLog)
      .annotateContext(
        describe(
          "getAuditLog",
          "The merchant's audit log, newest first: who did what, when and from where (sign-ins, second factor, payouts, refunds, keys, webhooks, roles, sessions, password resets)"
        )
      )
  )
  .add(
    HttpApiEndpoint.post("sendTestEvent", "/merchants/:merchantId/webhooks/:mode/test")
      .setPath(WebhookPath)
      .addSuccess(AdminViews.TestEventSent, { status: 202 })
      .annotateContext(
        describe(
          "sendTestEvent",
          "Send a `webhook.test` event to the endpoint of the mode: signed, delivered and logged like every event, moving no money (404 without an endpoint)"
        )
      )
  )
  .add(
    HttpApiEndpoint.post("redeliverEvent", "/events/:eventId/redeliver")
      .setPath(Schema.Struct({ eventId: Schema.String }))
      .addSuccess(AdminViews.Redelivery, { status: 202 })
      .annotateContext(describe("redeliverEvent", "Send an event again (same event id)"))
  )
  .add(
    HttpApiEndpoint.post("erasePayer", "/payers/erase")
      .setPayload(Requests.ErasePayer)
      .addSuccess(AdminViews.Erased)
      .annotateContext(
        describe(
          "erasePayer",
          "Erase a payer's personal data",
          "Replaces the name, CPF/CNPJ and PIX key of every transaction of the payer (every merchant and mode) with `[erased]`, and the PIX key in their webhook events; amounts, ids and the ledger stay exactly as they were"
        )
      )
  )
  .add(
    HttpApiEndpoint.post("sandboxTopUp", "/merchants/:merchantId/sandbox/topup")
      .setPath(MerchantPath)
      .setPayload(Requests.TopUp)
      .addSuccess(AdminViews.Balance)
      .annotateContext(describe("sandboxTopUp", "Add sandbox money to the test balance"))
  )
  .add(
    HttpApiEndpoint.post("sandboxPayCharge", "/sandbox/transactions/:transactionId/pay")
      .setPath(TransactionPath)
      .setUrlParams(Requests.SandboxPay)
      .addSuccess(Views.TransactionView)
      .annotateContext(
        describe(
          "sandboxPayCharge",
          "Sandbox: the payer pays a test charge now, or on `paidAt` (a due-date charge asks for what its terms give that day); another `amount` is recorded and returned, not credited"
        )
      )
  )
  .add(
    HttpApiEndpoint.post("sandboxSettlePayout", "/sandbox/transactions/:transactionId/settle")
      .setPath(TransactionPath)
      .addSuccess(Views.TransactionView)
      .annotateContext(describe("sandboxSettlePayout", "Sandbox: the bank confirms a test payout now"))
  )
  .add(
    HttpApiEndpoint.post("sandboxFailPayout", "/sandbox/transactions/:transactionId/fail")
      .setPath(TransactionPath)
      .addSuccess(Views.TransactionView)
      .annotateContext(
        describe(
          "sandboxFailPayout",
          "Sandbox: the bank rejects a test payout now (money returned, no webhook)"
        )
      )
  )
  .add(
    HttpApiEndpoint.post("sandboxOpenChargeback", "/sandbox/transactions/:transactionId/chargebacks")
      .setPath(TransactionPath)
      .setPayload(Requests.OpenChargeback)
      .addSuccess(AdminViews.Chargeback, { status: 201 })
      .annotateContext(
        describe(
          "sandboxOpenChargeback",
          "Sandbox: a payer disputes a completed test deposit (optional partial amount)"
        )
      )
  )
  .add(
    HttpApiEndpoint.post("sandboxResolveChargeback", "/sandbox/chargebacks/:chargebackId/resolve")
      .setPath(Schema.Struct({ chargebackId: Schema.String }))
      .setPayload(Requests.ResolveChargeback)
      .addSuccess(AdminViews.Chargeback)
      .annotateContext(
        describe(
          "sandboxResolveChargeback",
          "Sandbox: resolve a dispute for the payer (accepted) or the merchant (rejected)"
        )
      )
  )
  .addError(ApiErrors.AdminErrors)
  .middleware(AdminToken)
  .annotateContext(OpenApi.annotations(ApiDocument.adminTag))

/** The admin API's own audit log (who changed what through it), behind the admin token. */
export const AdminAuditGroup = HttpApiGroup.make("adminAudit")
  .add(
    HttpApiEndpoint.get("getAdminAuditLog", "/audit-log")
      .setUrlParams(Requests.AuditQuery)
      .addSuccess(AdminTokenViews.AdminAuditLog)
      .annotateContext(
        describe(
          "getAdminAuditLog",
          "The admin audit log, newest first: every write through the admin API (refusals included) with the token's name, and every admin token created or revoked"
        )
      )
  )
  .addError(Schema.Union(ApiErrors.AdminValidationError, ApiErrors.StorageUnavailable))
  .middleware(AdminToken)
  .annotateContext(
    OpenApi.annotations({ title: "Admin audit", description: "Who changed what through the admin API" })
  )

/** The admin API's own document. */
export const AdminDocumentationGroup = HttpApiGroup.make("adminDocumentation")
  .add(
    HttpApiEndpoint.get("openapi", "/openapi.json")
      .addSuccess(OpenApiDocument)
      .annotateContext(describe("getAdminOpenApi", "The admin API's OpenAPI 3.1 document"))
  )
  .middleware(AdminToken)
  .annotateContext(
    OpenApi.annotations({ title: "Admin documentation", description: "The admin API's OpenAPI document" })
  )

/** `/api/v1/subscriptions` (Pix Automático), declared in `SubscriptionsApi`. */
export const SubscriptionsGroup = SubscriptionsApi.group({ ApiKey, IdempotencyHeaders, IdempotentOperation })

/** The public API: health, charges, payouts, transactions, the event stream, the removed endpoints and the documents. */
export const PublicApi = HttpApi.make("pixgate")
  .add(HealthGroup)
  .add(ChargesGroup.addError(ApiErrors.StorageUnavailable))
  .add(PayoutsGroup.addError(ApiErrors.StorageUnavailable))
  .add(TransactionsGroup.addError(ApiErrors.StorageUnavailable))
  .add(SubscriptionsGroup.addError(ApiErrors.StorageUnavailable))
  .add(EventsGroup.middleware(ApiKey).addError(ApiErrors.StorageUnavailable))
  .add(DocumentationGroup)
  // Last: the removed endpoints' tag closes the reference (docs/decisions.md).
  .add(RemovedGroup)
  .addError(Schema.Union(ApiErrors.NotFound, ApiErrors.MethodNotAllowed, ApiErrors.Internal))
  .annotateContext(
    OpenApi.annotations({
      title: "Pixgate API",
      version,
      description:
        `API version ${version}: every endpoint is under \`/api/v1\`. Compatible changes (new fields, endpoints, ` +
        "events) come without a version increment, so ignore fields you do not know; an incompatible change makes a " +
        "new major version, and the previous one is kept at least 12 months after it, with 90 days' notice.\n\n" +
        "PIX charges, payouts and transactions. Authenticate with `x-api-key` (`sk_live_...` or `sk_test_...`; test " +
        "keys use the sandbox). Errors are `{ error, code, details? }`. Removed in 2.0.0 (410): " +
        removedPaths.filter((p) => !p.startsWith("/api")).join(", "),
      transform: ApiDocument.publicTransform
    })
  )
  .annotate(HttpApi.AdditionalSchemas, [ApiErrors.ErrorBody])

const adminGroups = HttpApi.make("pixgate-admin")
  .add(AdminGroup)
  .add(AdminRefundsGroup.middleware(AdminToken))
  .add(AdminAuditGroup)
  .add(AdminInfractionsGroup.middleware(AdminToken))
  .add(AdminEventsGroup.middleware(AdminToken).addError(ApiErrors.StorageUnavailable))
  .add(AdminGatewaysGroup.middleware(AdminToken))
  .add(AdminWebhookOpsGroup.middleware(AdminToken))
  .add(AdminSubscriptionsGroup.middleware(AdminToken))
  .add(AdminDocumentationGroup)
  .addError(Schema.Union(ApiErrors.MethodNotAllowed, ApiErrors.Internal))

/** The admin API, relative to where it is mounted (the standalone server uses `/admin`). */
export const AdminApi = adminGroups
  .annotateContext(
    OpenApi.annotations({
      title: "Pixgate admin API",
      version: "1.0.0",
      description:
        "Merchant panel operations. Authenticate with `Authorization: Bearer <admin token>`: a named token " +
        "(`pxa_...`) whose scope (`read-only`, `operator`, `full`, `metrics`) says what it may do (403 otherwise), " +
        "or PIXGATE_ADMIN_TOKEN.",
      transform: ApiDocument.adminTransform
    })
  )
  .annotate(HttpApi.AdditionalSchemas, [ApiErrors.AdminErrorBody])

/** The whole contract: the public API, and the admin API under `/admin` (as the standalone server mounts it). */
export const PixgateApi = PublicApi.addHttpApi(adminGroups.prefix("/admin"))
