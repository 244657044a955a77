/**
 * The request bodies and queries of the public API (`/api/v1`, a merchant's API key): charges
 * (with the due-date fields of `DueDateCharges.ts`, the API Pix cobv), payouts and the
 * transaction list. Every problem is reported, the first in field order giving the answer's code.
 */
import { Array as Arr, ParseResult, Schema } from "effect"
import { transactionStatuses, transactionTypes } from "../../domain/Domain.js"
import * as Money from "../../domain/Money.js"
import * as PayoutOrder from "../../domain/PayoutOrder.js"
import { dueChargeExample, dueDateFields } from "./DueDateCharges.js"
import { problem, problemAst, required } from "./Problems.js"
import {
  amount,
  ClientDocument,
  ExpiresIn,
  expiresInRange,
  optionalField,
  PixKeyField,
  PositiveCents,
  parseDay,
  pixKeyRequired,
  text
} from "./Shared.js"

const clientDocDescription =
  "The payer's (charges) or recipient's (payouts) CPF or CNPJ: check digits verified, formatted or digits only, alphanumeric CNPJ accepted. The request calls it `clientDoc`; answers and the transaction list show it as `clientDocument`, digits only (a request field named `clientDocument` is ignored)"

/** The body of POST /api/v1/charges, read into a charge request. */
export const CreateCharge = Schema.Struct({
  amount: required(amount(), problem("invalid_amount", "amount must be a positive number")),
  clientName: text("clientName", "invalid_client_name", "The payer's name"),
  clientDocument: optionalField(ClientDocument)
    .annotations({ description: clientDocDescription })
    .pipe(Schema.fromKey("clientDoc")),
  description: text("description", "invalid_description", "Shown to the payer"),
  expiresIn: optionalField(ExpiresIn).annotations({
    description: `Seconds until the charge expires (${expiresInRange.min} to ${expiresInRange.max}; default 3600). Not with \`dueDate\``
  }),
  ...dueDateFields
}).annotations({
  identifier: "ChargeRequest",
  title: "Charge request",
  description:
    "A PIX charge: the amount and, optionally, who pays it and when it expires. With `dueDate` it is a due-date charge (the API Pix cobv): `amount` is the original amount and a PIX must bring what the fine, interest, discount and abatement give for the day it is paid (see `DueAmount`).",
  examples: [
    {
      amount: Money.Cents(15050),
      clientName: "Maria Silva",
      clientDocument: "52998224725",
      description: "Order 1234",
      expiresIn: 3600
    },
    dueChargeExample
  ]
})

/** A valid charge request. */
export interface CreateCharge extends Schema.Schema.Type<typeof CreateCharge> {}

/** A payout request's fields, read into a `PayoutOrder` (see `CreatePayout`). */
const payoutOrder = Schema.Struct({
  amount: required(
    amount("amount_above_maximum", PositiveCents),
    problem("invalid_amount", "amount must be a positive number")
  ),
  pixKey: required(PixKeyField, pixKeyRequired),
  clientName: text("clientName", "invalid_client_name", "The recipient's name"),
  clientDocument: optionalField(ClientDocument)
    .annotations({ description: clientDocDescription })
    .pipe(Schema.fromKey("clientDoc")),
  description: text("description", "invalid_description", "A note kept with the payout")
}).pipe(Schema.brand(PayoutOrder.brand))

/**
 * The body of POST /api/v1/payouts, decoded once into the domain's `PayoutOrder` (the brand is
 * this schema's: the payouts service takes the order without checking or parsing it again).
 */
export const CreatePayout = payoutOrder.annotations({
  identifier: "PayoutRequest",
  title: "Payout request",
  description: "A PIX payout from the available balance to a PIX key.",
  examples: [
    payoutOrder.make({
      amount: Money.Cents(10000),
      pixKey: { type: "email", value: "maria@example.com" },
      clientName: "Maria Silva"
    })
  ]
})

/** A valid payout request: a `PayoutOrder`. */
export interface CreatePayout extends Schema.Schema.Type<typeof CreatePayout> {}

/** Default and largest page size. */
export const pageSize = { default: 20, max: 100 } as const

const dayMs = 86_400_000

const queryValue = Schema.Union(Schema.String, Schema.Number)

