/**
 * Due-date charges' requests (the API Pix cobv): the fields a due-date charge adds to the body
 * of POST /api/v1/charges (`dueDate`, `daysAfterDue`, `fine`, `interest`, `discount`,
 * `abatement`), which `Public.ts` spreads into `CreateCharge`, and the example due-date charge
 * (`Requests` lists it). The engine checks the terms against each other and the amount
 * (`services/DueDateCharges.ts`).
 */
import { Either, ParseResult, Schema } from "effect"
import * as DueDate from "../../domain/DueDate.js"
import * as Money from "../../domain/Money.js"
import type { ValidationCode } from "../Errors.js"
import { fail, ProblemId, problem, required } from "./Problems.js"
import { optionalField, parseDay } from "./Shared.js"

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

/**
 * The due-date fields of a charge request (all optional; any of them but `dueDate` needs
 * `dueDate`), spread into `CreateCharge` after its own fields.
 */
export const dueDateFields = {
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
