/**
 * The request bodies, path and query parameters of the admin API (and the CLI, which sends
 * them): merchants, fee plans, keys, webhooks and their log, refunds, panel users, the audit log
 * and the sandbox's top-ups, payments and chargebacks. These schemas stop at the first problem
 * (`FirstProblemOnlyId`), code `invalid_field` unless said.
 */
import { Either, ParseResult, Schema } from "effect"
import * as Money from "../../domain/Money.js"
import { FirstProblemOnlyId, fail, ProblemId, problem, required } from "./Problems.js"
import { amount, Cents, parseDay } from "./Shared.js"

const invalidField = (path: string, message: string) => problem("invalid_field", message, path)

/** A required string field of the admin API. */
const adminString = (field: string, description: string) => {
  const p = invalidField(field, `${field} must be a string`)
  return required(Schema.String.annotations({ ...p, description }), p)
}

/** One of `allowed` (a body field, path or query parameter). */
export const oneOf = <const A extends readonly [string, ...Array<string>]>(field: string, allowed: A) => {
  const p = invalidField(field, `${field} must be one of: ${allowed.join(", ")}`)
  return Schema.Literal(...allowed).annotations(p)
}

/** `test` or `live`. */
export const Mode = oneOf("mode", ["test", "live"]).annotations({ description: "The key's mode" })

const requiredOneOf = <const A extends readonly [string, ...Array<string>]>(field: string, allowed: A) =>
  required(oneOf(field, allowed), invalidField(field, `${field} must be one of: ${allowed.join(", ")}`))

/** One fee rule: rates in ppm, fixed parts in centavos (the engine checks the values). */
const feeRule = (path: string) => {
  const field = (name: string) => {
    const p = invalidField(
      `${path}.${name}`,
      `${path}.${name} must be a number (ppm for rates, centavos for fixed)`
    )
    return required(Schema.Number.annotations({ ...p, jsonSchema: { type: "integer", minimum: 0 } }), p)
  }
  return Schema.Struct({
    gatewayRate: field("gatewayRate"),
    marginRate: field("marginRate"),
    gatewayFixed: field("gatewayFixed"),
    marginFixed: field("marginFixed")
  }).annotations(invalidField(path, `${path} must be an object`))
}

/**
 * A fee plan `{ charge, payout }` as sent, at `path` (`feePlan` inside a merchant, `body` when
 * it is the whole body); the engine checks the values (`Fees.validatePlan`).
 */
export const feePlan = (path: string) => {
  const p = invalidField(path, `${path} must be an object with charge and payout rules`)
  const rule = (name: string) =>
    required(feeRule(`${path}.${name}`), invalidField(`${path}.${name}`, `${path}.${name} must be an object`))
  return Schema.Struct({ charge: rule("charge"), payout: rule("payout") }).annotations({
    ...p,
    [FirstProblemOnlyId]: true,
    identifier: "FeePlan",
    description: "Rates in ppm (9900 = 0.99%), fixed parts in centavos"
  })
}

/** A fee plan as the admin API receives it (numbers the engine still checks). */
export const FeePlanInput = feePlan("body")

/** A fee plan as the admin API receives it. */
export interface FeePlanInput extends Schema.Schema.Type<typeof FeePlanInput> {}

/** POST /merchants. */
export const CreateMerchant = Schema.Struct({
  name: adminString("name", "The merchant's name (1 to 140 characters)"),
  city: Schema.optionalWith(Schema.String.annotations(invalidField("city", "city must be a string")), {
    nullable: true
  }).annotations({ description: "City printed in BR Codes" }),
  feePlan: Schema.optional(feePlan("feePlan"))
}).annotations({
  identifier: "CreateMerchantRequest",
  [FirstProblemOnlyId]: true,
  examples: [{ name: "Loja da Maria", city: "SAO PAULO" }]
})

/** A merchant to create. */
export interface CreateMerchant extends Schema.Schema.Type<typeof CreateMerchant> {}

/** POST /merchants/:merchantId/keys. */
export const CreateKey = Schema.Struct({ mode: requiredOneOf("mode", ["test", "live"]) }).annotations({
  identifier: "CreateKeyRequest",
  [FirstProblemOnlyId]: true,
  examples: [{ mode: "test" }]
})

/** The mode of a new key. */
export interface CreateKey extends Schema.Schema.Type<typeof CreateKey> {}

/** A `mode` path or query parameter. */
export const ModeParameter = Schema.Struct({ mode: requiredOneOf("mode", ["test", "live"]) }).annotations({
  [FirstProblemOnlyId]: true
})

