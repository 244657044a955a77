/**
 * `InfractionStore` (migration 0022): a block takes only what the available balance has, one
 * infraction per bank id, state changes only from the expected states, and a devolução booked
 * once by the bank's id (also when reported concurrently), from the block first and the
 * available balance for the rest; the ledger check holds after every unit.
 */
import { describe, expect } from "@effect/vitest"
import { type Domain, Ids, InfractionStore, Ledger, type MedInfractions, Money, Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import { baseTime, chargeInsert, completeCharge, effects, makeCharge, makeEvent } from "../fixtures.js"
import { freshMerchant, fund, type Suite } from "./helpers.js"

/** A merchant with one paid deposit of R$ 200.00. */
const paidDeposit = Effect.gen(function* () {
  const s = yield* Store.LedgerStore
  const merchant = yield* freshMerchant()
  const charge = makeCharge(merchant.id, { amount: 20_000 })
  yield* s.insertTransactions(chargeInsert(charge))
  const paid = yield* s.advance(completeCharge(charge, baseTime + 1_000))
  return { merchant, deposit: Option.getOrThrow(paid) }
})

let sequence = 0
const makeInfraction = (
  deposit: Domain.Transaction,
  options: { readonly claimed?: number; readonly at?: number } = {}
): MedInfractions.Infraction => {
  const at = options.at ?? baseTime + 2_000
  sequence++
  return {
    id: Ids.newId("inf", at) as MedInfractions.InfractionId,
    transactionId: deposit.id,
    merchantId: deposit.merchantId,
    mode: deposit.mode,
    bankId: `INF${Ids.newId("b", at).slice(2)}${sequence}`,
    endToEndId: deposit.endToEndId,
    type: "fraud",
    reason: "golpe do falso vendedor",
    amountClaimed: Money.Cents(options.claimed ?? 20_000),
    blockedAmount: Money.zero,
    returnedAmount: Money.zero,
    status: "open",
    answer: null,
    openedAt: at,
    deadline: at + 7 * 86_400_000,
    createdAt: at,
    updatedAt: at
  }
}

const open = (inf: MedInfractions.Infraction, block: number = inf.amountClaimed) =>
  Effect.flatMap(InfractionStore.InfractionStore, (s) =>
    s.openInfraction({
      infraction: inf,
      block: Money.Cents(block),
      entry: (o) => (o.blockedAmount > 0 ? Ledger.infractionBlocked(o, o.blockedAmount, o.createdAt) : null),
      effects: (o) => effects([makeEvent(o.merchantId, o.mode, "chargeback.created", { at: o.createdAt })])
    })
  )

const book = (
  deposit: Domain.Transaction,
  id: string,
  amount: number,
  options: {
    readonly infractionId?: MedInfractions.InfractionId
    readonly conclude?: boolean
    readonly at?: number
  } = {}
) =>
  Effect.flatMap(InfractionStore.InfractionStore, (s) => {
    const at = options.at ?? baseTime + 5_000
    return s.bookReturn({
      mode: deposit.mode,
      id,
      transactionId: deposit.id,
      infractionId: options.infractionId ?? null,
      nature: "MED_FRAUDE",
      amount: Money.Cents(amount),
      returnedAt: at,
      at,
      conclude: options.conclude ?? false,
      entries: (booked, inf, released) => [
        Ledger.infractionReturned(booked, at),
        ...(inf !== null && released > 0 ? [Ledger.infractionReleased(inf, released, at)] : [])
      ],
      effects: (booked) => effects([makeEvent(booked.merchantId, booked.mode, "chargeback.updated", { at })])
    })
  })

const ledgerHolds = Effect.gen(function* () {
  const check = yield* Effect.flatMap(Store.Store, (s) => s.checkLedger("test"))
  expect(check.unbalancedEntries).toEqual([])
  expect(check.balanceMismatches).toEqual([])
  expect(check.total).toBe(0)
})

/** Blocking on a report, and reports that find nothing. */
const blocking = (it: Suite<Store.Stores | InfractionStore.InfractionStore>) => {
  it.effect(
    "a block takes what the available balance has; a second report of the bank id blocks nothing",
    () =>
      Effect.gen(function* () {
        const s = yield* InfractionStore.InfractionStore
        const l = yield* Store.Store
        const { merchant, deposit } = yield* paidDeposit
        const net = deposit.netAmount
        const inf = makeInfraction(deposit, { claimed: 20_000 })
        const opened = yield* open(inf)
        expect(opened).toEqual({ _tag: "Opened", infraction: { ...inf, blockedAmount: net } })
        expect(yield* l.balance(merchant.id, "test")).toEqual({ available: 0, held: net })
        const again = yield* open({ ...makeInfraction(deposit), bankId: inf.bankId })
        expect(again).toEqual({ _tag: "Exists", infraction: { ...inf, blockedAmount: net } })
        expect(yield* l.balance(merchant.id, "test")).toEqual({ available: 0, held: net })
        expect(yield* s.getInfraction(inf.id)).toEqual(Option.some({ ...inf, blockedAmount: net }))
        expect(yield* s.findInfractionByBankId("test", inf.bankId)).toEqual(
          Option.some({ ...inf, blockedAmount: net })
        )
        expect(yield* s.findInfractionByBankId("live", inf.bankId)).toEqual(Option.none())
        // A second infraction on an empty balance blocks nothing.
        const second = yield* open(makeInfraction(deposit, { claimed: 500 }))
        expect(second._tag === "Opened" && second.infraction.blockedAmount).toBe(0)
        expect((yield* l.listEvents(merchant.id, "test")).map((e) => e.type)).toEqual([
          "chargeback.created",
          "chargeback.created"
        ])
        yield* ledgerHolds
      })
  )

  it.effect("an unpaid charge or another merchant's is not found and nothing is written", () =>
    Effect.gen(function* () {
      const l = yield* Store.Store
      const merchant = yield* freshMerchant()
      const charge = makeCharge(merchant.id, { amount: 1_000 })
      yield* l.insertTransactions(chargeInsert(charge))
      expect(yield* open(makeInfraction(charge))).toEqual({ _tag: "NotFound" })
      const { deposit } = yield* paidDeposit
      expect(yield* open({ ...makeInfraction(deposit), merchantId: merchant.id })).toEqual({
        _tag: "NotFound"
      })
      expect(yield* l.listEvents(merchant.id, "test")).toEqual([])
    })
  )
}

/** An infraction's state changes and releases. */
const stateChanges = (it: Suite<Store.Stores | InfractionStore.InfractionStore>) => {
  it.effect(
    "state changes only from the expected states; a release returns the block; the answer is kept",
    () =>
      Effect.gen(function* () {
        const s = yield* InfractionStore.InfractionStore
        const l = yield* Store.Store
        const { merchant, deposit } = yield* paidDeposit
        const inf = makeInfraction(deposit, { claimed: 5_000 })
        yield* open(inf)
        const answer = {
          analysis: "contested" as const,
          justification: "Produto entregue, NF 1234",
          at: baseTime + 3_000
        }
        const change = (
          from: ReadonlyArray<MedInfractions.InfractionStatus>,
          to: MedInfractions.InfractionStatus,
          release: boolean,
          at: number
        ) =>
          s.changeInfraction({
            id: inf.id,
            from,
            to,
            at,
            release,
            ...(to === "defended" ? { answer } : {}),
            entry: (current, released) => Ledger.infractionReleased(current, released, at),
            effects: (u) => effects([makeEvent(u.merchantId, u.mode, "chargeback.updated", { at })])
          })
        const defended = yield* change(["open"], "defended", false, baseTime + 3_000)
        expect(defended).toEqual(
          Option.some({
            ...inf,
            blockedAmount: 5_000,
            status: "defended",
            answer,
            updatedAt: baseTime + 3_000
          })
        )
        expect(yield* change(["open"], "defended", false, baseTime + 3_500)).toEqual(Option.none())
        const rejected = yield* change(["open", "defended"], "rejected", true, baseTime + 4_000)
        expect(Option.getOrThrow(rejected)).toMatchObject({ status: "rejected", blockedAmount: 0, answer })
        expect(yield* s.getInfraction(inf.id)).toEqual(rejected)
        expect(yield* l.balance(merchant.id, "test")).toEqual({ available: deposit.netAmount, held: 0 })
        expect(yield* s.listInfractions({ merchantId: merchant.id, mode: "test", limit: 10 })).toEqual([
          Option.getOrThrow(rejected)
        ])
        expect(
          yield* s.listInfractions({ merchantId: merchant.id, mode: "test", statuses: ["open"], limit: 10 })
        ).toEqual([])
        yield* ledgerHolds
      })
  )
}

/** Booking a devolução, and a partial return. */
const devolucoes = (it: Suite<Store.Stores | InfractionStore.InfractionStore>) => {
  it.effect(
    "a devolução is booked once, from the block first, then the available balance (below zero when short)",
    () =>
      Effect.gen(function* () {
        const s = yield* InfractionStore.InfractionStore
        const l = yield* Store.Store
        const { merchant, deposit } = yield* paidDeposit
        const net = deposit.netAmount
        const inf = makeInfraction(deposit, { claimed: 6_000 })
        yield* open(inf)
        const first = yield* book(deposit, "D1", 15_000, { infractionId: inf.id })
        expect(first._tag).toBe("Booked")
        if (first._tag !== "Booked") return
        expect(first.booked).toMatchObject({
          fromBlocked: 6_000,
          fromAvailable: 9_000,
          infractionId: inf.id
        })
        expect(first.infraction).toMatchObject({ blockedAmount: 0, returnedAmount: 15_000, status: "open" })
        expect(first.charge.status).toBe("completed")
        expect(yield* l.balance(merchant.id, "test")).toEqual({ available: net - 15_000, held: 0 })
        const again = yield* book(deposit, "D1", 15_000)
        expect(again).toEqual({ _tag: "Exists", booked: first.booked })
        // The rest of what it received, past the net: available goes below zero, the charge is refunded.
        const rest = yield* book(deposit, "D2", 5_000, { conclude: true })
        expect(rest._tag === "Booked" && rest.charge.status).toBe("refunded")
        expect(rest._tag === "Booked" && rest.infraction?.status).toBe("accepted")
        expect(yield* l.balance(merchant.id, "test")).toEqual({ available: net - 20_000, held: 0 })
        expect(yield* book(deposit, "D3", 1)).toEqual({ _tag: "Exceeds", returnable: 0 })
        expect((yield* s.listInfractionReturns(deposit.id)).map((r) => r.id)).toEqual(["D1", "D2"])
        expect(Option.getOrThrow(yield* l.getTransaction(deposit.id)).status).toBe("refunded")
        // A credit settles the shortfall first.
        yield* fund(merchant.id, "test", 20_000)
        expect((yield* l.balance(merchant.id, "test")).available).toBe(net)
        yield* ledgerHolds
      })
  )

  it.effect("concluding with a partial return releases what is left blocked", () =>
    Effect.gen(function* () {
      const l = yield* Store.Store
      const { merchant, deposit } = yield* paidDeposit
      const inf = makeInfraction(deposit, { claimed: 8_000 })
      yield* open(inf)
      const done = yield* book(deposit, "P1", 3_000, { infractionId: inf.id, conclude: true })
      expect(done._tag === "Booked" && done.infraction).toMatchObject({
        status: "accepted",
        blockedAmount: 0,
        returnedAmount: 3_000
      })
      expect(yield* l.balance(merchant.id, "test")).toEqual({
        available: deposit.netAmount - 3_000,
        held: 0
      })
      yield* ledgerHolds
    })
  )
}

/** Concurrent reports of one devolução. */
const concurrentReports = (it: Suite<Store.Stores | InfractionStore.InfractionStore>) => {
  it.effect("ten concurrent reports of one devolução book it once", () =>
    Effect.gen(function* () {
      const s = yield* InfractionStore.InfractionStore
      const l = yield* Store.Store
      const { merchant, deposit } = yield* paidDeposit
      yield* open(makeInfraction(deposit, { claimed: 4_000 }))
      const results = yield* Effect.all(
        Array.from({ length: 10 }, () => Effect.either(book(deposit, "RACE1", 4_000))),
        { concurrency: "unbounded" }
      )
      const booked = results.filter((r) => r._tag === "Right" && r.right._tag === "Booked")
      expect(booked).toHaveLength(1)
      expect(yield* s.listInfractionReturns(deposit.id)).toHaveLength(1)
      expect(yield* l.balance(merchant.id, "test")).toEqual({
        available: deposit.netAmount - 4_000,
        held: 0
      })
      yield* ledgerHolds
    })
  )
}

/** Registers the infraction tests. */
export const infractions = (it: Suite<Store.Stores | InfractionStore.InfractionStore>) =>
  describe("infractions (MED)", () => {
    blocking(it)
    stateChanges(it)
    devolucoes(it)
    concurrentReports(it)
  })
