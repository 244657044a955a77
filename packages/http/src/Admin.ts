/**
 * The optional admin router: the merchant panel's operations over HTTP (merchants, keys,
 * webhook endpoints, balances, fee plans, the webhook log and redelivery, sandbox top-ups and
 * actions). Off unless an admin token is configured; every route needs
 * `Authorization: Bearer <token>`. Paths are relative to where it is mounted (e.g. `/admin`).
 */
import { Engine, Errors } from "@pixgate/core"
import { Effect, type Redacted } from "effect"
import * as Input from "./AdminInput.js"
import * as OpenApi from "./OpenApi.js"
import * as Route from "./Route.js"
import * as Schemas from "./Schemas.js"
import * as Security from "./Security.js"

type Handle = (
  input: Route.Input<undefined>,
  admin: Engine.EngineShape["admin"]
) => Effect.Effect<unknown, Errors.PixgateError>

interface Op {
  readonly method: Route.Method
  readonly path: `/${string}`
  readonly id: string
  readonly summary: string
  readonly status?: number
  readonly body?: Route.JsonSchema
  readonly query?: ReadonlyArray<string>
  readonly handle: Handle
}

const object = (properties: Record<string, Route.JsonSchema>, required: ReadonlyArray<string>) => ({
  type: "object",
  properties,
  required
})
const str = { type: "string" }
const modeSchema = { type: "string", enum: ["test", "live"] }
const param = (input: Route.Input<undefined>, name: string) => input.params[name] ?? ""

