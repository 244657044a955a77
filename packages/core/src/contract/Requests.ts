/**
 * Every request body and query of the public API and the admin API as an `effect/Schema`: the
 * Encoded side is the JSON (or query string) the client sends, the Type side the typed input the
 * engine's services take. Each check carries the code and message of docs/decisions.md as a
 * `Problem` annotation; `decode` turns a failure into the API's validation error.
 *
 * Unknown fields are accepted and ignored (a documented choice, docs/decisions.md "Request
 * schemas and typed errors"): clients written against an older or newer version keep working.
 */
import { Array as Arr, Context, Effect, Either, Option, ParseResult, Schema, SchemaAST } from "effect"
import * as Document from "../domain/Document.js"
import { transactionStatuses, transactionTypes } from "../domain/Domain.js"
import * as DueDate from "../domain/DueDate.js"
import * as Money from "../domain/Money.js"
import * as PixKey from "../domain/PixKey.js"
import { type ErrorDetail, InvalidJson, type ValidationCode, ValidationError, validation } from "./Errors.js"

// ---------------------------------------------------------------------------------------------
// Problems: the code and message of one failed check, as a schema annotation
// ---------------------------------------------------------------------------------------------

/** The annotation carrying a check's code and message (and its detail path when not the field's). */
export const ProblemId: unique symbol = Symbol.for("@pixgate/core/Requests/Problem")

/**
 * A failed check: its stable code, message and, when it differs from the field, detail path;
 * `hint`, given the refused value, may add a second detail saying more precisely what is wrong
 * (the code and message stay the contract's).
 */
export interface Problem {
  readonly code: ValidationCode
  readonly message: string
  readonly path?: string
  readonly hint?: (actual: unknown) => string | undefined
}

/** Annotations for a check: our problem, and the same message for Effect's own formatters. */
export const problem = (code: ValidationCode, message: string, path?: string) => ({
  [ProblemId]: path === undefined ? { code, message } : { code, message, path },
  message: () => message
})

/** The annotation telling `decode` to stop at the first problem (the admin API's behaviour). */
export const FirstProblemOnlyId: unique symbol = Symbol.for("@pixgate/core/Requests/FirstProblemOnly")

const isProblem = (u: unknown): u is Problem =>
  typeof u === "object" && u !== null && "code" in u && "message" in u

const problemOf = (ast: SchemaAST.Annotated | undefined): Problem | undefined => {
  const value = ast?.annotations[ProblemId]
  return isProblem(value) ? value : undefined
}

// An AST node that only names a problem, for failures raised inside a transformation.
const problemAst = (p: Problem) => new SchemaAST.Literal("", { [ProblemId]: p })

const fail = (code: ValidationCode, message: string, actual: unknown) =>
  ParseResult.fail(new ParseResult.Type(problemAst({ code, message }), actual, message))

/** The largest amount of one charge or payout; `Engine.layer` provides the configured one. */
export class MaxAmount extends Context.Reference<MaxAmount>()("@pixgate/core/Requests/MaxAmount", {
  defaultValue: (): Money.Cents => Money.defaultMaximum
}) {}

// ---------------------------------------------------------------------------------------------
// Fields
// ---------------------------------------------------------------------------------------------

/** An amount of centavos (the Type side of every amount). */
export const Cents = Schema.Number.pipe(Schema.fromBrand(Money.Cents))

/**
 * An `amount` in reais (a JSON number) read into centavos exactly as `Money.fromReais` does: from
 * the decimal the JSON text denotes (a `Money.JsonDecimal` when a double cannot hold it, else the
 * number's shortest decimal form), no float rounding; at least 0.01, at most 2 decimals, at
 * most `MaxAmount`. The maximum is configuration, so it is read from the context (`MaxAmount`)
 * while decoding: the schema stays static and the errors keep their order.
 * `aboveMaximumCode` is the code of an amount above the maximum (admin top-ups say
 * `invalid_amount`).
 */
