/**
 * Due-date charges (the API Pix `cobv`) as the engine shows them: what one asks for on a day
 * (`DueAmount`), and the fields a due-date charge adds to the created charge (`Charge`), to a
 * transaction of the list (`Transaction`) and to its events' data (`TransactionSummary`). Listed
 * by `Views` and `Events`, which spread these fields into their schemas and answers; the terms
 * themselves are `domain/DueDate.ts`, checked by `services/DueDateCharges.ts`.
 */
import { Schema } from "effect"
import type { Transaction } from "../domain/Domain.js"
import * as DueDate from "../domain/DueDate.js"
import * as Money from "../domain/Money.js"
import { CalendarDate, Reais } from "./Scalars.js"

/** What a due-date charge asks for on one day. */
export const DueAmount = Schema.Struct({
  date: CalendarDate.annotations({ description: "The day of payment (São Paulo)" }),
  original: Reais.annotations({ description: "The charge's `amount`" }),
  abatement: Reais.annotations({ description: "Taken off on any day" }),
  discount: Reais.annotations({ description: "Taken off when paid on or before the due date" }),
  fine: Reais.annotations({ description: "Added when paid after the due date" }),
  interest: Reais.annotations({ description: "Added when paid after the due date, per day late" }),
  total: Reais.annotations({
    description:
      "What a PIX on that day must bring: `original - abatement - discount + fine + interest` (at least 0.01). A PIX of any other amount is not credited and is returned"
  }),
  payable: Schema.Boolean.annotations({
    description: "False after the last payable day: a PIX then is returned"
  })
}).annotations({
  identifier: "DueAmount",
  description:
    "What a due-date charge asks for on one day, each part rounded half-up to the centavo. The examples are the example due-date charge (original 500.00, due 2027-03-10, 10.00 off until 2027-03-01, fine 2%, interest 1% a month) paid early, on the due date and 20 days late",
  examples: [
    // 10.00 off until 2027-03-01.
    {
      date: "2027-02-25",
      original: 500,
      abatement: 0,
      discount: 10,
      fine: 0,
      interest: 0,
      total: 490,
      payable: true
    },
    {
      date: "2027-03-10",
      original: 500,
      abatement: 0,
      discount: 0,
      fine: 0,
      interest: 0,
      total: 500,
      payable: true
    },
    // 20 days late: fine 2% of 500.00 = 10.00; interest 1% a month x 20/30 of 500.00 = 3.333... -> 3.33.
    {
      date: "2027-03-30",
      original: 500,
      abatement: 0,
      discount: 0,
      fine: 10,
      interest: 3.33,
      total: 513.33,
      payable: true
    },
    // After 2027-04-09, the last payable day (the due date plus 30 days).
    {
      date: "2027-04-12",
      original: 500,
      abatement: 0,
      discount: 0,
      fine: 10,
      interest: 5.5,
      total: 515.5,
      payable: false
    }
  ]
})

/** What a due-date charge asks for on one day. */
export type DueAmountJson = typeof DueAmount.Type

/** The JSON of `DueDate.amountDue` on `day`. */
export const dueAmount = (due: DueDate.AmountDue, day: DueDate.Day): DueAmountJson => ({
  date: DueDate.formatDay(day),
  original: Money.toReais(due.original),
  abatement: Money.toReais(due.abatement),
  discount: Money.toReais(due.discount),
  fine: Money.toReais(due.fine),
  interest: Money.toReais(due.interest),
  total: Money.toReais(due.total),
  payable: due.payable
})

/** The fields a due-date charge adds to its events' data (`TransactionSummary`). */
export const summaryFields = {
  dueDate: Schema.optional(
    CalendarDate.annotations({ description: "A due-date charge's due date (absent on other transactions)" })
  ),
  payableUntil: Schema.optional(
    CalendarDate.annotations({
      description:
        "A due-date charge's last payable day: the due date (moved to a business day) plus `daysAfterDue`, moved to a business day"
    })
  )
}

/** The fields a due-date charge adds to a transaction of the list (`Transaction`). */
export const transactionFields = {
  ...summaryFields,
  amountDue: Schema.optional(
    Reais.annotations({
      description:
        "A pending due-date charge's amount due today (São Paulo), in the transaction list; see `DueAmount`"
    })
  )
}

/** The fields a due-date charge adds to the created charge (`Charge`). */
export const chargeFields = {
  dueDate: Schema.optional(CalendarDate.annotations({ description: "A due-date charge's due date" })),
  payableUntil: Schema.optional(
    CalendarDate.annotations({
      description:
        "A due-date charge's last payable day (`expiresAt` is the end of it, São Paulo time); after it a PIX is returned"
    })
  ),
  amountDue: Schema.optional(
    DueAmount.annotations({ description: "A due-date charge's amount due on the day it was created" })
  )
}

/** The due date and last payable day of a due-date charge's terms (its events' data). */
export const summaryJson = (terms: DueDate.DueTerms) => ({
  dueDate: terms.dueDate,
  payableUntil: DueDate.formatDay(DueDate.lastPayableDay(terms))
})

/**
 * A due-date charge in the transaction list: its due date and last payable day, and, given
 * `now` while it is pending, its amount due today.
 */
export const transactionJson = (tx: Transaction, terms: DueDate.DueTerms, now: number | undefined) => ({
  ...summaryJson(terms),
  ...(now === undefined || tx.status !== "pending"
    ? {}
    : { amountDue: Money.toReais(DueDate.amountDueAt(tx.amount, terms, now).total) })
})

/** A created due-date charge's fields: its due date, last payable day and what it asks for today. */
export const chargeJson = (amount: Money.Cents, terms: DueDate.DueTerms, now: number) => ({
  ...summaryJson(terms),
  amountDue: dueAmount(DueDate.amountDueAt(amount, terms, now), DueDate.dayOf(now))
})
