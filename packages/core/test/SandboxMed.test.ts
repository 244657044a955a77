import { describe, expect, it } from "@effect/vitest"
import { merchant, testEngine } from "@pixgate/testkit/engineFixture"
import { Effect, Option, TestClock } from "effect"
import * as Sandbox from "../src/adapters/Sandbox.js"
import * as SandboxMed from "../src/adapters/SandboxMed.js"
import * as Requests from "../src/contract/Requests.js"
import { TransactionId } from "../src/domain/Domain.js"
import * as Fees from "../src/domain/Fees.js"
import * as Money from "../src/domain/Money.js"
import { Engine } from "../src/Engine.js"
import { Store } from "../src/ports/Store.js"

/** A test charge of `cents`, paid by the sandbox on its own rhythm; answers its id and net. */
const magicCharge = (cents: number) =>
  Effect.gen(function* () {
    const engine = yield* Engine
    const m = yield* merchant()
    const charge = yield* engine.charges.create(
      m.test,
      yield* Requests.decode(Requests.CreateCharge, engine.config)({ amount: cents / 100 })
    )
    const id = TransactionId.make(charge.transactionId)
    yield* TestClock.adjust(Sandbox.settlementDelay(id))
    const net = Fees.forCharge(Fees.defaultPlan, Money.Cents(cents)).netAmount
    const store = yield* Store
    expect(yield* store.balance(m.test.merchant.id, "test")).toEqual({ available: net, held: 0 })
    return { m, id, net, store, engine }
  })

const medEvents = (store: Store["Type"], merchantId: string) =>
  Effect.map(store.listEvents(merchantId as never, "test"), (es) =>
    es
      .filter((e) => e.type.startsWith("chargeback."))
      .map((e) => ({ ...(e.data.chargeback as { status: string }), event: e.type }))
  )

const ledgerHolds = (store: Store["Type"]) =>
  Effect.gen(function* () {
    const check = yield* store.checkLedger("test")
    expect(check.unbalancedEntries).toEqual([])
    expect(check.balanceMismatches).toEqual([])
    expect(check.total).toBe(0)
  })

describe("sandbox MED magic values (TestClock)", () => {
  it.scoped("7.71: blocked 1 s after payment, upheld 2 s later with the whole amount returned", () =>
    Effect.gen(function* () {
      const { m, id, net, store, engine } = yield* magicCharge(771)
      yield* TestClock.adjust(999)
      expect((yield* store.balance(m.test.merchant.id, "test")).held).toBe(0)
      yield* TestClock.adjust(1)
      // The whole claim is blocked, but the balance had only the net: that is what is held.
      expect(yield* store.balance(m.test.merchant.id, "test")).toEqual({ available: 0, held: net })
      const [inf] = yield* engine.infractions.list({ merchantId: m.test.merchant.id, mode: "test" })
      expect(inf).toMatchObject({ status: "open", amountClaimed: 771, bankId: SandboxMed.bankIdOf(id) })
      yield* TestClock.adjust(2000)
      // The bank returned all 7.71: the fee's part is a shortfall the next credits settle.
      expect(yield* store.balance(m.test.merchant.id, "test")).toEqual({ available: net - 771, held: 0 })
      expect(Option.getOrThrow(yield* store.getTransaction(id)).status).toBe("refunded")
      const returns = yield* engine.infractions.returns(id)
      expect(returns).toMatchObject([{ id: SandboxMed.returnIdOf(id), amount: 771, nature: "MED_FRAUDE" }])
      const events = yield* medEvents(store, m.test.merchant.id)
      expect(events.map((e) => [e.event, e.status])).toEqual([
        ["chargeback.created", "open"],
        ["chargeback.updated", "accepted"]
      ])
      expect(events[1]).toMatchObject({
        returnedAmount: 7.71,
        blockedAmount: 0,
        returnIds: [SandboxMed.returnIdOf(id)]
      })
      yield* ledgerHolds(store)
    }).pipe(Effect.provide(testEngine()))
  )

  it.scoped(
    "7.72: upheld with a partial return of what the bank could block; the charge stays completed",
    () =>
      Effect.gen(function* () {
        const { m, id, net, store, engine } = yield* magicCharge(772)
        yield* TestClock.adjust(1000)
        expect(yield* store.balance(m.test.merchant.id, "test")).toEqual({
          available: net - SandboxMed.partialBlock,
          held: SandboxMed.partialBlock
        })
        yield* TestClock.adjust(2000)
        expect(yield* store.balance(m.test.merchant.id, "test")).toEqual({
          available: net - SandboxMed.partialBlock,
          held: 0
        })
        expect(Option.getOrThrow(yield* store.getTransaction(id)).status).toBe("completed")
        const [inf] = yield* engine.infractions.list({ merchantId: m.test.merchant.id, mode: "test" })
        expect(inf).toMatchObject({
          status: "accepted",
          returnedAmount: SandboxMed.partialBlock,
          blockedAmount: 0
        })
        yield* ledgerHolds(store)
      }).pipe(Effect.provide(testEngine()))
  )

  it.scoped("7.73: the merchant contests it, the bank rejects it, the block is released", () =>
    Effect.gen(function* () {
      const { m, net, store, engine } = yield* magicCharge(773)
      yield* TestClock.adjust(1500)
      const [inf] = yield* engine.infractions.list({ merchantId: m.test.merchant.id, mode: "test" })
      const answered = yield* engine.infractions.answer(
        { merchantId: m.test.merchant.id, mode: "test" },
        inf.id,
        {
          analysis: "contested",
          justification: "Serviço prestado"
        }
      )
      expect(answered).toMatchObject({ ok: true, value: { status: "defended" } })
      yield* TestClock.adjust(1500)
      expect(yield* store.balance(m.test.merchant.id, "test")).toEqual({ available: net, held: 0 })
      const events = yield* medEvents(store, m.test.merchant.id)
      expect(events.map((e) => e.status)).toEqual(["open", "defended", "rejected"])
      yield* ledgerHolds(store)
    }).pipe(Effect.provide(testEngine()))
  )

  it.scoped("7.74: cancelled by the payer's bank, the block is released", () =>
    Effect.gen(function* () {
      const { m, net, store } = yield* magicCharge(774)
      yield* TestClock.adjust(1000)
      expect((yield* store.balance(m.test.merchant.id, "test")).held).toBe(net)
      yield* TestClock.adjust(2000)
      expect(yield* store.balance(m.test.merchant.id, "test")).toEqual({ available: net, held: 0 })
      const events = yield* medEvents(store, m.test.merchant.id)
      expect(events.map((e) => e.status)).toEqual(["open", "cancelled"])
      yield* ledgerHolds(store)
    }).pipe(Effect.provide(testEngine()))
  )
})