export const amount = (aboveMaximumCode: ValidationCode = "amount_above_maximum") => {
  const notPositive = problem("invalid_amount", "amount must be a positive number")
  const notANumber: Problem = {
    ...notPositive[ProblemId],
    hint: (actual) => (typeof actual === "string" ? "amount must be a JSON number, not a string" : undefined)
  }
  const number = Schema.Union(
    Schema.Number.annotations({ [ProblemId]: notANumber }),
    Schema.instanceOf(Money.JsonDecimal).annotations({ [ProblemId]: notANumber })
  ).annotations({ [ProblemId]: notANumber, jsonSchema: { type: "number" } })
  return Schema.transformOrFail(number, Schema.typeSchema(Cents), {
    strict: true,
    decode: (value) =>
      Effect.flatMap(MaxAmount, (maximum) =>
        Either.match(Money.fromReais(value, maximum), {
          onLeft: (e) =>
            fail(e._tag === "AboveMaximum" ? aboveMaximumCode : "invalid_amount", e.message, value),
          onRight: ParseResult.succeed
        })
      ),
    encode: (cents) => ParseResult.succeed(Money.toReais(cents))
  }).annotations({
    ...notPositive,
    description:
      "Reais, at most 2 decimal places, at least 0.01, at most the engine's maximum (default 1000000.00)",
    examples: [Money.Cents(15050)],
    jsonSchema: {
      type: "number",
      minimum: 0.01,
      description:
        "Reais, at most 2 decimal places, at least 0.01, at most the engine's maximum (default 1000000.00)",
      examples: [150.5]
    }
  })
}

/**
 * The amount checks for a typed input built without decoding (an embedding caller): at least one
 * centavo, at most `maximum`, with the decoder's codes and messages.
 */
export const checkAmount = (
  cents: Money.Cents,
  maximum: Money.Cents
): Effect.Effect<void, ValidationError> =>
  cents < 1
    ? Effect.fail(validation("invalid_amount", "amount", "amount must be a positive number"))
    : cents > maximum
      ? Effect.fail(
          validation(
            "amount_above_maximum",
            "amount",
            `amount exceeds the maximum of ${Money.formatReais(maximum)}`
          )
        )
      : Effect.void

/** Longest free text (names, descriptions). */
export const maxText = 140

/**
 * An optional field whose JSON may also be null: absent, null, undefined (from an embedding
 * caller) or what `keep` refuses (e.g. a blank text) decode to an absent key, so the typed input
 * has no nulls.
 */
export const optionalField = <A, I, R>(
  schema: Schema.Schema<A, I, R>,
  keep: (value: A) => Option.Option<A> = Option.some
) =>
  Schema.optionalToOptional(Schema.NullishOr(schema), Schema.typeSchema(schema), {
    decode: (value) =>
      Option.flatMap(value, (v) => (v === null || v === undefined ? Option.none() : keep(v))),
    encode: (value) => value
  })

/**
 * Optional free text: a string of at most 140 characters without NUL, trimmed; absent, null or
 * blank is absent.
 */
export const text = (field: string, code: ValidationCode, description: string) => {
  const wrong = problem(code, `${field} must be a string of at most ${maxText} characters`)
  const checked = Schema.String.annotations(wrong).pipe(
    Schema.maxLength(maxText, wrong),
    Schema.filter(
      (s) => !s.includes("\u0000"),
      problem("invalid_text", `${field} must not contain NUL characters`)
    )
  )
  return optionalField(checked.annotations({ title: field, description }), (s) => {
    const trimmed = s.trim()
    return trimmed === "" ? Option.none() : Option.some(trimmed)
  }).annotations({ title: field, description: `${description}; at most ${maxText} characters` })
}

const clientDocProblem = problem("invalid_client_doc", "clientDoc must be a valid CPF or CNPJ")

const clientDocDescription =
  "The payer's (charges) or recipient's (payouts) CPF or CNPJ: check digits verified, formatted or digits only, alphanumeric CNPJ accepted. The request calls it `clientDoc`; answers and the transaction list show it as `clientDocument`, digits only (a request field named `clientDocument` is ignored)"

/** A CPF or CNPJ (formatted or not, check digits verified), read into its unformatted form. */
export const ClientDocument = Schema.transformOrFail(
  Schema.String.annotations(clientDocProblem),
  Schema.String,
  {
    strict: true,
    decode: (value) =>
      Either.match(Document.parse(value), {
        onLeft: () => fail(clientDocProblem[ProblemId].code, clientDocProblem[ProblemId].message, value),
        onRight: (doc) => ParseResult.succeed(doc.value)
      }),
    encode: ParseResult.succeed
  }
).annotations({
  ...clientDocProblem,
  description:
    "A valid CPF or CNPJ (check digits verified; formatted or digits only; alphanumeric CNPJ accepted)",
  examples: ["52998224725"]
})

