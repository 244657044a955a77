/**
 * The request bodies and queries of the public API (`/api/v1`, a merchant's API key): charges,
 * due-date charges (the API Pix cobv), payouts and the transaction list. Every problem is
 * reported, the first in field order giving the answer's code.
 */
import { Array as Arr, Either, ParseResult, Schema } from "effect"
import { transactionStatuses, transactionTypes } from "../../domain/Domain.js"
import * as DueDate from "../../domain/DueDate.js"
import * as Money from "../../domain/Money.js"
import * as PayoutOrder from "../../domain/PayoutOrder.js"
import type { ValidationCode } from "../Errors.js"
import { fail, ProblemId, problem, problemAst, required } from "./Problems.js"
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

/**
 * The due-date charge of the OpenAPI examples (its `DueAmount` examples are what it asks for on
 * a few days; a test checks them against the engine).
 */
export const dueChargeExample = {
  amount: Money.Cents(50000),
  clientName: "Maria Silva",
  clientDocument: "52998224725",
  description: "Invoice 2027-01",
  dueDate: "2027-03-10",
  daysAfterDue: 30,
  fine: { type: "percent" as const, value: 200 },
  interest: { type: "percentPerMonth" as const, value: 100 },
  discount: { type: "fixedUntil" as const, dates: [{ until: "2027-03-01", value: 1000 }] }
}

// ---------------------------------------------------------------------------------------------
// Due-date charges (the API Pix cobv)
// ---------------------------------------------------------------------------------------------

const clientDocDescription =
  "The payer's (charges) or recipient's (payouts) CPF or CNPJ: check digits verified, formatted or digits only, alphanumeric CNPJ accepted. The request calls it `clientDoc`; answers and the transaction list show it as `clientDocument`, digits only (a request field named `clientDocument` is ignored)"

/** The largest number of hundredths a term's value may have (R$ 100,000,000.00 or 100,000,000%). */
const largestTermValue = Money.Cents(10_000_000_000)

/**
 * A term's `value`: a positive JSON number with at most 2 decimal places (reais for amounts,
 * percent for percentages), read as an integer count of hundredths (2.5 is 250); the engine
 * checks it against the term's type and the charge's amount.
 */
const termValue = (path: string, code: ValidationCode) => {
  const p = problem(code, `${path} must be a positive number with at most 2 decimal places`)
  const number = Schema.Union(Schema.Number, Schema.instanceOf(Money.JsonDecimal)).annotations({
    ...p,
    jsonSchema: { type: "number" }
  })
  return Schema.transformOrFail(number, Schema.Number, {
    strict: true,
    decode: (value) =>
      Either.match(Money.fromReais(value, largestTermValue), {
        onLeft: () => fail(p[ProblemId].code, p[ProblemId].message, value),
        onRight: ParseResult.succeed
      }),
    encode: (hundredths) => ParseResult.succeed(hundredths / 100)
  }).annotations({ ...p, jsonSchema: { type: "number", exclusiveMinimum: 0, examples: [2.5] } })
}

/** A calendar date `YYYY-MM-DD` that exists. */
const calendarDate = (path: string, code: ValidationCode, description: string) => {
  const p = problem(code, `${path} must be a date YYYY-MM-DD`)
  return Schema.String.annotations(p).pipe(
    Schema.filter((s) => parseDay(s) !== undefined, p),
    Schema.annotations({ description, jsonSchema: { type: "string", format: "date" } })
  )
}

const requiredIn = <S extends Schema.Schema.Any>(
  schema: S,
  code: ValidationCode,
  path: string,
  what: string
) => required(schema, problem(code, `${path} is required: ${what}`))

/** A fine or an abatement: a fixed amount in reais or a percentage (of the original amount for an abatement, of what the abatement leaves for a fine). */
const flatRule = (field: string, code: ValidationCode, description: string) => {
  const types = ["fixed", "percent"] as const
  const typeProblem = problem(code, `${field}.type must be one of: ${types.join(", ")}`)
  return Schema.Struct({
    type: required(Schema.Literal(...types).annotations(typeProblem), typeProblem),
    value: requiredIn(termValue(`${field}.value`, code), code, `${field}.value`, "reais or percent")
  }).annotations({
    ...problem(code, `${field} must be an object with type and value`),
    description
  })
}

const interestTypeProblem = problem(
  "invalid_interest",
  `interest.type must be one of: ${DueDate.interestTypes.join(", ")}`
)

const discountTypes = [...DueDate.dateDiscountTypes, ...DueDate.dailyDiscountTypes] as const
const discountTypeProblem = problem(
  "invalid_discount",
  `discount.type must be one of: ${discountTypes.join(", ")}`
)
const discountDatesProblem = problem(
  "invalid_discount",
  "discount.dates must be a list of 1 to 3 objects with until (YYYY-MM-DD) and value"
)

