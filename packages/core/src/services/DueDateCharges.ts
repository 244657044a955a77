/**
 * Due-date charges (the API Pix `cobv`): a charge with a due date, payable until its last
 * payable day, whose amount on a day follows its fine, interest, discount and abatement terms
 * (`domain/DueDate.ts`). This module is what the charges service asks of them: the terms of a
 * request, checked against each other, the amount and the fee (the standard's rules for
 * `PUT /cobv` and docs/decisions.md "Due-date charges"), when such a charge expires, and what a
 * PIX for one must bring on a day. The terms are kept on the charge itself
 * (`Transaction.dueTerms`, the `due_terms` column of the transactions): no store of their own.
 */
import { Effect } from "effect"
import * as Errors from "../contract/Errors.js"
import type { CreateCharge } from "../contract/Requests.js"
import type { Transaction } from "../domain/Domain.js"
import * as DueDate from "../domain/DueDate.js"
import type * as Money from "../domain/Money.js"

/** The farthest due date a charge may have, in days from today. */
export const latestDueDate = 1830

const refuse = (code: Errors.ValidationCode, path: string, message: string) =>
  Effect.fail(Errors.validation(code, path, message))

const isPercent = (rule: { readonly type: string }) => rule.type.startsWith("percent")

/** A due-date charge's fine, interest and abatement, checked against the amount and the maximum. */
const checkCharges = (
  input: CreateCharge,
  maxAmount: Money.Cents
): Effect.Effect<void, Errors.ValidationError> =>
  Effect.gen(function* () {
    const amount = input.amount
    const { fine, interest, abatement } = input
    if (fine !== undefined && fine.value > (isPercent(fine) ? 10_000 : maxAmount)) {
      return yield* refuse(
        "invalid_fine",
        "fine.value",
        isPercent(fine) ? "fine.value must be at most 100 (percent)" : "fine.value exceeds the maximum amount"
      )
    }
    if (interest !== undefined && interest.value > (isPercent(interest) ? 10_000 : maxAmount)) {
      return yield* refuse(
        "invalid_interest",
        "interest.value",
        isPercent(interest)
          ? "interest.value must be at most 100 (percent)"
          : "interest.value exceeds the maximum amount"
      )
    }
    if (abatement !== undefined && abatement.value >= (isPercent(abatement) ? 10_000 : amount)) {
      return yield* refuse("abatement_too_large", "abatement.value", "abatement must be less than the amount")
    }
  })

/** A due-date charge's discount, checked against its due day and the amount. */
const discountRuleOf = (
  discount: NonNullable<CreateCharge["discount"]>,
  due: DueDate.Day,
  amount: Money.Cents
): Effect.Effect<DueDate.DiscountRule, Errors.ValidationError> =>
  Effect.gen(function* () {
    const { type } = discount
    if (type === "fixedUntil" || type === "percentUntil") {
      const dates = discount.dates ?? []
      if (discount.value !== undefined) {
        return yield* refuse(
          "invalid_discount",
          "discount.value",
          `discount.value is not for ${type}: each of discount.dates has its value`
        )
      }
      if (dates.length < 1 || dates.length > 3) {
        return yield* refuse(
          "invalid_discount",
          "discount.dates",
          `discount.dates must have 1 to 3 elements for ${type}`
        )
      }
      if (new Set(dates.map((d) => d.until)).size !== dates.length) {
        return yield* refuse("invalid_discount", "discount.dates", "discount.dates must have different dates")
      }
      if (dates.some((d) => DueDate.checkedDay(d.until) > due)) {
        return yield* refuse(
          "invalid_discount",
          "discount.dates",
          "discount.dates must be on or before dueDate"
        )
      }
      if (dates.some((d) => d.value >= (type === "percentUntil" ? 10_000 : amount))) {
        return yield* refuse(
          "discount_too_large",
          "discount.dates",
          "each discount must be less than the amount"
        )
      }
      return { type, dates: dates.map((d) => ({ until: d.until, value: d.value })) }
    } else {
      if (discount.dates !== undefined) {
        return yield* refuse(
          "invalid_discount",
          "discount.dates",
          `discount.dates is not for ${type}: it takes one value per day`
        )
      }
      if (discount.value === undefined) {
        return yield* refuse("invalid_discount", "discount.value", `discount.value is required for ${type}`)
      }
      return { type, value: discount.value }
    }
  })