/** Smallest and largest `expiresIn` (seconds). */
export const expiresInRange = { min: 60, max: 604_800 } as const

const expiresInProblem = problem(
  "invalid_expires_in",
  `expiresIn must be an integer between ${expiresInRange.min} and ${expiresInRange.max}`
)

/** Seconds until a charge expires. */
export const ExpiresIn = Schema.Number.annotations(expiresInProblem).pipe(
  Schema.int(expiresInProblem),
  Schema.between(expiresInRange.min, expiresInRange.max, expiresInProblem),
  Schema.annotations({
    description: `Seconds until the charge expires (${expiresInRange.min} to ${expiresInRange.max}; default 3600)`,
    examples: [3600]
  })
)

const pixKeyRequired = problem("pix_key_required", "pixKey is required")
const pixKeyInvalid = problem("invalid_pix_key", "pixKey is not a valid PIX key")

/** A checked PIX key (the Type side of `pixKey`). */
export const PixKeyValue = Schema.Struct({
  type: Schema.Literal("email", "cpf", "cnpj", "phone", "evp"),
  value: Schema.String
})

/** A PIX key of any type (e-mail, CPF, CNPJ, +phone, random key), normalised to its DICT form. */
export const PixKeyField = Schema.transformOrFail(
  Schema.NullOr(Schema.String.annotations(pixKeyInvalid)).annotations({
    jsonSchema: { type: "string" }
  }),
  PixKeyValue,
  {
    strict: true,
    decode: (value) => {
      if (value === null || value.trim() === "")
        return fail(pixKeyRequired[ProblemId].code, pixKeyRequired[ProblemId].message, value)
      return Either.match(PixKey.parse(value), {
        onLeft: () => fail(pixKeyInvalid[ProblemId].code, pixKeyInvalid[ProblemId].message, value),
        onRight: (key) => ParseResult.succeed(key)
      })
    },
    encode: (key) => ParseResult.succeed(key.value)
  }
).annotations({
  ...pixKeyInvalid,
  description: "The recipient's PIX key: e-mail, CPF, CNPJ, +55 phone or random key (EVP)",
  examples: [{ type: "email", value: "maria@example.com" }]
})

// A missing field's issue keeps only the `missingMessage` annotation of its property: the
// problem is found from that function.
const missingProblems = new WeakMap<object, Problem>()

const required = <S extends Schema.Schema.Any>(schema: S, p: ReturnType<typeof problem>) => {
  const missingMessage = () => p[ProblemId].message
  missingProblems.set(missingMessage, p[ProblemId])
  return Schema.propertySignature(schema).annotations({ missingMessage })
}

// ---------------------------------------------------------------------------------------------
// The public API
// ---------------------------------------------------------------------------------------------

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