const ops: ReadonlyArray<Op> = [
  {
    method: "POST",
    path: "/merchants",
    id: "createMerchant",
    summary: "Create a merchant with one test and one live key (shown only now)",
    status: 201,
    body: object({ name: str, city: str, feePlan: Input.feePlanSchema }, ["name"]),
    handle: ({ body }, admin) =>
      Effect.gen(function* () {
        const name = yield* Input.string(body, "name")
        const city = yield* Input.optionalString(body, "city")
        const feePlan = body.feePlan === undefined ? undefined : yield* Input.feePlan(body.feePlan)
        return yield* admin.createMerchant({
          name,
          ...(city === undefined ? {} : { city }),
          ...(feePlan === undefined ? {} : { feePlan })
        })
      })
  },
  {
    method: "GET",
    path: "/merchants/:merchantId",
    id: "getMerchant",
    summary: "Read a merchant",
    handle: (input, admin) =>
      Effect.map(admin.getMerchant(param(input, "merchantId")), (m) => ({
        merchantId: m.id,
        name: m.name,
        city: m.city,
        feePlan: m.feePlan,
        createdAt: new Date(m.createdAt).toISOString()
      }))
  },
  {
    method: "GET",
    path: "/merchants/:merchantId/keys",
    id: "listKeys",
    summary: "List a merchant's API keys (ids and hints, never the keys)",
    handle: (input, admin) => Effect.map(admin.listKeys(param(input, "merchantId")), (data) => ({ data }))
  },
  {
    method: "POST",
    path: "/merchants/:merchantId/keys",
    id: "createKey",
    summary: "Create an API key for a mode (shown only now)",
    status: 201,
    body: object({ mode: modeSchema }, ["mode"]),
    handle: (input, admin) =>
      Effect.flatMap(Input.mode(input.body.mode), (mode) => admin.createKey(param(input, "merchantId"), mode))
  },
  {
    method: "DELETE",
    path: "/keys/:keyId",
    id: "revokeKey",
    summary: "Revoke an API key",
    handle: (input, admin) => admin.revokeKey(param(input, "keyId"))
  },
  {
    method: "PUT",
    path: "/merchants/:merchantId/webhooks/:mode",
    id: "setWebhook",
    summary:
      "Set the webhook endpoint (URL and secret) of a mode; the first time, the answer holds the endpoint's signing key (shown only now)",
    body: object(
      {
        url: str,
        secret: {
          type: "string",
          minLength: 8,
          maxLength: 256,
          pattern: "^[\\x21-\\x7e]([\\x20-\\x7e]*[\\x21-\\x7e])?$"
        }
      },
      ["url", "secret"]
    ),
    handle: (input, admin) =>
      Effect.gen(function* () {
        const mode = yield* Input.mode(param(input, "mode"))
        const url = yield* Input.string(input.body, "url")
        const secret = yield* Input.string(input.body, "secret")
        return yield* admin.setWebhook({ merchantId: param(input, "merchantId"), mode, url, secret })
      })
  },
  {
    method: "POST",
    path: "/merchants/:merchantId/webhooks/:mode/signing-key",
    id: "rotateSigningKey",
    summary:
      "Replace the endpoint's signing key (shown only now); the old one keeps signing for overlapSeconds (default 86400)",
    body: object({ overlapSeconds: { type: "integer", minimum: 0, maximum: 604800 } }, []),
    handle: (input, admin) =>
      Effect.gen(function* () {
        const mode = yield* Input.mode(param(input, "mode"))
        const overlap = input.body.overlapSeconds
        if (overlap !== undefined && overlap !== null && typeof overlap !== "number") {
          return yield* Effect.fail(
            Errors.validation(
              "invalid_overlap",
              "overlapSeconds",
              "overlapSeconds must be a number of seconds"
            )
          )
        }
        return yield* admin.rotateSigningKey({
          merchantId: param(input, "merchantId"),
          mode,
          ...(typeof overlap === "number" ? { overlapSeconds: overlap } : {})
        })
      })
  },
  {
    method: "GET",
    path: "/merchants/:merchantId/webhook-status",
    id: "getWebhookStatus",
    summary: "Each webhook endpoint's state (healthy or failing), deliveries pending and attempts in flight",
    handle: (input, admin) => admin.webhookStatus(param(input, "merchantId"))
  },
  {
    method: "GET",
    path: "/merchants/:merchantId/balance",
    id: "getBalance",
    summary: "Available and held balance of a mode",
    query: ["mode"],
    handle: (input, admin) =>
      Effect.flatMap(Input.mode(input.query.get("mode")), (mode) =>
        admin.balance(param(input, "merchantId"), mode)
      )
  },
  {
    method: "PUT",
    path: "/merchants/:merchantId/fee-plan",
    id: "setFeePlan",
    summary: "Replace a merchant's fee plan (rates in ppm, fixed parts in centavos)",
    body: Input.feePlanSchema,
    handle: (input, admin) =>
      Effect.flatMap(Input.feePlan(input.body, "body"), (plan) =>
        admin.setFeePlan(param(input, "merchantId"), plan)
      )
  },
  {
    method: "GET",
    path: "/merchants/:merchantId/webhook-log",
    id: "getWebhookLog",
    summary: "Webhook deliveries with their attempts, newest first",
    query: ["mode", "status", "eventId", "limit", "offset"],
    handle: (input, admin) =>
      Effect.gen(function* () {
        const q = input.query
        const mode = q.get("mode") ? yield* Input.mode(q.get("mode")) : undefined
        const status = q.get("status")
          ? yield* Input.oneOf(q.get("status"), "status", ["pending", "delivered", "failed"] as const)
          : undefined
        const limit = yield* Input.optionalCount(q.get("limit"), "limit")
        const offset = yield* Input.optionalCount(q.get("offset"), "offset")
        const eventId = q.get("eventId") ?? undefined
        const data = yield* admin.webhookLog({
          merchantId: param(input, "merchantId"),
          ...(mode === undefined ? {} : { mode }),
          ...(status === undefined ? {} : { status }),
          ...(eventId === undefined ? {} : { eventId }),
          ...(limit === undefined ? {} : { limit }),
          ...(offset === undefined ? {} : { offset })
        })
        return { data }
      })
  },
  {
    method: "POST",
    path: "/merchants/:merchantId/panel-invites",
    id: "invitePanelUser",
    summary: "Invite a person to the merchant panel: the one-time link's path and token (shown only now)",
    status: 201,
    body: object({ email: str }, ["email"]),
    handle: (input, admin) => admin.inviteUser(param(input, "merchantId"), input.body.email)
  },
  {
    method: "POST",
    path: "/events/:eventId/redeliver",
    id: "redeliverEvent",
    summary: "Send an event again (same event id)",
    status: 202,
    handle: (input, admin) => admin.redeliver(param(input, "eventId"))
  },
  {
    method: "POST",
    path: "/merchants/:merchantId/sandbox/topup",
    id: "sandboxTopUp",
    summary: "Add sandbox money to the test balance",
    body: object({ amount: { type: "number", minimum: 0.01 } }, ["amount"]),
    handle: (input, admin) => admin.topUp(param(input, "merchantId"), input.body.amount)
  },
  {
    method: "POST",
    path: "/sandbox/transactions/:transactionId/pay",
    id: "sandboxPayCharge",
    summary: "Sandbox: the payer pays a test charge now",
    handle: (input, admin) => admin.sandboxPayCharge(param(input, "transactionId"))
  },
  {
    method: "POST",
    path: "/sandbox/transactions/:transactionId/settle",
    id: "sandboxSettlePayout",
    summary: "Sandbox: the bank confirms a test payout now",
    handle: (input, admin) => admin.sandboxSettlePayout(param(input, "transactionId"))
  },
  {
    method: "POST",
    path: "/sandbox/transactions/:transactionId/fail",
    id: "sandboxFailPayout",
    summary: "Sandbox: the bank rejects a test payout now (money returned, no webhook)",
    handle: (input, admin) => admin.sandboxFailPayout(param(input, "transactionId"))
  },
  {
    method: "POST",
    path: "/sandbox/transactions/:transactionId/chargebacks",
    id: "sandboxOpenChargeback",
    summary: "Sandbox: a payer disputes a completed test deposit (optional partial amount)",
    status: 201,
    body: object({ amount: { type: "number", minimum: 0.01 } }, []),
    handle: (input, admin) => admin.sandboxOpenChargeback(param(input, "transactionId"), input.body.amount)
  },
  {
    method: "POST",
    path: "/sandbox/chargebacks/:chargebackId/resolve",
    id: "sandboxResolveChargeback",
    summary: "Sandbox: resolve a dispute for the payer (accepted) or the merchant (rejected)",
    body: object({ outcome: { type: "string", enum: ["accepted", "rejected"] } }, ["outcome"]),
    handle: (input, admin) =>
      Effect.flatMap(
        Input.oneOf(input.body.outcome, "outcome", ["accepted", "rejected"] as const),
        (outcome) => admin.sandboxResolveChargeback(param(input, "chargebackId"), outcome)
      )
  }
]

