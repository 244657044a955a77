/**
 * The optional admin router: the merchant panel's operations over HTTP (merchants, keys,
 * webhook endpoints, balances, fee plans, the webhook log and redelivery, sandbox top-ups and
 * actions). Off unless an admin token is configured; every route needs
 * `Authorization: Bearer <token>`. Paths are relative to where it is mounted (e.g. `/admin`).
 */
import { Engine, type Errors, Requests } from "@pixgate/core"
import { Effect, type Redacted, type Schema } from "effect"
import * as OpenApi from "./OpenApi.js"
import * as Route from "./Route.js"
import * as Schemas from "./Schemas.js"
import * as Security from "./Security.js"

type Handle = (
  input: Route.Input<undefined>,
  admin: Engine.EngineShape["admin"]
) => Effect.Effect<unknown, Errors.PixgateError, Engine.Engine>

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

/** Decodes with the engine's maximum amount. */
const decode =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (input: unknown) =>
    Effect.flatMap(Engine.Engine, (engine) => Requests.decode(schema, engine.config)(input))

const pathMode = (input: Route.Input<undefined>) =>
  decode(Requests.ModeParameter)({ mode: param(input, "mode") })

const ruleFields = ["gatewayRate", "marginRate", "gatewayFixed", "marginFixed"] as const

/** The JSON schema of a fee plan, for the admin document. */
const feePlanSchema = {
  type: "object",
  properties: Object.fromEntries(
    ["charge", "payout"].map((k) => [
      k,
      {
        type: "object",
        properties: Object.fromEntries(ruleFields.map((f) => [f, { type: "integer", minimum: 0 }])),
        required: [...ruleFields]
      }
    ])
  ),
  required: ["charge", "payout"]
}

const ops: ReadonlyArray<Op> = [
  {
    method: "POST",
    path: "/merchants",
    id: "createMerchant",
    summary: "Create a merchant with one test and one live key (shown only now)",
    status: 201,
    body: object({ name: str, city: str, feePlan: feePlanSchema }, ["name"]),
    handle: ({ body }, admin) => Effect.flatMap(decode(Requests.CreateMerchant)(body), admin.createMerchant)
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
      Effect.flatMap(decode(Requests.CreateKey)(input.body), ({ mode }) =>
        admin.createKey(param(input, "merchantId"), mode)
      )
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
        const { mode } = yield* pathMode(input)
        const { url, secret } = yield* decode(Requests.SetWebhook)(input.body)
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
        const { mode } = yield* pathMode(input)
        const { overlapSeconds } = yield* decode(Requests.RotateSigningKey)(input.body)
        return yield* admin.rotateSigningKey({
          merchantId: param(input, "merchantId"),
          mode,
          ...(overlapSeconds === undefined ? {} : { overlapSeconds })
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
      Effect.flatMap(
        decode(Requests.ModeParameter)({ mode: input.query.get("mode") ?? undefined }),
        ({ mode }) => admin.balance(param(input, "merchantId"), mode)
      )
  },
  {
    method: "PUT",
    path: "/merchants/:merchantId/fee-plan",
    id: "setFeePlan",
    summary: "Replace a merchant's fee plan (rates in ppm, fixed parts in centavos)",
    body: feePlanSchema,
    handle: (input, admin) =>
      Effect.flatMap(decode(Requests.FeePlanInput)(input.body), (plan) =>
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
        const query = yield* decode(Requests.DeliveriesQuery)(
          Object.fromEntries(
            ["mode", "status", "eventId", "limit", "offset"].flatMap((name) => {
              const value = input.query.get(name)
              return value === null ? [] : [[name, value]]
            })
          )
        )
        const data = yield* admin.webhookLog({ merchantId: param(input, "merchantId"), ...query })
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
    handle: (input, admin) =>
      Effect.flatMap(decode(Requests.InvitePanelUser)(input.body), (invite) =>
        admin.inviteUser(param(input, "merchantId"), invite)
      )
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
    handle: (input, admin) =>
      Effect.flatMap(decode(Requests.TopUp)(input.body), (topUp) =>
        admin.topUp(param(input, "merchantId"), topUp)
      )
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
    handle: (input, admin) =>
      Effect.flatMap(decode(Requests.OpenChargeback)(input.body), (chargeback) =>
        admin.sandboxOpenChargeback(param(input, "transactionId"), chargeback)
      )
  },
  {
    method: "POST",
    path: "/sandbox/chargebacks/:chargebackId/resolve",
    id: "sandboxResolveChargeback",
    summary: "Sandbox: resolve a dispute for the payer (accepted) or the merchant (rejected)",
    body: object({ outcome: { type: "string", enum: ["accepted", "rejected"] } }, ["outcome"]),
    handle: (input, admin) =>
      Effect.flatMap(decode(Requests.ResolveChargeback)(input.body), ({ outcome }) =>
        admin.sandboxResolveChargeback(param(input, "chargebackId"), outcome)
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
          components: { Error: Schemas.adminError }
        })
      }))
  )
  documented.push(openapi)
  return [...table, openapi]
}
