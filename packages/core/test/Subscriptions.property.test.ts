/**
 * Property tests of subscriptions over random calendars, payers, retries and cancellations on a
 * TestClock: never two debits per cycle, never a cycle after the end or a cancellation or
 * revocation, never a retry outside PERMITE_3R_7D, and the ledger check passes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, FastCheck as fc, TestClock, TestContext } from "effect"
import * as DueDate from "../src/domain/DueDate.js"
import * as R from "../src/domain/Recurrence.js"
import * as Store from "../src/ports/Store.js"
import { SubscriptionStore } from "../src/ports/SubscriptionStore.js"
import * as Subscriptions from "../src/services/Subscriptions.js"
import { setup, subscriptionsEngine } from "./support/subscriptions.js"

const step = fc.oneof(
  fc.record({ op: fc.constant("wait" as const), hours: fc.integer({ min: 1, max: 24 * 20 }) }),
  fc.record({ op: fc.constant("retry" as const), inDays: fc.integer({ min: -1, max: 9 }) }),
  fc.record({ op: fc.constant("cancel" as const) }),
  fc.record({ op: fc.constant("revoke" as const) }),
  fc.record({
    op: fc.constant("noFunds" as const),
    cycles: fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 3 })
  }),
  fc.record({ op: fc.constant("payOnRetry" as const), pay: fc.boolean() }),
  fc.record({
    op: fc.constant("maximum" as const),
    cents: fc.option(fc.integer({ min: 1000, max: 20_000 }), { nil: null })
  })
)

const scenario = fc.record({
  periodicidade: fc.constantFrom(...R.periodicidades),
  startIn: fc.integer({ min: 0, max: 40 }),
  length: fc.option(fc.integer({ min: 0, max: 200 }), { nil: null }),
  politica: fc.constantFrom(...R.politicas),
  jornada: fc.constantFrom(...R.jornadas),
  steps: fc.array(step, { minLength: 1, maxLength: 12 })
})

describe("subscriptions, properties", () => {
  it.effect(
    "never two debits per cycle, no cycle after an end, no retry outside the policy, the ledger balances",
    () =>
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(scenario, (sc) =>
            Effect.runPromise(
              Effect.gen(function* () {
                const { caller, merchantId } = yield* setup
                const subs = yield* Subscriptions.Subscriptions
                const store = yield* SubscriptionStore
                const ledger = yield* Store.Store
                const today = DueDate.dayOf(yield* Effect.clockWith((c) => c.currentTimeMillis))
                const start = today + sc.startIn
                const created = yield* subs.create(caller, {
                  jornada: sc.jornada,
                  vinculo: { contrato: "P-1", devedor: { cpf: "12345678909", nome: "Ana" } },
                  calendario: {
                    dataInicial: DueDate.formatDay(start),
                    ...(sc.length === null ? {} : { dataFinal: DueDate.formatDay(start + sc.length) }),
                    periodicidade: sc.periodicidade
                  },
                  valor: { valorRec: 9990 },
                  politicaRetentativa: sc.politica,
                  ...(sc.jornada === "JORNADA_1"
                    ? { pagador: { ispbParticipante: "60701190", conta: "1" } }
                    : {}),
                  ...(sc.jornada === "JORNADA_3" ? { cobranca: { valor: 1000 } } : {}),
                  ...(sc.jornada === "JORNADA_4"
                    ? { cobranca: { valor: 1000, dueDate: DueDate.formatDay(start) } }
                    : {})
                })
                let endedAt: number | null = null
                let retries = 0
                const tickAll = Effect.gen(function* () {
                  while ((yield* subs.tick) > 0) {}
                })
                yield* TestClock.adjust(Duration.seconds(3))
                yield* tickAll
                for (const s of sc.steps) {
                  const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
                  switch (s.op) {
                    case "wait":
                      for (let h = 0; h < s.hours; h += 12) {
                        yield* TestClock.adjust(Duration.hours(Math.min(12, s.hours - h)))
                        yield* tickAll
                      }
                      break
                    case "retry": {
                      const cycles = yield* store.listCycles(created.id)
                      const target = cycles.find((c) => c.status === "ATIVA")
                      if (target === undefined) break
                      const r = yield* Effect.either(
                        subs.retry(caller, target.txid, DueDate.formatDay(DueDate.dayOf(now) + s.inDays))
                      )
                      if (r._tag === "Right") retries++
                      break
                    }
                    case "cancel":
                    case "revoke": {
                      const r = yield* Effect.either(
                        s.op === "cancel"
                          ? subs.cancel(caller, created.id)
                          : subs.payer(merchantId, created.id, { _tag: "revoke" })
                      )
                      if (r._tag === "Right" && endedAt === null) endedAt = now
                      break
                    }
                    case "noFunds":
                      yield* Effect.either(
                        subs.payer(merchantId, created.id, { _tag: "insufficientFunds", cycles: s.cycles })
                      )
                      break
                    case "payOnRetry":
                      yield* Effect.either(
                        subs.payer(merchantId, created.id, { _tag: "payOnRetry", pay: s.pay })
                      )
                      break
                    case "maximum":
                      yield* Effect.either(
                        subs.payer(merchantId, created.id, { _tag: "setMaximum", cents: s.cents })
                      )
                      break
                  }
                }
                const cycles = yield* store.listCycles(created.id)
                const sub = yield* subs.get(caller, created.id)
                // One cycle per sequence, in the calendar, none created after the end.
                expect(new Set(cycles.map((c) => c.sequence)).size).toBe(cycles.length)
                const calendar: R.Calendar = {
                  dataInicial: start,
                  dataFinal: sc.length === null ? null : start + sc.length,
                  periodicidade: sc.periodicidade
                }
                let completed = 0
                for (const c of cycles) {
                  expect(R.cycleExists(calendar, c.sequence)).toBe(true)
                  expect(DueDate.checkedDay(c.dataDeVencimento)).toBeGreaterThanOrEqual(start)
                  if (endedAt !== null) expect(c.createdAt).toBeLessThanOrEqual(endedAt)
                  if (sub.status !== "APROVADA" && sub.status !== "CANCELADA") expect(cycles).toEqual([])
                  // At most one paid attempt, and paid means the charge completed once.
                  const paid = c.tentativas.filter((t) => t.status === "PAGA")
                  expect(paid.length).toBeLessThanOrEqual(1)
                  const tx = yield* ledger.getTransaction(c.transactionId)
                  if (paid.length === 1) {
                    completed++
                    expect(c.status).toBe("CONCLUIDA")
                    expect(tx._tag === "Some" && tx.value.status).toBe("completed")
                  } else if (tx._tag === "Some") expect(tx.value.status).not.toBe("completed")
                  // Retries: only under PERMITE_3R_7D, at most 3, on dates of their own within 7 days.
                  const ntag = c.tentativas.filter((t) => t.tipo === "NTAG")
                  if (c.politicaRetentativa === "NAO_PERMITE") expect(ntag).toEqual([])
                  expect(ntag.length).toBeLessThanOrEqual(3)
                  const days = c.tentativas.map((t) => DueDate.checkedDay(t.dataLiquidacao))
                  expect(new Set(days).size).toBe(days.length)
                  for (const d of days.slice(1)) {
                    expect(d - DueDate.checkedDay(c.dataLiquidacao)).toBeLessThanOrEqual(7)
                    expect(DueDate.isBusinessDay(d)).toBe(true)
                  }
                }
                expect(retries).toBeLessThanOrEqual(cycles.length * 3)
                expect(completed).toBeLessThanOrEqual(cycles.length)
                const check = yield* ledger.checkLedger("test")
                expect(check.unbalancedEntries).toEqual([])
                expect(check.balanceMismatches).toEqual([])
              }).pipe(Effect.provide(subscriptionsEngine()), Effect.provide(TestContext.TestContext))
            )
          ),
          { numRuns: 40 }
        )
      ),
    300_000
  )
})