/** A fine or an abatement: a fixed amount in reais or a percentage of the original amount. */
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
      "Charged once when paid after the due date: `fixed` reais, or `percent` of the original amount (at most 100)"
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
        "Simple interest after the due date (the standard's `juros` modalities 1 to 8): `amountPerDay` reais or `percentPerDay` of the original amount per calendar day late; `percentPerMonth` (a month is 30 days) or `percentPerYear` (365 days); the business-day forms `amountPerBusinessDay`, `percentPerBusinessDay`, `percentPerMonthBusinessDays` (21 business days) and `percentPerYearBusinessDays` (252)"
    })
  ).annotations({
    description: "Interest for paying after the due date (the standard's `juros`): `{ type, value }`"
  }),
  discount: optionalField(
    Schema.Struct({
      type: required(Schema.Literal(...discountTypes).annotations(discountTypeProblem), discountTypeProblem),
      value: Schema.optional(termValue("discount.value", "invalid_discount")).annotations({
        description:
          "For the per-day types: reais or percent of the original amount per day before the due date"
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

/** The body of POST /api/v1/payouts, read into a payout request. */
export const CreatePayout = Schema.Struct({
  amount: required(amount(), problem("invalid_amount", "amount must be a positive number")),
  pixKey: required(PixKeyField, pixKeyRequired),
  clientName: text("clientName", "invalid_client_name", "The recipient's name"),
  clientDocument: optionalField(ClientDocument)
    .annotations({ description: clientDocDescription })
    .pipe(Schema.fromKey("clientDoc")),
  description: text("description", "invalid_description", "A note kept with the payout")
}).annotations({
  identifier: "PayoutRequest",
  title: "Payout request",
  description: "A PIX payout from the available balance to a PIX key.",
  examples: [
    {
      amount: Money.Cents(10000),
      pixKey: { type: "email", value: "maria@example.com" },
      clientName: "Maria Silva"
    }
  ]
})

/** A valid payout request. */
export interface CreatePayout extends Schema.Schema.Type<typeof CreatePayout> {}

/** Default and largest page size. */
export const pageSize = { default: 20, max: 100 } as const

const dayMs = 86_400_000

/** Epoch ms of 00:00:00.000Z of a real calendar date in YYYY-MM-DD, or undefined. */
export const parseDay = (value: string): number | undefined => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  if (match === null) return undefined
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const ms = Date.UTC(y, m - 1, d)
  const date = new Date(ms)
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
    ? ms
    : undefined
}

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

// ---------------------------------------------------------------------------------------------
// The admin API (and the CLI): the first problem only, code `invalid_field` unless said
// ---------------------------------------------------------------------------------------------

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
  secret: adminString("secret", "Sent with every delivery; 8 to 256 printable ASCII characters")
}).annotations({
  identifier: "SetWebhookRequest",
  [FirstProblemOnlyId]: true,
  examples: [{ url: "https://shop.example.com/pix/webhook", secret: "a-long-shared-secret" }]
})

/** A webhook endpoint's URL and secret. */
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
}).annotations({ identifier: "DeliveriesQuery", [FirstProblemOnlyId]: true })

/** A webhook log query. */
export interface DeliveriesQuery extends Schema.Schema.Type<typeof DeliveriesQuery> {}

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
}).annotations({
  identifier: "SandboxPayQuery",
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

/**
 * POST /merchants/:merchantId/charges/:transactionId/refunds: a refund (devolução) of part or all
 * of a completed charge. The Idempotency-Key header names it (a retry never refunds twice).
 */
export const CreateRefund = Schema.Struct({
  amount: required(amount(), problem("invalid_amount", "amount must be a positive number")),
  description: text("description", "invalid_description", "Shown to the payer with the returned PIX")
}).annotations({
  identifier: "RefundRequest",
  title: "Refund request",
  description: "A refund of part or all of a completed charge, up to what is left to refund.",
  examples: [{ amount: Money.Cents(1050), description: "Order 1234 cancelled" }]
})

/** A valid refund request. */
export interface CreateRefund extends Schema.Schema.Type<typeof CreateRefund> {}

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

/** POST /merchants/:merchantId/panel-invites (the engine checks the address itself). */
export const InvitePanelUser = Schema.Struct({
  email: required(
    Schema.String.annotations({
      ...problem("invalid_email", "email must be a valid e-mail address"),
      description: "The person's e-mail address",
      jsonSchema: { type: "string", format: "email" }
    }),
    problem("invalid_email", "email must be a valid e-mail address")
  ),
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
  email: required(
    Schema.String.annotations({
      ...problem("invalid_email", "email must be a valid e-mail address"),
      description: "The panel user's e-mail address",
      jsonSchema: { type: "string", format: "email" }
    }),
    problem("invalid_email", "email must be a valid e-mail address")
  ),
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
}).annotations({ identifier: "AuditQuery", [FirstProblemOnlyId]: true })

/** An audit log query. */
export interface AuditQuery extends Schema.Schema.Type<typeof AuditQuery> {}

// ---------------------------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------------------------

interface Found {
  readonly problem: Problem
  readonly message: string
  readonly path: ReadonlyArray<PropertyKey>
  readonly hint?: string | undefined
}

// The deepest check that failed on the first failing branch of `issue` (a union lists its
// members' failures in order: the annotated member names the problem).
const find = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>): Found | undefined => {
  switch (issue._tag) {
    case "Pointer": {
      const here = [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])]
      return find(issue.issue, here)
    }
    case "Composite": {
      const issues = Array.isArray(issue.issues) ? issue.issues : [issue.issues]
      for (const inner of issues) {
        const found = find(inner, path)
        if (found !== undefined) return found
      }
      return own(issue, path)
    }
    case "Refinement":
    case "Transformation": {
      return find(issue.issue, path) ?? own(issue, path)
    }
    case "Missing":
    case "Unexpected":
    case "Type":
    case "Forbidden":
      return own(issue, path)
  }
}

