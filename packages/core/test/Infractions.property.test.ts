import { describe, expect, it } from "@effect/vitest"
import { merchant, testEngine } from "@pixgate/testkit/engineFixture"
import { Effect, FastCheck as fc, Option, TestClock } from "effect"
import * as Requests from "../src/contract/Requests.js"
import { TransactionId } from "../src/domain/Domain.js"
import * as Fees from "../src/domain/Fees.js"
import type { InfractionId } from "../src/domain/Infractions.js"
import * as Money from "../src/domain/Money.js"
import { Engine } from "../src/Engine.js"
import { Store } from "../src/ports/Store.js"

/** One step; indices pick among what exists at that moment. */
const step = fc.oneof(
  fc.record({ op: fc.constant("pay" as const), cents: fc.integer({ min: 100, max: 20_000 }) }),
  fc.record({ op: fc.constant("payout" as const), cents: fc.integer({ min: 1, max: 15_000 }) }),
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("open" as const),
      charge: fc.nat(),
      claim: fc.integer({ min: 1, max: 20_000 }),
      block: fc.boolean(),
      // Bank ids repeat: a second report of one infraction.
      bankId: fc.integer({ min: 0, max: 5 })
    })
  },
  fc.record({
    op: fc.constant("answer" as const),
    pick: fc.nat(),
    analysis: fc.constantFrom("accepted" as const, "contested" as const)
  }),
  fc.record({
    op: fc.constant("release" as const),
    pick: fc.nat(),
    outcome: fc.constantFrom("rejected" as const, "cancelled" as const)
  }),
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("return" as const),
      pick: fc.nat(),
      cents: fc.oneof(fc.integer({ min: 1, max: 20_000 }), fc.integer({ min: 1, max: 3_000 })),
      // Return ids repeat: the same devolução from the callback and from reconciliation.
      returnId: fc.integer({ min: 0, max: 8 }),
      conclude: fc.boolean(),
      matched: fc.boolean()
    })
  },
  fc.record({ op: fc.constant("later" as const), ms: fc.integer({ min: 1, max: 3 * 86_400_000 }) })
)

interface ModelInfraction {
  id: InfractionId
  charge: number
  blocked: number
  status: string
}

