import { describe, expect, it } from "@effect/vitest"
import { merchant, testEngine } from "@pixgate/testkit/engineFixture"
import { Effect, FastCheck as fc, Option } from "effect"
import * as Requests from "../src/contract/Requests.js"
import { RefundId, TransactionId } from "../src/domain/Domain.js"
import * as Fees from "../src/domain/Fees.js"
import * as Money from "../src/domain/Money.js"
import { Engine } from "../src/Engine.js"
import { RefundStore } from "../src/ports/RefundStore.js"
import { Store } from "../src/ports/Store.js"

/** One step on a merchant's two paid charges; indices pick among what exists at that moment. */
const step = fc.oneof(
  fc.record({ op: fc.constant("topUp" as const), cents: fc.integer({ min: 1, max: 30_000 }) }),
  fc.record({
    op: fc.constant("refund" as const),
    charge: fc.integer({ min: 0, max: 1 }),
    cents: fc.oneof(fc.integer({ min: 1, max: 12_000 }), fc.constant(666)),
    // A small key space: keys repeat, as retries do.
    key: fc.integer({ min: 0, max: 6 })
  }),
  fc.record({
    op: fc.constant("outcome" as const),
    pick: fc.nat(),
    outcome: fc.constantFrom("settle" as const, "fail" as const)
  })
)

describe("Refunds money invariants (property)", () => {
  it.effect.prop(
    "for any sequence of refunds, the sum never passes what a charge received, balances match a model and the ledger holds",
    [fc.array(step, { minLength: 1, maxLength: 30 })],
    ([steps]) =>
      Effect.gen(function* () {
        const engine = yield* Engine
        const store = yield* Store
        const m = yield* merchant()
        const amounts = [10_000, 2_550]
        const charges: Array<TransactionId> = []
        let available = 0
        for (const cents of amounts) {
          const charge = yield* engine.charges.create(
            m.test,
            yield* Requests.decode(Requests.CreateCharge, engine.config)({ amount: cents / 100 })
          )
          yield* engine.admin.sandboxPayCharge(charge.transactionId)
          available += Fees.forCharge(Fees.defaultPlan, Money.Cents(cents)).netAmount
          charges.push(TransactionId.make(charge.transactionId))
        }
        /** The model: each refund by id, with its charge, amount and status. */
        const refunds = new Map<string, { charge: number; amount: number; status: string; key: number }>()
        const live = (charge: number) =>
          [...refunds.values()]
            .filter((r) => r.charge === charge && r.status !== "failed")
            .reduce((n, r) => n + r.amount, 0)
        const completed = (charge: number) =>
          [...refunds.values()]
            .filter((r) => r.charge === charge && r.status === "completed")
            .reduce((n, r) => n + r.amount, 0)

        for (const s of steps) {
          if (s.op === "topUp") {
            yield* engine.admin.topUp(m.merchantId, { amount: Money.Cents(s.cents) })
            available += s.cents
          } else if (s.op === "refund") {
            const key = `k${s.key}`
            const earlier = [...refunds.entries()].find(([, r]) => r.charge === s.charge && r.key === s.key)
            const result = yield* Effect.either(
              engine.refunds.create(
                m.test.merchant.id,
                charges[s.charge],
                { amount: Money.Cents(s.cents) },
                key
              )
            )
            const room = amounts[s.charge] - live(s.charge)
            const refunded = completed(s.charge) >= amounts[s.charge]
            if (earlier !== undefined) {
              // A retry: the first refund, or a mismatch; never a second one.
              if (earlier[1].amount === s.cents) expect(Either(result)).toEqual(earlier[0])
              else expect(code(result)).toBe("idempotency_mismatch")
            } else if (refunded) expect(code(result)).toBe("refund_not_refundable")
            else if (s.cents > room) expect(code(result)).toBe("refund_exceeds_received")
            else if (available < s.cents) expect(code(result)).toBe("insufficient_balance")
            else {
              expect(result._tag).toBe("Right")
              if (result._tag === "Right") {
                refunds.set(result.right.id, {
                  charge: s.charge,
                  amount: s.cents,
                  status: "pending",
                  key: s.key
                })
                available -= s.cents
              }
            }
          } else {
            const pending = [...refunds.entries()].filter(([, r]) => r.status === "pending")
            if (pending.length === 0) continue
            const [id, r] = pending[s.pick % pending.length]
            const changed =
              s.outcome === "settle"
                ? yield* engine.refunds.settle(RefundId.make(id))
                : yield* engine.refunds.fail(RefundId.make(id), "bank_rejected")
            expect(changed).toBe(true)
            r.status = s.outcome === "settle" ? "completed" : "failed"
            if (s.outcome === "fail") available += r.amount
          }

          const check = yield* store.checkLedger("test")
          expect(check.unbalancedEntries).toEqual([])
          expect(check.balanceMismatches).toEqual([])
          expect(check.total).toBe(0)
          const balance = yield* store.balance(m.test.merchant.id, "test")
          expect(balance.available).toBe(available)
          expect(balance.available).toBeGreaterThanOrEqual(0)
          for (const [i, id] of charges.entries()) {
            const stored = yield* (yield* RefundStore).listRefunds(id)
            const sum = stored.filter((r) => r.status !== "failed").reduce((n, r) => n + r.amount, 0)
            expect(sum).toBe(live(i))
            expect(sum).toBeLessThanOrEqual(amounts[i])
            const charge = Option.getOrThrow(yield* store.getTransaction(id))
            expect(charge.status).toBe(completed(i) >= amounts[i] ? "refunded" : "completed")
          }
        }
      }).pipe(Effect.provide(testEngine({}, { worker: false }))),
    { fastCheck: { numRuns: 60 } }
  )
})

const Either = <A extends { readonly id: string }>(result: { _tag: "Right"; right: A } | { _tag: "Left" }) =>
  result._tag === "Right" ? result.right.id : "error"

const code = (result: { _tag: "Right" } | { _tag: "Left"; left: { readonly code?: string } }) =>
  result._tag === "Left" ? result.left.code : "created"
