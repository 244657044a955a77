import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Fees from "../src/domain/Fees.js"
import * as Money from "../src/domain/Money.js"

const amount = fc.integer({ min: 1, max: 100_000_000 }).map(Money.Cents)
const rule = fc.record({
  gatewayRate: fc.integer({ min: 0, max: 200_000 }),
  marginRate: fc.integer({ min: 0, max: 200_000 }),
  gatewayFixed: fc.integer({ min: 0, max: 1_000 }).map(Money.Cents),
  marginFixed: fc.integer({ min: 0, max: 1_000 }).map(Money.Cents)
})

describe("Fees", () => {
  it.prop("parts always sum to feeAmount and netAmount = amount - feeAmount", [rule, amount], ([r, a]) => {
    const fees = Fees.apply(r, a)
    expect(fees.gatewayFeeAmount + fees.adminMargin).toBe(fees.feeAmount)
    expect(fees.netAmount).toBe(a - fees.feeAmount)
    expect(fees.adminMargin).toBeGreaterThanOrEqual(0)
    for (const v of Object.values(fees)) expect(Number.isSafeInteger(v)).toBe(true)
  })

  it("default plan: charges 0.99% (0.25% + 0.74%)", () => {
    expect(Fees.forCharge(Fees.defaultPlan, Money.Cents(10_000))).toEqual({
      feeAmount: 99,
      gatewayFeeAmount: 25,
      adminMargin: 74,
      netAmount: 9_901
    })
    // 0.99% of 1.50 = 0.01485 -> 0.01; 0.25% -> 0.00375 -> 0.00
    expect(Fees.forCharge(Fees.defaultPlan, Money.Cents(150))).toEqual({
      feeAmount: 1,
      gatewayFeeAmount: 0,
      adminMargin: 1,
      netAmount: 149
    })
    // half-up: 0.99% of 50.00 = 0.495 -> 0.50
    expect(Fees.forCharge(Fees.defaultPlan, Money.Cents(5_000)).feeAmount).toBe(50)
  })

  it("default plan: payouts 0.33 (0.10 + 0.23), netAmount = amount - 0.33", () => {
    expect(Fees.forPayout(Fees.defaultPlan, Money.Cents(10_000))).toEqual({
      feeAmount: 33,
      gatewayFeeAmount: 10,
      adminMargin: 23,
      netAmount: 9_967
    })
    expect(Fees.toJson(Fees.forPayout(Fees.defaultPlan, Money.Cents(1)))).toEqual({
      feeAmount: 0.33,
      gatewayFeeAmount: 0.1,
      adminMargin: 0.23,
      netAmount: -0.32
    })
  })

  it("validates plans", () => {
    expect(Fees.validatePlan(Fees.defaultPlan)).toBeUndefined()
    expect(
      Fees.validatePlan({ ...Fees.defaultPlan, charge: { ...Fees.defaultPlan.charge, marginRate: -1 } })
    ).toMatch(/charge.marginRate/)
    expect(
      Fees.validatePlan({
        ...Fees.defaultPlan,
        payout: { ...Fees.defaultPlan.payout, gatewayRate: 1_000_000 }
      })
    ).toMatch(/payout/)
    const max = Money.defaultMaximum
    const fixed = (gatewayFixed: number, marginFixed: number) => ({
      ...Fees.defaultPlan,
      payout: { ...Fees.defaultPlan.payout, gatewayFixed, marginFixed } as Fees.FeeRule
    })
    expect(Fees.validatePlan(fixed(max - 1, 1), max)).toBeUndefined()
    expect(Fees.validatePlan(fixed(max, 1), max)).toBe(
      "payout fixed parts must total at most 100000000 centavos (the maximum amount, 1000000.00)"
    )
    expect(Fees.validatePlan(fixed(Number.MAX_SAFE_INTEGER, 0))).toMatch(/fixed parts must total at most/)
    expect(Fees.validatePlan(fixed(2 ** 53, 0))).toBe("payout.gatewayFixed must be a non-negative integer")
  })

  it.prop(
    "any plan validatePlan accepts prices any amount up to the maximum in safe integers",
    {
      max: fc.integer({ min: 1, max: 999_999_999_999 }),
      rates: fc.tuple(fc.integer({ min: 0, max: 999_999 }), fc.integer({ min: 0, max: 999_999 })),
      fixed: fc.tuple(fc.nat(), fc.nat()),
      at: fc.double({ min: 0, max: 1, noNaN: true })
    },
    ({ max, rates: [gatewayRate, marginRate], fixed: [a, b], at }) => {
      const rule = {
        gatewayRate,
        marginRate: Math.min(marginRate, 999_999 - gatewayRate),
        gatewayFixed: Money.Cents(Math.min(a, max)),
        marginFixed: Money.Cents(Math.min(b, max - Math.min(a, max)))
      }
      const plan = { charge: rule, payout: rule }
      expect(Fees.validatePlan(plan, Money.Cents(max))).toBeUndefined()
      const amount = Money.Cents(Math.max(1, Math.round(at * max)))
      for (const fees of [Fees.forPayout(plan, amount), Fees.forCharge(plan, amount)]) {
        expect(Number.isSafeInteger(amount + fees.feeAmount)).toBe(true)
        expect(fees.gatewayFeeAmount + fees.adminMargin).toBe(fees.feeAmount)
      }
    }
  )
})
