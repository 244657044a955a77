/**
 * The due-date charges' service module as the charges service uses it: what a PIX for a charge
 * must bring on a day, and the terms' check against the quoted fee. The terms' own rules are
 * `DueDate.test.ts`'s and, through the API, `packages/http/test/dueCharges.test.ts`'s.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { MerchantId, newTransaction, TransactionId } from "../src/domain/Domain.js"
import * as DueDate from "../src/domain/DueDate.js"
import * as Money from "../src/domain/Money.js"
import * as DueDateCharges from "../src/services/DueDateCharges.js"

const terms: DueDate.DueTerms = {
  dueDate: "2027-03-10",
  daysAfterDue: 30,
  fine: { type: "percent", value: 200 },
  interest: { type: "percentPerMonth", value: 100 },
  discount: { type: "fixedUntil", dates: [{ until: "2027-03-01", value: 1000 }] },
  abatement: null
}

const charge = (dueTerms: DueDate.DueTerms | null) =>
  newTransaction({
    id: TransactionId.make("tx_1"),
    merchantId: MerchantId.make("mer_1"),
    mode: "test",
    type: "deposit",
    status: "pending",
    amount: Money.Cents(50000),
    createdAt: 0,
    dueTerms
  })

/** Noon in São Paulo of a day. */
const noon = (date: string) => DueDate.endOfDay(DueDate.checkedDay(date)) - 12 * 3_600_000

describe("DueDateCharges", () => {
  it("a charge without terms asks for its amount on any day", () => {
    expect(DueDateCharges.amountDueAt(charge(null), noon("2030-01-01"))).toBe(50000)
  })

  it("a due-date charge asks for what its terms give that day", () => {
    // The example due-date charge: 10.00 off until 2027-03-01; 2% fine and 1% a month after 2027-03-10.
    expect(DueDateCharges.amountDueAt(charge(terms), noon("2027-02-25"))).toBe(49000)
    expect(DueDateCharges.amountDueAt(charge(terms), noon("2027-03-10"))).toBe(50000)
    expect(DueDateCharges.amountDueAt(charge(terms), noon("2027-03-30"))).toBe(51333)
  })

  it("the least a payer can bring must pay the fee quoted at creation", () => {
    const today = DueDate.checkedDay("2027-02-01")
    const check = (fee: number) =>
      Effect.runSyncExit(DueDateCharges.checkAboveFee(Money.Cents(50000), terms, today, Money.Cents(fee)))
    // The least is 490.00 (the discount taken off).
    expect(Exit.isSuccess(check(48999))).toBe(true)
    const refused = check(49000)
    expect(Exit.isFailure(refused)).toBe(true)
    expect(JSON.stringify(refused)).toContain("amount_below_fee")
  })
})