/** PUT /merchants/:merchantId/webhooks/:mode (the engine checks the URL and the secret). */
export const SetWebhook = Schema.Struct({
  url: adminString("url", "Where events are POSTed (https in live mode)"),
  secret: adminString("secret", "Sent with every delivery; 8 to 256 printable ASCII characters"),
  secretHeader: Schema.optional(
    Schema.Boolean.annotations({
      ...invalidField("secretHeader", "secretHeader must be true or false"),
      description:
        "Send the secret as is in X-Pixgate-Signature (true, the default when left out: a set states the whole endpoint); false leaves the Standard Webhooks webhook-signature as the only proof"
    })
  )
}).annotations({
  identifier: "SetWebhookRequest",
  [FirstProblemOnlyId]: true,
  examples: [
    { url: "https://shop.example.com/pix/webhook", secret: "a-long-shared-secret" },
    { url: "https://shop.example.com/pix/webhook", secret: "a-long-shared-secret", secretHeader: false }
  ]
})

/** A webhook endpoint's URL, secret and whether deliveries carry the secret. */
export interface SetWebhook extends Schema.Schema.Type<typeof SetWebhook> {}

const overlapProblem = problem(
  "invalid_overlap",
  "overlapSeconds must be a number of seconds",
  "overlapSeconds"
)

/** POST /merchants/:merchantId/webhooks/:mode/signing-key (the engine checks the range). */
export const RotateSigningKey = Schema.Struct({
  overlapSeconds: Schema.optionalWith(Schema.Number.annotations(overlapProblem), {
    nullable: true
  }).annotations({
    description: "Seconds the old key keeps signing (0 to 604800, default 86400)"
  })
}).annotations({
  identifier: "RotateSigningKeyRequest",
  [FirstProblemOnlyId]: true,
  examples: [{ overlapSeconds: 3600 }]
})

/** How long the old signing key keeps signing. */
export interface RotateSigningKey extends Schema.Schema.Type<typeof RotateSigningKey> {}

/** An optional query parameter: empty counts as absent. */
const optionalQuery = <A, I extends string, R>(schema: Schema.Schema<A, I, R>) =>
  Schema.optional(
    Schema.transformOrFail(Schema.String, Schema.UndefinedOr(Schema.typeSchema(schema)), {
      strict: true,
      decode: (value, options) =>
        value === "" ? ParseResult.succeed(undefined) : ParseResult.decodeUnknown(schema)(value, options),
      encode: (value, options) =>
        value === undefined ? ParseResult.succeed("") : ParseResult.encodeUnknown(schema)(value, options)
    })
  )

/** A non-negative integer query parameter (at most 9 digits). */
const count = (field: string) => {
  const p = invalidField(field, `${field} must be a non-negative integer`)
  return Schema.transformOrFail(Schema.String.annotations(p), Schema.NonNegativeInt, {
    strict: true,
    decode: (value) =>
      /^\d{1,9}$/.test(value)
        ? ParseResult.succeed(Number(value))
        : fail(p[ProblemId].code, p[ProblemId].message, value),
    encode: (n) => ParseResult.succeed(String(n))
  }).annotations(p)
}

/** GET /merchants/:merchantId/webhook-log. */
export const DeliveriesQuery = Schema.Struct({
  mode: optionalQuery(oneOf("mode", ["test", "live"])),
  status: optionalQuery(oneOf("status", ["pending", "delivered", "failed"])),
  eventId: Schema.optional(Schema.String),
  limit: optionalQuery(count("limit")),
  offset: optionalQuery(count("offset"))
}).annotations({ [FirstProblemOnlyId]: true })

/** A webhook log query. */
export interface DeliveriesQuery extends Schema.Schema.Type<typeof DeliveriesQuery> {}

/** POST /payers/erase: the payer's CPF or CNPJ (checked by the erasure itself: `invalid_client_doc`). */
export const ErasePayer = Schema.Struct({
  document: adminString(
    "document",
    "The payer's (or payout recipient's) CPF or CNPJ, formatted or digits only"
  )
}).annotations({ identifier: "ErasePayerRequest", examples: [{ document: "529.982.247-25" }] })

/** A valid erasure request. */
export interface ErasePayer extends Schema.Schema.Type<typeof ErasePayer> {}

/** POST /merchants/:merchantId/sandbox/topup: every amount problem is `invalid_amount`. */
export const TopUp = Schema.Struct({
  amount: required(amount("invalid_amount"), problem("invalid_amount", "amount must be a positive number"))
}).annotations({
  identifier: "TopUpRequest",
  [FirstProblemOnlyId]: true,
  examples: [{ amount: Money.Cents(100000) }]
})

/** A sandbox top-up. */
export interface TopUp extends Schema.Schema.Type<typeof TopUp> {}

/** POST /sandbox/transactions/:transactionId/chargebacks: the whole deposit unless `amount`. */
export const OpenChargeback = Schema.Struct({
  amount: Schema.optional(amount("invalid_amount"))
}).annotations({
  identifier: "OpenChargebackRequest",
  [FirstProblemOnlyId]: true,
  examples: [{ amount: Money.Cents(5000) }]
})

/**
 * POST /sandbox/transactions/:transactionId/pay?paidAt=&amount= (query parameters, so a bodiless
 * POST keeps meaning "pay now"): the payer pays now, or on `paidAt`, what the charge asks for
 * then, unless `amount` says otherwise (to try a mismatched payment).
 */