/** The due-date fields of a charge request (all optional; any of them but `dueDate` needs `dueDate`). */
const dueDateFields = {
  dueDate: optionalField(
    calendarDate(
      "dueDate",
      "invalid_due_date",
      "The due date (São Paulo calendar): makes the charge a due-date charge (the API Pix cobv), payable with its discount until this day and with its fine and interest after it. A due date on a weekend or national bank holiday moves to the next business day"
    )
  ).annotations({
    description:
      "Due date, YYYY-MM-DD (São Paulo calendar), today or later: makes this a due-date charge (the API Pix cobv). Not with `expiresIn`; needs `clientName` and `clientDoc`"
  }),
  daysAfterDue: optionalField(
    Schema.Number.annotations(
      problem("invalid_days_after_due", "daysAfterDue must be an integer between 0 and 365")
    ).pipe(
      Schema.int(problem("invalid_days_after_due", "daysAfterDue must be an integer between 0 and 365")),
      Schema.between(
        0,
        365,
        problem("invalid_days_after_due", "daysAfterDue must be an integer between 0 and 365")
      )
    )
  ).annotations({
    description:
      "Calendar days the charge stays payable after its due date (0 to 365; default 30, the standard's `validadeAposVencimento`); a last day on a weekend or holiday moves to the next business day"
  }),
  fine: optionalField(
    flatRule(
      "fine",
      "invalid_fine",
      "Charged once when paid after the due date: `fixed` reais, or `percent` of the original amount less the abatement (at most 100)"
    )
  ).annotations({
    description:
      "Fine for paying after the due date (the standard's `multa`): `{ type: fixed | percent, value }`"
  }),
  interest: optionalField(
    Schema.Struct({
      type: required(
        Schema.Literal(...DueDate.interestTypes).annotations(interestTypeProblem),
        interestTypeProblem
      ),
      value: requiredIn(
        termValue("interest.value", "invalid_interest"),
        "invalid_interest",
        "interest.value",
        "reais or percent"
      )
    }).annotations({
      ...problem("invalid_interest", "interest must be an object with type and value"),
      description:
        "Simple interest after the due date (the standard's `juros` modalities 1 to 8): `amountPerDay` reais or `percentPerDay` of the original amount less the abatement per calendar day late; `percentPerMonth` (a month is 30 days) or `percentPerYear` (365 days); the business-day forms `amountPerBusinessDay`, `percentPerBusinessDay`, `percentPerMonthBusinessDays` (21 business days) and `percentPerYearBusinessDays` (252)"
    })
  ).annotations({
    description: "Interest for paying after the due date (the standard's `juros`): `{ type, value }`"
  }),
  discount: optionalField(
    Schema.Struct({
      type: required(Schema.Literal(...discountTypes).annotations(discountTypeProblem), discountTypeProblem),
      value: Schema.optional(termValue("discount.value", "invalid_discount")).annotations({
        description:
          "For the per-day types: reais or percent of the original amount less the abatement per day before the due date"
      }),
      dates: Schema.optional(
        Schema.Array(
          Schema.Struct({
            until: requiredIn(
              calendarDate("discount.dates.until", "invalid_discount", "The last day of this discount"),
              "invalid_discount",
              "discount.dates.until",
              "YYYY-MM-DD"
            ),
            value: requiredIn(
              termValue("discount.dates.value", "invalid_discount"),
              "invalid_discount",
              "discount.dates.value",
              "reais or percent"
            )
          }).annotations(discountDatesProblem)
        ).annotations(discountDatesProblem)
      ).annotations({
        description:
          "For `fixedUntil` and `percentUntil`: 1 to 3 deadlines on or before the due date; a payment gets the discount of the first deadline not yet passed"
      })
    }).annotations({
      ...problem("invalid_discount", "discount must be an object with type and value or dates"),
      description:
        "Discount for paying early (the standard's `desconto` modalities 1 to 6): `fixedUntil` reais or `percentUntil` percent up to dates; `amountPerDayEarly` or `percentPerDayEarly` per calendar day before the due date, `amountPerBusinessDayEarly` or `percentPerBusinessDayEarly` per business day"
    })
  ).annotations({
    description: "Discount for paying early (the standard's `desconto`)"
  }),
  abatement: optionalField(
    flatRule(
      "abatement",
      "invalid_abatement",
      "Taken off on any day: `fixed` reais, or `percent` of the original amount; less than the amount"
    )
  ).annotations({
    description: "Abatement (the standard's `abatimento`): `{ type: fixed | percent, value }`, on any day"
  })
}

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
