/**
 * JSON Schemas of the public API's bodies, exactly as the engine produces and accepts them
 * (the spec's tables plus DECISIONS.md): the OpenAPI document's `components.schemas`.
 */
import type { JsonSchema } from "./Route.js"

/** A reference to a component schema. */
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` })

const string: JsonSchema = { type: "string" }
const nullableString: JsonSchema = { type: ["string", "null"] }
const number: JsonSchema = { type: "number" }
const integer: JsonSchema = { type: "integer", minimum: 0 }
const dateTime: JsonSchema = { type: "string", format: "date-time" }

const object = (
  properties: Record<string, JsonSchema>,
  optional: ReadonlyArray<string> = []
): JsonSchema => ({
  type: "object",
  properties,
  required: Object.keys(properties).filter((k) => !optional.includes(k))
})

const amount: JsonSchema = {
  type: "number",
  minimum: 0.01,
  description: "Reais, at most 2 decimal places, at most the engine's maximum (default 1000000.00)"
}
const text140: JsonSchema = { type: ["string", "null"], maxLength: 140 }
const clientDoc: JsonSchema = {
  type: ["string", "null"],
  description:
    "A valid CPF or CNPJ (check digits verified; formatted or digits only; alphanumeric CNPJ accepted)"
}

/** The public API's component schemas. */
export const components: Readonly<Record<string, JsonSchema>> = {
  Error: {
    ...object(
      {
        error: { type: "string", description: "Human-readable message (the spec's text where it has one)" },
        code: { type: "string", description: "Stable snake_case code" },
        details: {
          type: "array",
          description: "Fields at fault (validation failures only)",
          items: object({ path: string, message: string })
        }
      },
      ["details"]
    ),
    additionalProperties: false
  },
  Health: object({ status: { type: "string", const: "ok" }, timestamp: dateTime }),
  Fees: object({ feeAmount: number, gatewayFeeAmount: number, adminMargin: number, netAmount: number }),
  ChargeRequest: object(
    {
      amount,
      clientName: text140,
      clientDoc,
      description: text140,
      expiresIn: {
        type: "integer",
        minimum: 60,
        maximum: 604800,
        description: "Seconds until expiry (default 3600)"
      }
    },
    ["clientName", "clientDoc", "description", "expiresIn"]
  ),
  PayoutRequest: object(
    {
      amount,
      pixKey: {
        type: "string",
        description: "E-mail, CPF, CNPJ, phone in international format (+55...), or random key (UUID v4)"
      },
      clientName: text140,
      clientDoc,
      description: text140
    },
    ["clientName", "clientDoc", "description"]
  ),
  Charge: object({
    transactionId: string,
    txid: { type: "string", pattern: "^[a-zA-Z0-9]{26,35}$" },
    qrCode: { type: "string", description: "EMV BR Code (copy and paste)" },
    qrCodeBase64: { type: "string", contentEncoding: "base64", contentMediaType: "image/png" },
    expiresAt: dateTime,
    amount: number,
    fees: ref("Fees")
  }),
  Payout: object({
    transactionId: string,
    endToEndId: { type: "string", pattern: "^E[0-9]{8}[0-9]{12}[a-zA-Z0-9]{11}$" },
    status: { type: "string", const: "pending" },
    amount: number,
    fees: ref("Fees")
  }),
  Transaction: object({
    id: string,
    type: { type: "string", enum: ["deposit", "withdrawal", "payment"] },
    status: { type: "string", enum: ["pending", "completed", "failed", "refunded"] },
    amount: number,
    clientName: nullableString,
    clientDocument: nullableString,
    pixKey: nullableString,
    txid: nullableString,
    endToEndId: nullableString,
    feeAmount: number,
    gatewayFeeAmount: number,
    netAmount: number,
    createdAt: dateTime,
    updatedAt: dateTime
  }),
  TransactionPage: object({
    data: { type: "array", items: ref("Transaction") },
    total: integer,
    page: { type: "integer", minimum: 1 },
    limit: { type: "integer", minimum: 1, maximum: 100 },
    pages: integer
  })
}
