/**
 * The public API's route table: the spec's endpoints, the OpenAPI document and its docs page.
 * Each route is described once; the router serves these objects and the document is generated
 * from them. Validation and every business error come from the engine.
 */
import { type Auth, Engine, type Errors, Requests } from "@pixgate/core"
import { Effect } from "effect"
import * as DocsPage from "./DocsPage.js"
import type { Incoming } from "./Incoming.js"
import * as OpenApi from "./OpenApi.js"
import * as Respond from "./Respond.js"
import * as Route from "./Route.js"
import * as Schemas from "./Schemas.js"
import * as Security from "./Security.js"
import * as Timestamp from "./Timestamp.js"

/** The spec's version. */
export const version = "2.0.0"

/** The spec's "Removed" table (and `/v1/webhooks/:id`), with their former methods. */
export const removedEndpoints: ReadonlyArray<OpenApi.RemovedEndpoint> = (
  [
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
).flatMap(([method, path, summary]) => [
  { method, path, summary: `Removed: ${summary}` },
  { method, path: `/api${path}` as const, summary: `Removed: ${summary}` }
])

/** The paths of the spec's "Removed" table, with and without `/api`: 410 for every method. */
export const removed: ReadonlyArray<`/${string}`> = [...new Set(removedEndpoints.map((e) => e.path))]

const idempotencyKey: Route.Parameter = {
  name: "Idempotency-Key",
  in: "header",
  description:
    "Optional, 1-255 characters, kept 24 h per merchant and mode. A repeat with the same body returns the first " +
    "response with `Idempotent-Replayed: true`; a different body is 422; a repeat while the first runs is 409.",
  schema: { type: "string", minLength: 1, maxLength: 255 }
}

const replayed = {
  [Respond.replayedHeader]: {
    description: "`true` when this is a replay of an earlier request",
    schema: { type: "string" }
  }
}

const error = (description: string): Route.ResponseDoc => ({ description, schema: Schemas.ref("Error") })

/** Runs a create operation under the request's Idempotency-Key and answers 201. */
const create = <A>(
  input: Route.Input<Auth.Caller>,
  operation: string,
  effect: (engine: Engine.EngineShape) => Effect.Effect<A, Errors.PixgateError>
) =>
  Effect.gen(function* () {
    const engine = yield* Engine.Engine
    const key = input.request.header("idempotency-key")
    const result = yield* engine.idempotency.run(input.principal, key, operation, input.body, effect(engine))
    const headers: Record<string, string> = result.replayed ? { [Respond.replayedHeader]: "true" } : {}
    return { status: 201, body: result.value, headers } satisfies Respond.Reply
  })

// Answered without the runtime: the cheapest possible probe of the process.
const health = Route.plain(
  {
    method: "GET",
    path: "/api/health",
    operationId: "getHealth",
    summary: "Health check",
    description: "Reports availability. Needs no API key.",
    tag: "Health",
    responses: { 200: { description: "The service is up", schema: Schemas.ref("Health") } }
  },
  () => ({ status: 200, body: { status: "ok", timestamp: Timestamp.iso(Date.now()) } })
)

const charges = Route.make(
  {
    method: "POST",
    path: "/api/v1/charges",
    operationId: "createCharge",
    summary: "Create a PIX charge",
    description:
      "Returns the QR code (PNG, Base64) and the copy-and-paste BR Code. The transaction stays `pending` until " +
      "the payer pays (event `transaction.completed`); at `expiresAt` a pending charge becomes `failed`.",
    tag: "Charges",
    parameters: [idempotencyKey],
    requestBody: Schemas.ref("ChargeRequest"),
    responses: {
      201: { description: "Charge created", schema: Schemas.ref("Charge"), headers: replayed },
      409: error("A request with this Idempotency-Key is still being processed"),
      422: error("Validation failed (e.g. `amount must be a positive number`) or Idempotency-Key reused"),
      502: error("Failed to create charge")
    }
  },
  Security.apiKey,
  (input) =>
    create(input, "charges.create", (engine) =>
      Effect.flatMap(Requests.decode(Requests.CreateCharge, engine.config)(input.body), (request) =>
        engine.charges.create(input.principal, request)
      )
    )
)

const payouts = Route.make(
  {
    method: "POST",
    path: "/api/v1/payouts",
    operationId: "createPayout",
    summary: "Send a PIX payout",
    description:
      "Debits `amount` plus the payout fee (default 0.33) from the available balance; the recipient receives " +
      "the full amount. Status `pending` until the bank confirms (`withdrawal.completed`) or fails (no webhook).",
    tag: "Payouts",
    parameters: [idempotencyKey],
    requestBody: Schemas.ref("PayoutRequest"),
    responses: {
      201: { description: "Payout created", schema: Schemas.ref("Payout"), headers: replayed },
      409: error("A request with this Idempotency-Key is still being processed"),
      422: error(
        "Validation failed (`pixKey is required`, ...), `Insufficient balance`, or Idempotency-Key reused"
      ),
      502: error("Failed to process payout")
    }
  },
  Security.apiKey,
  (input) =>
    create(input, "payouts.create", (engine) =>
      Effect.flatMap(Requests.decode(Requests.CreatePayout, engine.config)(input.body), (request) =>
        engine.payouts.create(input.principal, request)
      )
    )
)

const query = (name: string, description: string, schema: Route.JsonSchema): Route.Parameter => ({
  name,
  in: "query",
  description,
  schema
})

const transactions = Route.make(
  {
    method: "GET",
    path: "/api/v1/transactions",
    operationId: "listTransactions",
    summary: "List transactions",
    description:
      "The merchant's transactions of the key's mode, newest first. Dates are inclusive whole UTC days. " +
      "Invalid values are 422 `invalid_query`; `limit` above 100 is clamped to 100; a page past the end is empty.",
    tag: "Transactions",
    parameters: [
      query("page", "Page number (default 1)", { type: "integer", minimum: 1 }),
      query("limit", "Items per page (default 20, maximum 100)", { type: "integer", minimum: 1 }),
      query("type", "Filter by type", { type: "string", enum: ["deposit", "withdrawal", "payment"] }),
      query("status", "Filter by status", {
        type: "string",
        enum: ["pending", "completed", "failed", "refunded"]
      }),
      query("startDate", "First day, YYYY-MM-DD (UTC, inclusive)", { type: "string", format: "date" }),
      query("endDate", "Last day, YYYY-MM-DD (UTC, inclusive)", { type: "string", format: "date" })
    ],
    responses: {
      200: { description: "A page of transactions", schema: Schemas.ref("TransactionPage") },
      422: error("Invalid query parameter (the message names the allowed values)")
    }
  },
  Security.apiKey,
  (input) =>
    Effect.gen(function* () {
      const engine = yield* Engine.Engine
      const q = input.query
      const param = (name: string) => q.get(name) ?? undefined
      const request = yield* Requests.decode(Requests.ListTransactionsRequest)({
        page: param("page"),
        limit: param("limit"),
        type: param("type"),
        status: param("status"),
        startDate: param("startDate"),
        endDate: param("endDate")
      })
      const page = yield* engine.transactions.list(input.principal, request)
      return { status: 200, body: page }
    })
)

/** The business routes (what the document describes besides itself). */
export const endpoints = [health, charges, payouts, transactions] as const

const describe = (serverUrl: string, routes: ReadonlyArray<OpenApi.Documented>) =>
  OpenApi.document(routes, {
    title: "Pixgate API",
    version,
    description:
      "PIX charges, payouts and transactions. Authenticate with `x-api-key` (`sk_live_...` or `sk_test_...`; test " +
      "keys use the sandbox). Errors are `{ error, code, details? }`. Removed in 2.0.0 (410): " +
      removed.filter((p) => !p.startsWith("/api")).join(", "),
    serverUrl,
    components: Schemas.components,
    license: { name: "MIT", identifier: "MIT" },
    removed: removedEndpoints,
    webhooks
  })

const webhookHeaders: ReadonlyArray<Route.Parameter> = [
  {
    name: "webhook-id",
    in: "header",
    required: true,
    description: "Standard Webhooks: the event's id",
    schema: { type: "string" }
  },
  {
    name: "webhook-timestamp",
    in: "header",
    required: true,
    description: "Standard Webhooks: Unix seconds of this attempt",
    schema: { type: "string", pattern: "^[0-9]+$" }
  },
  {
    name: "webhook-signature",
    in: "header",
    required: true,
    description:
      "Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` with the endpoint's signing key " +
      "(`whsec_...`); two space-separated signatures while a rotated key overlaps. Verify this one.",
    schema: { type: "string" }
  },
  {
    name: "X-Pixgate-Signature",
    in: "header",
    required: true,
    description:
      "The webhook secret itself (the spec's scheme; named after the configured service name). It proves " +
      "nothing to whoever saw one delivery: verify `webhook-signature` instead.",
    schema: { type: "string" }
  }
]

/** The events POSTed to the merchant's webhook URL (OpenAPI 3.1 `webhooks`). */
const webhooks: Readonly<Record<string, OpenApi.WebhookDoc>> = Object.fromEntries(
  Schemas.events.map((e) => [
    e.name,
    {
      summary: e.summary,
      description:
        "Sent to the merchant's webhook URL for the key's mode. Attempts: at once, then 1 s, 5 s and 30 s after a " +
        "failed one; each times out after 10 s. `data` has the transaction's id, type, status, amount and the " +
        "ids that exist (`txid`, `endToEndId`, `pixKey`).",
      schema: Schemas.ref(e.schema),
      headers: webhookHeaders
    }
  ])
)

/** Where the host serves this table: Express's mount path plus the base path. */
const serverUrl = (basePath: string, request: Incoming) => `${request.mountPath}${basePath}` || "/"

/** The whole table for a mount point: endpoints, `/api/openapi.json` and `/api/docs`. */
export const routes = (basePath: string) => {
  const docRoutes: Array<OpenApi.Documented> = []
  const document = (request: Incoming) => describe(serverUrl(basePath, request), [...endpoints, ...docRoutes])
  const openapi = Route.plain(
    {
      method: "GET",
      path: "/api/openapi.json",
      operationId: "getOpenApi",
      summary: "This OpenAPI 3.1 document",
      tag: "Documentation",
      responses: { 200: { description: "The document", schema: { type: "object" } } }
    },
    (input) => ({ status: 200, body: document(input.request) })
  )
  const docs = Route.plain(
    {
      method: "GET",
      path: "/api/docs",
      operationId: "getDocs",
      summary: "This documentation as an HTML page",
      tag: "Documentation",
      responses: { 200: { description: "HTML page", contentType: "text/html", schema: { type: "string" } } }
    },
    (input) => {
      const doc = document(input.request)
      const servers = doc.servers as ReadonlyArray<{ readonly url: string }>
      const specUrl = `${servers[0]!.url.replace(/\/$/, "")}/api/openapi.json`
      return Respond.html(DocsPage.render(doc, specUrl))
    }
  )
  docRoutes.push(openapi, docs)
  return [...endpoints, openapi, docs]
}