const missingProblem = (issue: ParseResult.Missing): Problem | undefined => {
  const message = issue.ast.annotations[SchemaAST.MissingMessageAnnotationId]
  return typeof message === "function" ? missingProblems.get(message) : undefined
}

const own = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>): Found | undefined => {
  const p =
    issue._tag === "Missing" ? missingProblem(issue) : problemOf("ast" in issue ? issue.ast : undefined)
  if (p === undefined) return undefined
  const message = issue._tag === "Type" && issue.message !== undefined ? issue.message : p.message
  const hint = issue._tag === "Type" ? p.hint?.(issue.actual) : undefined
  return { problem: p, message, path, hint }
}

// Every field's problem, in the schema's field order.
const problems = (issue: ParseResult.ParseIssue): ReadonlyArray<Found> => {
  let root = issue
  while (root._tag === "Transformation" || root._tag === "Refinement") root = root.issue
  const fields =
    root._tag === "Composite" ? (Array.isArray(root.issues) ? root.issues : [root.issues]) : [root]
  const found: Array<Found> = []
  for (const field of fields) {
    const f = find(field, [])
    if (f !== undefined) found.push(f)
  }
  if (found.length === 0) {
    // A check without its problem annotation is a bug of this module: say what Effect says.
    const message = ParseResult.TreeFormatter.formatIssueSync(issue)
    found.push({ problem: { code: "invalid_field", message }, message, path: [] })
  }
  return found
}

/** The validation error of a failed decoding: the first problem's code and message, every problem as a detail. */
export const toValidationError = (error: ParseResult.ParseError): ValidationError => {
  const found = problems(error.issue)
  const details: Array<ErrorDetail> = found.flatMap((f) => {
    const path = f.problem.path ?? f.path.map(String).join(".")
    return f.hint === undefined
      ? [{ path, message: f.message }]
      : [
          { path, message: f.message },
          { path, message: f.hint }
        ]
  })
  return new ValidationError({ code: found[0].problem.code, message: found[0].message, details })
}

/** What a decoder needs from the engine's configuration. */
export interface DecodeOptions {
  /** The largest amount (`EngineConfig.maxAmount`); without it, `MaxAmount` from the context. */
  readonly maxAmount?: Money.Cents
}

const isObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * A request decoder: anything but a JSON object is `Invalid JSON body`; a failed check is the
 * API's validation error (docs/decisions.md "Errors": the first problem in field order, every
 * problem in `details`; the admin API's schemas stop at the first). Reads `MaxAmount` from the
 * context.
 */
export const decode = <A, I, R>(
  schema: Schema.Schema<A, I, R>,
  options?: DecodeOptions
): ((input: unknown) => Effect.Effect<A, ValidationError | InvalidJson, R>) => {
  // Prepared once per decoder: transports build theirs at start-up and call them per request.
  const first =
    Option.getOrUndefined(SchemaAST.getAnnotation<boolean>(schema.ast, FirstProblemOnlyId)) === true
  const parse = ParseResult.decodeUnknown(schema, {
    errors: first ? "first" : "all",
    onExcessProperty: "ignore"
  })
  const toError = (issue: ParseResult.ParseIssue) => toValidationError(new ParseResult.ParseError({ issue }))
  const maxAmount = options?.maxAmount
  return (input) => {
    if (!isObject(input)) return Effect.fail(new InvalidJson())
    const decoded = Effect.mapError(parse(input), toError)
    return maxAmount === undefined ? decoded : Effect.provideService(decoded, MaxAmount, maxAmount)
  }
}

/** `decode` run at once, for callers outside Effect (the schemas here need no services). */
export const decodeEither =
  <A, I>(schema: Schema.Schema<A, I>, options?: DecodeOptions) =>
  (input: unknown): Either.Either<A, ValidationError | InvalidJson> =>
    Effect.runSync(Effect.either(decode(schema, options)(input)))
