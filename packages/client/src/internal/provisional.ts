/** PROVISIONAL: stand-ins for core's view and event schemas until branch `api` is merged. */
import { HttpApi, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"

const Reais = Schema.Number
const DateTime = Schema.String
const TransactionType = Schema.Literal("deposit", "withdrawal", "payment")
const TransactionStatus = Schema.Literal("pending", "completed", "failed", "refunded")

export const Fees = Schema.Struct({
  feeAmount: Reais,
  gatewayFeeAmount: Reais,
  adminMargin: Reais,
  netAmount: Reais
})
export const Health = Schema.Struct({ status: Schema.Literal("ok"), timestamp: DateTime })
export const TransactionView = Schema.Struct({
  id: Schema.String,
  type: TransactionType,
  status: TransactionStatus,
  amount: Reais,
  clientName: Schema.NullOr(Schema.String),
  clientDocument: Schema.NullOr(Schema.String),
  pixKey: Schema.NullOr(Schema.String),
  txid: Schema.NullOr(Schema.String),
  endToEndId: Schema.NullOr(Schema.String),
  feeAmount: Reais,
  gatewayFeeAmount: Reais,
  netAmount: Reais,
  createdAt: DateTime,
  updatedAt: DateTime
})
export const Charge = Schema.Struct({
  transactionId: Schema.String,
  txid: Schema.String,
  qrCode: Schema.String,
  qrCodeBase64: Schema.String,
  expiresAt: DateTime,
  amount: Reais,
  fees: Fees
})
export const Payout = Schema.Struct({
  transactionId: Schema.String,
  endToEndId: Schema.String,
  status: Schema.Literal("pending"),
  amount: Reais,
  fees: Fees
})
export const TransactionPage = Schema.Struct({
  data: Schema.Array(TransactionView),
  total: Schema.Number,
  page: Schema.Number,
  limit: Schema.Number,
  pages: Schema.Number
})
const summary = {
  transactionId: Schema.String,
  type: TransactionType,
  status: TransactionStatus,
  amount: Reais,
  txid: Schema.optional(Schema.String),
  endToEndId: Schema.optional(Schema.String),
  pixKey: Schema.optional(Schema.String)
}
const body = <N extends string, F extends Schema.Struct.Fields>(event: N, extra: F) =>
  Schema.Struct({
    id: Schema.String,
    event: Schema.Literal(event),
    data: Schema.Struct({ ...summary, ...extra }),
    timestamp: DateTime
  })
export const WebhookEvent = Schema.Union(
  body("transaction.created", {}),
  body("transaction.completed", { paidAt: DateTime }),
  body("transaction.failed", { reason: Schema.String }),
  body("withdrawal.created", {}),
  body("withdrawal.completed", {})
)
export const ErrorBody = Schema.Struct({
  error: Schema.String,
  code: Schema.String,
  details: Schema.optional(Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String })))
})

const IdempotencyHeaders = Schema.Struct({ "idempotency-key": Schema.optional(Schema.String) })
export const CreateCharge = Schema.Struct({
  amount: Schema.Number,
  clientName: Schema.optional(Schema.String),
  clientDoc: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  expiresIn: Schema.optional(Schema.Number)
})
export const CreatePayout = Schema.Struct({
  amount: Schema.Number,
  pixKey: Schema.String,
  clientName: Schema.optional(Schema.String),
  clientDoc: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String)
})
export const ListTransactions = Schema.Struct({
  page: Schema.optional(Schema.NumberFromString),
  limit: Schema.optional(Schema.NumberFromString),
  type: Schema.optional(TransactionType),
  status: Schema.optional(TransactionStatus),
  startDate: Schema.optional(Schema.String),
  endDate: Schema.optional(Schema.String)
})

export const PixgateApi = HttpApi.make("pixgate")
  .add(HttpApiGroup.make("health").add(HttpApiEndpoint.get("check", "/api/health").addSuccess(Health)))
  .add(
    HttpApiGroup.make("charges").add(
      HttpApiEndpoint.post("create", "/api/v1/charges")
        .setPayload(CreateCharge)
        .setHeaders(IdempotencyHeaders)
        .addSuccess(Charge, { status: 201 })
    )
  )
  .add(
    HttpApiGroup.make("payouts").add(
      HttpApiEndpoint.post("create", "/api/v1/payouts")
        .setPayload(CreatePayout)
        .setHeaders(IdempotencyHeaders)
        .addSuccess(Payout, { status: 201 })
    )
  )
  .add(
    HttpApiGroup.make("transactions").add(
      HttpApiEndpoint.get("list", "/api/v1/transactions")
        .setUrlParams(ListTransactions)
        .addSuccess(TransactionPage)
    )
  )