export const SandboxPay = Schema.Struct({
  paidAt: optionalQuery(
    Schema.String.annotations({
      ...invalidField("paidAt", "paidAt must be a date YYYY-MM-DD or an ISO 8601 time"),
      description:
        "When the payer pays: an ISO 8601 time, or a date YYYY-MM-DD (noon in São Paulo). Default: now. A due-date charge asks for what its terms give on that day"
    })
  ),
  amount: optionalQuery(
    Schema.transformOrFail(
      Schema.String.annotations(invalidField("amount", "amount must be a positive number of reais")),
      Schema.typeSchema(Cents),
      {
        strict: true,
        decode: (text) =>
          Either.match(Money.fromReais(Money.fromJsonText(text), Money.Cents(Number.MAX_SAFE_INTEGER)), {
            onLeft: () => fail("invalid_amount", "amount must be a positive number of reais", text),
            onRight: ParseResult.succeed
          }),
        encode: (cents) => ParseResult.succeed(Money.formatReais(cents))
      }
    ).annotations({
      ...problem("invalid_amount", "amount must be a positive number of reais"),
      description:
        "What the payer sends, in reais (e.g. 513.33); default: what the charge asks for on that day"
    })
  )
  // No `identifier`: the OpenAPI document lists a query's fields as parameters only when its
  // schema is inline, not a `$ref`.
}).annotations({
  [FirstProblemOnlyId]: true
})

/** A sandbox payment's day and amount. */
export interface SandboxPay extends Schema.Schema.Type<typeof SandboxPay> {}

/** When a sandbox payment happens (`SandboxPay.paidAt`), or undefined when not a date or a time. */
export const paidAtOf = (text: string): number | undefined => {
  const day = parseDay(text)
  // Noon in São Paulo (UTC-3).
  if (day !== undefined) return day + 15 * 3_600_000
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return undefined
  const ms = Date.parse(text)
  return Number.isNaN(ms) ? undefined : ms
}

/** A sandbox chargeback. */
export interface OpenChargeback extends Schema.Schema.Type<typeof OpenChargeback> {}

/** POST /sandbox/chargebacks/:chargebackId/resolve. */
export const ResolveChargeback = Schema.Struct({
  outcome: requiredOneOf("outcome", ["accepted", "rejected"])
}).annotations({
  identifier: "ResolveChargebackRequest",
  [FirstProblemOnlyId]: true,
  examples: [{ outcome: "accepted" }]
})

/** A dispute's outcome. */
export interface ResolveChargeback extends Schema.Schema.Type<typeof ResolveChargeback> {}

/** A panel user's e-mail address, described for its request (the engine checks the address itself). */
const panelEmail = (description: string) =>
  required(
    Schema.String.annotations({
      ...problem("invalid_email", "email must be a valid e-mail address"),
      description,
      jsonSchema: { type: "string", format: "email" }
    }),
    problem("invalid_email", "email must be a valid e-mail address")
  )

/** POST /merchants/:merchantId/panel-invites (the engine checks the address itself). */
export const InvitePanelUser = Schema.Struct({
  email: panelEmail("The person's e-mail address"),
  role: Schema.optional(
    oneOf("role", ["owner", "finance", "developer", "viewer"]).annotations({
      description:
        "What the user may do: owner (everything), finance (payouts, refunds), developer (API keys, webhooks), viewer (read only). Default: owner for the merchant's first user, viewer after; given for a user already invited, it replaces the role"
    })
  )
}).annotations({
  identifier: "InvitePanelUserRequest",
  [FirstProblemOnlyId]: true,
  examples: [{ email: "maria@example.com", role: "finance" }]
})

/** A panel invitation. */
export interface InvitePanelUser extends Schema.Schema.Type<typeof InvitePanelUser> {}

/** POST /merchants/:merchantId/panel-reset-links. */
export const PanelResetLink = Schema.Struct({
  email: panelEmail("The panel user's e-mail address"),
  resetSecondFactor: Schema.optional(
    Schema.Boolean.annotations({
      ...invalidField("resetSecondFactor", "resetSecondFactor must be true or false"),
      description: "Also remove the user's second factor and recovery codes (a lost phone)"
    })
  )
}).annotations({
  identifier: "PanelResetLinkRequest",
  [FirstProblemOnlyId]: true,
  examples: [{ email: "maria@example.com" }]
})

/** A password reset link request. */
export interface PanelResetLink extends Schema.Schema.Type<typeof PanelResetLink> {}

/** GET /merchants/:merchantId/audit-log. */
export const AuditQuery = Schema.Struct({
  before: Schema.optional(Schema.String.annotations({ description: "The `next` of the previous page" })),
  limit: optionalQuery(count("limit"))
}).annotations({ [FirstProblemOnlyId]: true })

/** An audit log query. */
export interface AuditQuery extends Schema.Schema.Type<typeof AuditQuery> {}