/**
 * The terms of a due-date charge request, checked against each other and the amount (the
 * standard's rules for `PUT /cobv`, and docs/decisions.md "Due-date charges"); null for a request
 * without `dueDate`, which means what it always meant.
 */
export const dueTermsOf = (
  input: CreateCharge,
  today: DueDate.Day,
  maxAmount: Money.Cents
): Effect.Effect<DueDate.DueTerms | null, Errors.ValidationError> =>
  Effect.gen(function* () {
    const { dueDate } = input
    if (dueDate === undefined) {
      for (const field of ["daysAfterDue", "fine", "interest", "discount", "abatement"] as const) {
        if (input[field] !== undefined) {
          return yield* refuse("due_date_required", field, `${field} needs dueDate (a due-date charge)`)
        }
      }
      return null
    }
    if (input.expiresIn !== undefined) {
      return yield* refuse(
        "expires_in_with_due_date",
        "expiresIn",
        "expiresIn cannot be combined with dueDate: a due-date charge is payable until dueDate plus daysAfterDue"
      )
    }
    if (input.clientName === undefined) {
      return yield* refuse(
        "client_name_required",
        "clientName",
        "clientName is required with dueDate (the payer's name and CPF or CNPJ)"
      )
    }
    if (input.clientDocument === undefined) {
      return yield* refuse(
        "client_doc_required",
        "clientDoc",
        "clientDoc is required with dueDate (the payer's name and CPF or CNPJ)"
      )
    }
    const due = DueDate.checkedDay(dueDate)
    if (due < today) {
      return yield* refuse("due_date_in_past", "dueDate", "dueDate must be today or later (São Paulo)")
    }
    if (due > today + latestDueDate) {
      return yield* refuse("invalid_due_date", "dueDate", "dueDate must be within 5 years")
    }
    const amount = input.amount
    const { fine, interest, discount, abatement } = input
    yield* checkCharges(input, maxAmount)
    const discountRule = discount === undefined ? null : yield* discountRuleOf(discount, due, amount)
    const terms: DueDate.DueTerms = {
      dueDate,
      daysAfterDue: input.daysAfterDue ?? DueDate.defaultDaysAfterDue,
      fine: fine === undefined ? null : { type: fine.type, value: fine.value },
      interest: interest === undefined ? null : { type: interest.type, value: interest.value },
      discount: discountRule,
      abatement: abatement === undefined ? null : { type: abatement.type, value: abatement.value }
    }
    if (DueDate.largestReductionFrom(amount, terms, today) >= amount) {
      return yield* refuse(
        "discount_too_large",
        "discount",
        "abatement and discount together must leave something to pay on every day"
      )
    }
    return terms
  })

/**
 * A due-date charge's terms against the fee quoted at creation, on the original amount: the
 * least a payer can bring (after abatement and the largest discount) must still pay it.
 */
export const checkAboveFee = (
  amount: Money.Cents,
  terms: DueDate.DueTerms,
  today: DueDate.Day,
  feeAmount: Money.Cents
): Effect.Effect<void, Errors.ValidationError> =>
  amount - DueDate.largestReductionFrom(amount, terms, today) <= feeAmount
    ? refuse(
        "amount_below_fee",
        "discount",
        "the amount after abatement and discount must be greater than the charge fee"
      )
    : Effect.void

/** When a due-date charge expires: the end of its last payable day (São Paulo). */
export const expiresAt = (terms: DueDate.DueTerms): number => DueDate.expiresAt(terms)

/**
 * What a PIX for a charge must bring at `at`: its amount, or for a due-date charge what its
 * terms give that day (`DueDate.amountDue`).
 */
export const amountDueAt = (charge: Transaction, at: number): Money.Cents =>
  charge.dueTerms === null ? charge.amount : DueDate.amountDueAt(charge.amount, charge.dueTerms, at).total
