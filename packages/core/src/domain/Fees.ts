/**
 * Fee plans and the spec's Fees object. A fee is a percentage and/or a fixed amount, split into
 * the part passed to the bank gateway and the platform's margin. Percentages round once.
 */

import type { Cents } from "./Money.js"
import * as Money from "./Money.js"

/** How one kind of operation is priced: rates in ppm plus fixed centavos, per beneficiary. */
export interface FeeRule {
  readonly gatewayRate: Money.Ppm
  readonly marginRate: Money.Ppm
  readonly gatewayFixed: Cents
  readonly marginFixed: Cents
}

/** A merchant's fee plan: one rule for charges, one for payouts. */
export interface FeePlan {
  readonly charge: FeeRule
  readonly payout: FeeRule
}

/** The spec's Fees object, in centavos. */
export interface Fees {
  readonly feeAmount: Cents
  readonly gatewayFeeAmount: Cents
  readonly adminMargin: Cents
  readonly netAmount: Cents
}

/** docs/decisions.md default: charges 0.99% (0.25% gateway + 0.74% margin), payouts 0.33 (0.10 + 0.23). */
export const defaultPlan: FeePlan = {
  charge: {
    gatewayRate: 2_500,
    marginRate: 7_400,
    gatewayFixed: Money.zero,
    marginFixed: Money.zero
  },
  payout: {
    gatewayRate: 0,
    marginRate: 0,
    gatewayFixed: Money.Cents(10),
    marginFixed: Money.Cents(23)
  }
}

/**
 * Applies a rule: the total and the gateway part are each rounded once, the margin is the
 * difference, so `gatewayFeeAmount + adminMargin = feeAmount` always holds.
 */
export const apply = (rule: FeeRule, amount: Cents): Fees => {
  const fixed = Money.add(rule.gatewayFixed, rule.marginFixed)
  const feeAmount = Money.add(Money.percent(amount, rule.gatewayRate + rule.marginRate), fixed)
  const gatewayFeeAmount = Money.add(Money.percent(amount, rule.gatewayRate), rule.gatewayFixed)
  return {
    feeAmount,
    gatewayFeeAmount,
    adminMargin: Money.sub(feeAmount, gatewayFeeAmount),
    netAmount: Money.sub(amount, feeAmount)
  }
}

/** Fees of a charge: the merchant receives `netAmount` when it is paid. */
export const forCharge = (plan: FeePlan, amount: Cents): Fees => apply(plan.charge, amount)

/** Fees of a payout: the recipient gets `amount`, the balance pays `amount + feeAmount`. */
export const forPayout = (plan: FeePlan, amount: Cents): Fees => apply(plan.payout, amount)

/** A fee plan as numbers, before `validatePlan` checks them (e.g. as a request sends it). */
export interface PlanNumbers {
  readonly charge: { readonly [K in keyof FeeRule]: number }
  readonly payout: { readonly [K in keyof FeeRule]: number }
}

/**
 * Checks a plan is usable: non-negative integer rates and fixed parts, total rate below 100%,
 * and each rule's fixed parts together at most `maxAmount` (the largest amount of one charge or
 * payout). The bound keeps every later computation in safe integers: a payout's debit is at most
 * `amount + amount x rate + fixed < 3 x maxAmount`, so no stored plan can make a request fail
 * with a 500 (a plan with a fixed part near 2^53 once did).
 */
export const validatePlan = (
  plan: PlanNumbers,
  maxAmount: Cents = Money.defaultMaximum
): string | undefined => {
  for (const [name, rule] of [
    ["charge", plan.charge],
    ["payout", plan.payout]
  ] as const) {
    for (const [field, value] of Object.entries(rule)) {
      if (!Number.isSafeInteger(value) || value < 0) return `${name}.${field} must be a non-negative integer`
    }
    if (rule.gatewayRate + rule.marginRate >= 1_000_000) return `${name} rates must total less than 100%`
    if (rule.gatewayFixed + rule.marginFixed > maxAmount) {
      return `${name} fixed parts must total at most ${maxAmount} centavos (the maximum amount, ${Money.formatReais(maxAmount)})`
    }
  }
  return undefined
}

/** The Fees object as the API shows it (reais). */
export const toJson = (fees: Fees) => ({
  feeAmount: Money.toReais(fees.feeAmount),
  gatewayFeeAmount: Money.toReais(fees.gatewayFeeAmount),
  adminMargin: Money.toReais(fees.adminMargin),
  netAmount: Money.toReais(fees.netAmount)
})