const toRoute = (security: Route.Security<undefined, never>) => (op: Op) =>
  Route.make(
    {
      method: op.method,
      path: op.path,
      operationId: op.id,
      summary: op.summary,
      tag: "Admin",
      ...(op.body === undefined ? {} : { requestBody: op.body }),
      parameters: (op.query ?? []).map((name) => ({ name, in: "query", description: name, schema: str })),
      responses: {
        [op.status ?? 200]: { description: "Done", schema: { type: "object" } },
        404: { description: "Merchant, key, transaction or event not found" },
        409: { description: "Not possible in the current state (e.g. not pending, not test mode)" },
        422: { description: "Invalid field" }
      }
    },
    security,
    (input) =>
      Effect.flatMap(Engine.Engine, (engine) =>
        Effect.map(op.handle(input, engine.admin), (body) => ({ status: op.status ?? 200, body }))
      )
  )

/** The admin route table, protected by `token`, served under `basePath`. */
export const routes = (token: Redacted.Redacted<string>, basePath = "") => {
  const security = Security.adminToken(token)
  const table = ops.map(toRoute(security))
  const documented: Array<OpenApi.Documented> = [...table]
  const openapi = Route.make(
    {
      method: "GET",
      path: "/openapi.json",
      operationId: "getAdminOpenApi",
      summary: "The admin API's OpenAPI 3.1 document",
      tag: "Admin",
      responses: { 200: { description: "The document", schema: { type: "object" } } }
    },
    security,
    () =>
      Effect.sync(() => ({
        status: 200,
        body: OpenApi.document(documented, {
          title: "Pixgate admin API",
          version: "1.0.0",
          description: "Merchant panel operations. Authenticate with `Authorization: Bearer <admin token>`.",
          serverUrl: basePath || "/",
          components: { Error: Schemas.adminError },
          license: { name: "MIT", identifier: "MIT" }
        })
      }))
  )
  documented.push(openapi)
  return [...table, openapi]
}