/** The query of GET /api/v1/transactions as it arrives (strings; numbers from an embedding caller). */
export const ListTransactionsQuery = Schema.Struct({
  page: Schema.optional(queryValue).annotations({ description: "Page number, from 1 (default 1)" }),
  limit: Schema.optional(queryValue).annotations({
    description: `Page size (default ${pageSize.default}); above ${pageSize.max} is clamped to ${pageSize.max}`
  }),
  type: Schema.optional(Schema.String).annotations({ description: `One of: ${transactionTypes.join(", ")}` }),
  status: Schema.optional(Schema.String).annotations({
    description: `One of: ${transactionStatuses.join(", ")}`
  }),
  startDate: Schema.optional(Schema.String).annotations({ description: "First day (UTC), YYYY-MM-DD" }),
  endDate: Schema.optional(Schema.String).annotations({
    description: "Last day (UTC, inclusive), YYYY-MM-DD"
  })
})

/** A valid list request: page, limit (clamped to 100), filters and [from, to) in epoch ms. */
export const ListTransactions = Schema.Struct({
  page: Schema.Int,
  limit: Schema.Int,
  type: Schema.optional(Schema.Literal(...transactionTypes)),
  status: Schema.optional(Schema.Literal(...transactionStatuses)),
  from: Schema.optional(Schema.Number),
  to: Schema.optional(Schema.Number)
})

/** A valid list request. */
export interface ListTransactions extends Schema.Schema.Type<typeof ListTransactions> {}

const listQuery = (query: typeof ListTransactionsQuery.Type) => {
  const problems: Array<ParseResult.ParseIssue> = []
  const add = (field: string, message: string, actual: unknown) =>
    problems.push(
      new ParseResult.Pointer(
        field,
        query,
        new ParseResult.Type(problemAst({ code: "invalid_query", message }), actual, message)
      )
    )
  const positive = (field: "page" | "limit", fallback: number) => {
    const value = query[field]
    if (value === undefined || value === "") return fallback
    const digits = String(value).trim()
    const n = /^\d+$/.test(digits) ? Number(digits) : Number.NaN
    if (Number.isSafeInteger(n) && n >= 1) return n
    add(field, `${field} must be a positive integer`, value)
    return fallback
  }
  const oneOf = <A extends string>(field: "type" | "status", allowed: ReadonlyArray<A>): A | undefined => {
    const value = query[field]
    if (value === undefined || value === "") return undefined
    const found = allowed.find((a) => a === value)
    if (found === undefined) add(field, `${field} must be one of: ${allowed.join(", ")}`, value)
    return found
  }
  const day = (field: "startDate" | "endDate") => {
    const value = query[field]
    if (value === undefined || value === "") return undefined
    const ms = parseDay(value)
    if (ms === undefined) add(field, `${field} must be a valid date in YYYY-MM-DD format`, value)
    return ms
  }
  const page = positive("page", 1)
  const limit = Math.min(positive("limit", pageSize.default), pageSize.max)
  const type = oneOf("type", transactionTypes)
  const status = oneOf("status", transactionStatuses)
  const from = day("startDate")
  const endDay = day("endDate")
  // A check across two fields, reported with the others (a refinement of the decoded struct
  // would only run when every field is valid).
  if (from !== undefined && endDay !== undefined && from > endDay)
    add("startDate", "startDate must not be after endDate", query.startDate)
  if (Arr.isNonEmptyArray(problems))
    return ParseResult.fail(new ParseResult.Composite(ListTransactions.ast, query, problems))
  return ParseResult.succeed({
    page,
    limit,
    type,
    status,
    from,
    ...(endDay === undefined ? {} : { to: endDay + dayMs })
  })
}

/**
 * The query of GET /api/v1/transactions read into a list request (docs/decisions.md "Listing
 * transactions"): one decoder for all fields because `startDate <= endDate` is reported together
 * with the other fields' problems. An empty parameter counts as absent.
 */
export const ListTransactionsRequest = Schema.transformOrFail(ListTransactionsQuery, ListTransactions, {
  strict: true,
  decode: listQuery,
  encode: (input) =>
    ParseResult.succeed({
      page: String(input.page),
      limit: String(input.limit),
      type: input.type,
      status: input.status,
      ...(input.from === undefined ? {} : { startDate: new Date(input.from).toISOString().slice(0, 10) }),
      ...(input.to === undefined ? {} : { endDate: new Date(input.to - dayMs).toISOString().slice(0, 10) })
    })
}).annotations({ identifier: "ListTransactionsQuery", title: "Transaction list query" })