describe("MED infractions: money invariants (property)", () => {
  it.effect.prop(
    "over any order of blocks, answers, conclusions, partial returns, payouts and payments: the ledger holds, payouts never spend blocked money, every returned centavo is booked once",
    [fc.array(step, { minLength: 1, maxLength: 35 })],
    ([steps]) =>
      Effect.gen(function* () {
        const engine = yield* Engine
        const store = yield* Store
        const m = yield* merchant()
        const owner = { merchantId: m.test.merchant.id, mode: "test" as const }
        const charges: Array<{ id: TransactionId; received: number; returned: number }> = []
        const infractions: Array<ModelInfraction> = []
        const bankIds = new Map<number, InfractionId>()
        /** Every devolução booked: its id, charge and amount. */
        const returns = new Map<string, { charge: number; amount: number }>()
        let available = 0
        // Two paid charges to start with, so most steps have something to act on.
        const start = [
          { op: "pay" as const, cents: 10_000 },
          { op: "pay" as const, cents: 2_550 }
        ]

        for (const s of [...start, ...steps]) {
          if (s.op === "pay") {
            const charge = yield* engine.charges.create(
              m.test,
              yield* Requests.decode(Requests.CreateCharge, engine.config)({ amount: s.cents / 100 })
            )
            yield* engine.admin.sandboxPayCharge(charge.transactionId)
            available += Fees.forCharge(Fees.defaultPlan, Money.Cents(s.cents)).netAmount
            charges.push({ id: TransactionId.make(charge.transactionId), received: s.cents, returned: 0 })
          } else if (s.op === "payout") {
            const result = yield* Effect.either(
              engine.payouts.create(
                m.test,
                yield* Requests.decode(
                  Requests.CreatePayout,
                  engine.config
                )({
                  amount: s.cents / 100,
                  pixKey: "maria@example.com"
                })
              )
            )
            if (result._tag === "Right") {
              // Only what is available pays out: never the blocked money, never below zero.
              const after = (yield* store.balance(m.test.merchant.id, "test")).available
              expect(s.cents).toBeLessThanOrEqual(available)
              expect(after).toBeLessThan(available)
              expect(after).toBeGreaterThanOrEqual(0)
              available = after
            } else {
              expect((result.left as { code?: string }).code).toBe("insufficient_balance")
            }
          } else if (s.op === "open") {
            if (charges.length === 0) continue
            const c = s.charge % charges.length
            const claim = Math.min(s.claim, charges[c].received)
            const known = bankIds.get(s.bankId)
            yield* TestClock.adjust(1)
            const r = yield* engine.infractions.open({
              transactionId: charges[c].id,
              bankId: `BANK${s.bankId}`,
              type: "fraud",
              reason: "golpe",
              amountClaimed: Money.Cents(claim),
              block: s.block
            })
            expect(r.ok).toBe(true)
            if (!r.ok) continue
            if (known !== undefined) {
              expect(r.value.id).toBe(known)
              continue
            }
            const blocked = s.block ? Math.max(0, Math.min(claim, available)) : 0
            expect(r.value.blockedAmount).toBe(blocked)
            available -= blocked
            bankIds.set(s.bankId, r.value.id)
            infractions.push({
              id: r.value.id,
              charge: charges.findIndex((x) => x.id === r.value.transactionId),
              blocked,
              status: "open"
            })
          } else if (s.op === "answer") {
            if (infractions.length === 0) continue
            const inf = infractions[s.pick % infractions.length]
            const r = yield* engine.infractions.answer(owner, inf.id, {
              analysis: s.analysis,
              justification: "j"
            })
            const stored = Option.getOrThrow(yield* engine.infractions.get(inf.id))
            if (inf.status !== "open") expect(r).toMatchObject({ ok: false, reason: "not_answerable" })
            else if (r.ok) inf.status = s.analysis === "accepted" ? "accepted" : "defended"
            else expect(r.reason).toBe("deadline_passed")
            expect(stored.status).toBe(inf.status)
          } else if (s.op === "release") {
            if (infractions.length === 0) continue
            const inf = infractions[s.pick % infractions.length]
            const r = yield* engine.infractions.release(inf.id, s.outcome)
            const concluded = inf.status === "rejected" || inf.status === "cancelled"
            expect(r.ok).toBe(!concluded)
            if (r.ok) {
              available += inf.blocked
              inf.blocked = 0
              inf.status = s.outcome
            }
          } else if (s.op === "return") {
            if (charges.length === 0) continue
            const live = infractions.filter((i) => i.status !== "rejected" && i.status !== "cancelled")
            const inf = s.matched && live.length > 0 ? live[s.pick % live.length] : undefined
            const c = inf?.charge ?? s.pick % charges.length
            const charge = charges[c]
            const id = `RTR${s.returnId}`
            const earlier = returns.get(id)
            const r = yield* engine.infractions.recordReturn({
              mode: "test",
              returnId: id,
              transactionId: charge.id,
              ...(inf === undefined ? {} : { infractionId: inf.id }),
              nature: "MED_FRAUDE",
              amount: Money.Cents(s.cents),
              conclude: s.conclude
            })
            if (earlier !== undefined) {
              // Reported again: the first booking, nothing moves.
              expect(r.ok).toBe(true)
              if (r.ok) expect(r.value.booked.amount).toBe(earlier.amount)
            } else if (charge.returned + s.cents > charge.received) {
              expect(r).toMatchObject({ ok: false, reason: "exceeds_received" })
            } else {
              expect(r.ok).toBe(true)
              if (!r.ok) continue
              // Matched: the named infraction, or the charge's latest not concluded for the merchant.
              const target =
                inf ??
                [...infractions]
                  .reverse()
                  .find((i) => i.charge === c && i.status !== "rejected" && i.status !== "cancelled")
              const fromBlocked = Math.min(s.cents, target?.blocked ?? 0)
              expect(r.value.booked.fromBlocked).toBe(fromBlocked)
              available -= s.cents - fromBlocked
              if (target !== undefined) {
                target.blocked -= fromBlocked
                if (s.conclude) {
                  available += target.blocked
                  target.blocked = 0
                  target.status = "accepted"
                }
              }
              charge.returned += s.cents
              returns.set(id, { charge: c, amount: s.cents })
            }
          } else {
            yield* TestClock.adjust(s.ms)
          }

          const check = yield* store.checkLedger("test")
          expect(check.unbalancedEntries).toEqual([])
          expect(check.balanceMismatches).toEqual([])
          expect(check.total).toBe(0)
          const balance = yield* store.balance(m.test.merchant.id, "test")
          expect(balance.available).toBe(available)
          expect(balance.held).toBe(infractions.reduce((n, i) => n + i.blocked, 0))
          for (const [i, charge] of charges.entries()) {
            const booked = yield* engine.infractions.returns(charge.id)
            const sum = booked.reduce((n, r) => n + r.amount, 0)
            expect(sum).toBe(charge.returned)
            expect(booked.map((r) => r.id).sort()).toEqual(
              [...returns.entries()]
                .filter(([, r]) => r.charge === i)
                .map(([id]) => id)
                .sort()
            )
            const stored = Option.getOrThrow(yield* store.getTransaction(charge.id))
            expect(stored.status).toBe(charge.returned >= charge.received ? "refunded" : "completed")
          }
        }
        // Every returned centavo booked once: the store's returns are the model's, each id once.
        const returned = [...returns.values()].reduce((n, r) => n + r.amount, 0)
        const booked = (yield* Effect.forEach(charges, (c) => engine.infractions.returns(c.id))).flat()
        expect(booked.reduce((n, r) => n + r.amount, 0)).toBe(returned)
        expect(new Set(booked.map((r) => r.id)).size).toBe(booked.length)
      }).pipe(Effect.provide(testEngine({}, { worker: false }))),
    { fastCheck: { numRuns: 100 } }
  )
})
