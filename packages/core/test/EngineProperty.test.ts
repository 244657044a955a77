import { describe, expect, it } from "@effect/vitest"
import { merchant, testEngine } from "@pixgate/testkit/engineFixture"
import { Effect, FastCheck as fc } from "effect"
import * as Fees from "../src/domain/Fees.js"
import * as Money from "../src/domain/Money.js"
import { Store } from "../src/ports/Store.js"
import { RequestEngine } from "./support/requests.js"

const cents = fc.integer({ min: 1, max: 50_000 })
const who = fc.integer({ min: 0, max: 1 })
const pick = fc.nat()

/** One step of a merchant's life; indices pick among what exists at that moment. */
const step = fc.oneof(
  fc.record({ op: fc.constant("topUp" as const), who, cents }),
  fc.record({ op: fc.constant("charge" as const), who, cents, pay: fc.boolean() }),
  fc.record({
    op: fc.constant("payout" as const),
    who,
    cents,
    outcome: fc.constantFrom("settle", "fail", "pending")
  }),
  fc.record({ op: fc.constant("payment" as const), who, cents }),
  fc.record({
    op: fc.constant("chargeback" as const),
    pick,
    outcome: fc.constantFrom("accepted" as const, "rejected" as const, "open" as const)
  })
)

describe("Engine money invariants (property)", () => {
  it.effect.prop(
    "after every step the ledger sums to zero, balances equal postings and match a model",
    [fc.array(step, { minLength: 1, maxLength: 40 })],
    ([steps]) =>
      Effect.gen(function* () {
        const engine = yield* RequestEngine
        const store = yield* Store
        const ms = [yield* merchant("A"), yield* merchant("B")]
        const model = ms.map(() => ({ available: 0, held: 0, disputed: false }))
        const paidDeposits: Array<{ id: string; owner: number; amount: number }> = []
        const openChargebacks: Array<{ id: string; owner: number; amount: number }> = []

        for (const s of steps) {
          if (s.op === "topUp") {
            yield* engine.admin.topUp(ms[s.who].merchantId, s.cents / 100)
            model[s.who].available += s.cents
          } else if (s.op === "charge") {
            const charge = yield* engine.charges.create(ms[s.who].test, { amount: s.cents / 100 })
            const fees = Fees.forCharge(Fees.defaultPlan, Money.Cents(s.cents))
            expect(charge.fees).toEqual(Fees.toJson(fees))
            if (s.pay) {
              yield* engine.admin.sandboxPayCharge(charge.transactionId)
              model[s.who].available += fees.netAmount
              paidDeposits.push({ id: charge.transactionId, owner: s.who, amount: s.cents })
            }
          } else if (s.op === "payout") {
            const debit = s.cents + 33
            const result = yield* Effect.either(
              engine.payouts.create(ms[s.who].test, { amount: s.cents / 100, pixKey: "pix@example.com" })
            )
            if (model[s.who].available >= debit) {
              expect(result._tag).toBe("Right")
              model[s.who].available -= debit
              if (result._tag === "Right" && s.outcome === "settle")
                yield* engine.admin.sandboxSettlePayout(result.right.transactionId)
              if (result._tag === "Right" && s.outcome === "fail") {
                yield* engine.admin.sandboxFailPayout(result.right.transactionId)
                model[s.who].available += debit
              }
            } else {
              expect(result._tag === "Left" && result.left.code).toBe("insufficient_balance")
            }
          } else if (s.op === "payment") {
            const to = 1 - s.who
            const result = yield* Effect.either(
              engine.payments.create(ms[s.who].test, { to: ms[to].merchantId, amount: s.cents / 100 })
            )
            if (model[s.who].available >= s.cents) {
              expect(result._tag).toBe("Right")
              model[s.who].available -= s.cents
              model[to].available += s.cents
            } else expect(result._tag === "Left" && result.left.code).toBe("insufficient_balance")
          } else if (paidDeposits.length > 0) {
            const [deposit] = paidDeposits.splice(s.pick % paidDeposits.length, 1)
            const cb = yield* engine.admin.sandboxOpenChargeback(deposit.id)
            model[deposit.owner].available -= deposit.amount
            model[deposit.owner].held += deposit.amount
            model[deposit.owner].disputed = true
            if (s.outcome === "open")
              openChargebacks.push({ id: cb.chargebackId, owner: deposit.owner, amount: deposit.amount })
            else {
              yield* engine.admin.sandboxResolveChargeback(cb.chargebackId, s.outcome)
              model[deposit.owner].held -= deposit.amount
              if (s.outcome === "rejected") model[deposit.owner].available += deposit.amount
            }
          }

          const check = yield* store.checkLedger("test")
          expect(check.unbalancedEntries).toEqual([])
          expect(check.balanceMismatches).toEqual([])
          expect(check.total).toBe(0)
          for (const [i, m] of ms.entries()) {
            const balance = yield* store.balance(m.merchantId as never, "test")
            expect({ available: balance.available, held: balance.held }).toEqual({
              available: model[i].available,
              held: model[i].held
            })
            if (!model[i].disputed) expect(balance.available).toBeGreaterThanOrEqual(0)
          }
        }
        // Every transaction's fees follow the plan.
        for (const m of ms) {
          const { rows } = yield* store.listTransactions({
            merchantId: m.merchantId as never,
            mode: "test",
            offset: 0,
            limit: 1000
          })
          for (const tx of rows) {
            const expected =
              tx.type === "deposit"
                ? Fees.forCharge(Fees.defaultPlan, tx.amount)
                : tx.type === "withdrawal"
                  ? Fees.forPayout(Fees.defaultPlan, tx.amount)
                  : { feeAmount: 0, gatewayFeeAmount: 0, netAmount: tx.amount }
            expect({
              feeAmount: tx.feeAmount,
              gatewayFeeAmount: tx.gatewayFeeAmount,
              netAmount: tx.netAmount
            }).toEqual({
              feeAmount: expected.feeAmount,
              gatewayFeeAmount: expected.gatewayFeeAmount,
              netAmount: expected.netAmount
            })
          }
        }
        expect(openChargebacks.every((c) => c.amount > 0)).toBe(true)
      }).pipe(Effect.provide(testEngine({}, { worker: false }))),
    { fastCheck: { numRuns: 60 } }
  )
})
