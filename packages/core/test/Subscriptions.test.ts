/**
 * Subscriptions (Pix Automático) in the sandbox on a TestClock: each journey from creation to the
 * third cycle, the payer's answers, retries under PERMITE_3R_7D, cancellation by either side,
 * the payer's maximum; money booked like charges (the ledger check passes).
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Option, TestClock } from "effect"
import * as DueDate from "../src/domain/DueDate.js"
import * as R from "../src/domain/Recurrence.js"
import * as Store from "../src/ports/Store.js"
import { SubscriptionStore } from "../src/ports/SubscriptionStore.js"
import * as Subscriptions from "../src/services/Subscriptions.js"
import { setup, start, subscriptionsEngine } from "./support/subscriptions.js"

/** Runs the worker's tick after each step of the clock, `days` days of `hours`-hour steps. */
export const advance = (hours: number) =>
  Effect.gen(function* () {
    const subs = yield* Subscriptions.Subscriptions
    for (let h = 0; h < hours; h += 6) {
      yield* TestClock.adjust(Duration.hours(6))
      // Several passes: a change can make more work due at once (approve, then the first cycle).
      while ((yield* subs.tick) > 0) {}
    }
  })

const gym = (
  jornada: R.Jornada,
  extra: Partial<Subscriptions.CreateSubscription> = {}
): Subscriptions.CreateSubscription => ({
  jornada,
  vinculo: {
    contrato: "GYM-0042",
    devedor: { cpf: "12345678909", nome: "Ana Souza" },
    objeto: "Plano mensal"
  },
  calendario: { dataInicial: "2026-12-10", periodicidade: "MENSAL" },
  valor: { valorRec: 9990 },
  politicaRetentativa: "PERMITE_3R_7D",
  ...(jornada === "JORNADA_1"
    ? { pagador: { ispbParticipante: "60701190", conta: "123456", agencia: "0001" } }
    : {}),
  ...(jornada === "JORNADA_3" ? { cobranca: { valor: 4990 } } : {}),
  ...(jornada === "JORNADA_4" ? { cobranca: { valor: 4990, dueDate: "2026-12-07" } } : {}),
  ...extra
})

const txStatus = (id: string) =>
  Effect.map(
    Effect.flatMap(Store.Store, (s) => s.getTransaction(id as never)),
    (tx) => Option.match(tx, { onNone: () => "none", onSome: (t) => t.status })
  )

const ledgerOk = Effect.gen(function* () {
  const check = yield* (yield* Store.Store).checkLedger("test")
  expect(check.unbalancedEntries).toEqual([])
  expect(check.balanceMismatches).toEqual([])
})

describe("subscriptions in the sandbox", () => {
  it.effect(
    "each journey: approved 2-3 s after creation, three monthly cycles paid and booked like charges",
    () =>
      Effect.gen(function* () {
        const { engine, caller, merchantId } = yield* setup
        const subs = yield* Subscriptions.Subscriptions
        for (const jornada of R.jornadas) {
          const created = yield* subs.create(caller, gym(jornada))
          expect(created.status).toBe("CRIADA")
          expect(R.isIdRec(created.idRec as string)).toBe(true)
          expect(created.idRec?.startsWith("RR")).toBe(true)
          if (jornada === "JORNADA_1") {
            expect(created.solicitacao?.status).toBe("ENVIADA")
            expect(created.dadosQR).toBeUndefined()
          } else {
            expect(created.dadosQR?.jornada).toBe(jornada)
            // The composite QR carries the recurrence's location in field 80.
            expect(created.dadosQR?.pixCopiaECola).toContain(created.loc?.location as string)
          }
        }
        yield* TestClock.adjust(Duration.seconds(3))
        while ((yield* subs.tick) > 0) {}
        const listed = yield* subs.list(caller, { limit: 10 })
        expect(listed.map((s) => s.status)).toEqual(["APROVADA", "APROVADA", "APROVADA", "APROVADA"])
        for (const s of listed) expect(s.ativacao.tipoJornada).toBe(s.jornada)
        const j1 = listed.find((s) => s.jornada === "JORNADA_1")
        expect(j1?.solicitacao?.atualizacao.map((a) => a.status)).toEqual([
          "CRIADA",
          "ENVIADA",
          "RECEBIDA",
          "ACEITA"
        ])
        // Cycles: 10 Dec (a Thursday), 10 Jan 2027 (a Sunday: settles Monday 11), 10 Feb 2027 (Carnival
        // Wednesday is 10 Feb: Monday 8 and Tuesday 9 are holidays, the 10th is a business day).
        yield* advance(24 * 75)
        for (const s of listed) {
          const cycles = yield* subs.cycles(caller, s.id)
          expect(
            cycles
              .slice(0, 3)
              .map((c) => [c.ciclo, c.calendario.dataDeVencimento, c.dataLiquidacao, c.status])
          ).toEqual([
            [1, "2026-12-10", "2026-12-10", "CONCLUIDA"],
            [2, "2027-01-10", "2027-01-11", "CONCLUIDA"],
            [3, "2027-02-10", "2027-02-10", "CONCLUIDA"]
          ])
          // Never two per cycle: one per sequence.
          expect(new Set(cycles.map((c) => c.ciclo)).size).toBe(cycles.length)
          for (const c of cycles.slice(0, 3)) {
            expect(yield* txStatus(c.transactionId)).toBe("completed")
          }
        }
        const balance = yield* engine.admin.balance(merchantId, "test")
        expect(balance.available).toBeGreaterThan(0)
        yield* ledgerOk
      }).pipe(Effect.provide(subscriptionsEngine())),
    120_000
  )

  it.effect("a rejection, and an unanswered recurrence that expires (EXPIRADA, also on read)", () =>
    Effect.gen(function* () {
      const { caller } = yield* setup
      const subs = yield* Subscriptions.Subscriptions
      const rejected = yield* subs.create(
        caller,
        gym("JORNADA_2", {
          vinculo: { contrato: "GYM-1-REJEITA", devedor: { cpf: "12345678909", nome: "Ana" } }
        })
      )
      const waiting = yield* subs.create(
        caller,
        gym("JORNADA_1", {
          vinculo: { contrato: "GYM-2-ESPERA", devedor: { cpf: "12345678909", nome: "Bia" } },
          dataExpiracaoSolicitacao: new Date(start + 86_400_000).toISOString()
        })
      )
      yield* TestClock.adjust(Duration.seconds(3))
      while ((yield* subs.tick) > 0) {}
      const r = yield* subs.get(caller, rejected.id)
      expect(r.status).toBe("REJEITADA")
      expect(r.encerramento?.rejeicao?.codigo).toBe("AP13")
      expect((yield* subs.get(caller, waiting.id)).status).toBe("CRIADA")
      // Past the push request's expiry, a read shows it expired without waiting for the worker.
      yield* TestClock.adjust(Duration.hours(25))
      const expired = yield* subs.get(caller, waiting.id)
      expect(expired.status).toBe("EXPIRADA")
      expect(expired.solicitacao?.status).toBe("EXPIRADA")
      expect(yield* subs.cycles(caller, waiting.id)).toEqual([])
    }).pipe(Effect.provide(subscriptionsEngine()))
  )

  it.effect("no funds on cycle 2: the debit is rejected, retries within the policy, paid on a retry", () =>
    Effect.gen(function* () {
      const { caller, merchantId } = yield* setup
      const subs = yield* Subscriptions.Subscriptions
      const s = yield* subs.create(caller, gym("JORNADA_2"))
      yield* subs.payer(merchantId, s.id, { _tag: "insufficientFunds", cycles: [2] })
      yield* subs.payer(merchantId, s.id, { _tag: "payOnRetry", pay: false })
      yield* advance(24 * 41) // to 12 January 2027: cycle 2 settled (rejected) on Monday 11
      const [, second] = yield* subs.cycles(caller, s.id)
      expect(second?.status).toBe("ATIVA")
      expect(second?.tentativas.map((t) => [t.tipo, t.status, t.rejeicao?.codigo])).toEqual([
        ["AGND", "REJEITADA", "NIEC"]
      ])
      const txid = second?.txid as string
      const retry = (data: string) => Effect.either(subs.retry(caller, txid, data))
      // Outside the policy: a past date, a weekend, beyond 7 days after the due date.
      for (const bad of ["2027-01-11", "2027-01-16", "2027-01-19"]) {
        const r = yield* retry(bad)
        expect(Either.isLeft(r) && r.left._tag === "Refused" && r.left.code).toBe("retry_not_allowed")
      }
      expect(Either.isRight(yield* retry("2027-01-13"))).toBe(true)
      // Never while one is pending.
      expect(Either.isLeft(yield* retry("2027-01-14"))).toBe(true)
      yield* advance(24) // 13 Jan: the retry of the 13th failed too (no pay on retry)
      expect(Either.isRight(yield* retry("2027-01-14"))).toBe(true)
      yield* subs.payer(merchantId, s.id, { _tag: "payOnRetry", pay: true })
      yield* advance(24)
      const paid = (yield* subs.cycles(caller, s.id))[1]
      expect(paid?.status).toBe("CONCLUIDA")
      expect(paid?.tentativas.map((t) => [t.tipo, t.status])).toEqual([
        ["AGND", "REJEITADA"],
        ["NTAG", "REJEITADA"],
        ["NTAG", "PAGA"]
      ])
      // A paid cycle takes no retry.
      expect(Either.isLeft(yield* retry("2027-01-18"))).toBe(true)
      yield* ledgerOk
    }).pipe(Effect.provide(subscriptionsEngine()))
  )

  it.effect("NAO_PERMITE: a rejected debit rejects the cycle and fails its charge; the payer's maximum", () =>
    Effect.gen(function* () {
      const { caller, merchantId } = yield* setup
      const subs = yield* Subscriptions.Subscriptions
      const s = yield* subs.create(caller, gym("JORNADA_2", { politicaRetentativa: "NAO_PERMITE" }))
      expect(s.idRec?.startsWith("RN")).toBe(true)
      yield* TestClock.adjust(Duration.seconds(3))
      while ((yield* subs.tick) > 0) {}
      yield* subs.payer(merchantId, s.id, { _tag: "setMaximum", cents: 5000 })
      yield* advance(24 * 9)
      const [first] = yield* subs.cycles(caller, s.id)
      expect(first?.status).toBe("REJEITADA")
      expect(first?.encerramento?.rejeicao?.codigo).toBe("AM02")
      expect(yield* txStatus(first?.transactionId as string)).toBe("failed")
      const r = yield* Effect.either(subs.retry(caller, first?.txid as string, "2027-01-12"))
      expect(Either.isLeft(r)).toBe(true)
      yield* ledgerOk
    }).pipe(Effect.provide(subscriptionsEngine()))
  )

  it.effect("cancellation by the merchant and revocation by the payer: no cycle after the end", () =>
    Effect.gen(function* () {
      const { caller, merchantId } = yield* setup
      const subs = yield* Subscriptions.Subscriptions
      const byMerchant = yield* subs.create(caller, gym("JORNADA_2"))
      const byPayer = yield* subs.create(caller, gym("JORNADA_1"))
      yield* advance(24 * 2) // 4 Dec: cycle 1 (10 Dec) created for both
      expect((yield* subs.cycles(caller, byMerchant.id)).map((c) => c.status)).toEqual(["ATIVA"])
      const cancelled = yield* subs.cancel(caller, byMerchant.id)
      expect(cancelled.status).toBe("CANCELADA")
      expect(cancelled.encerramento?.cancelamento).toMatchObject({
        solicitante: "USUARIO_RECEBEDOR",
        codigo: "SLCR"
      })
      const revoked = yield* subs.payer(merchantId, byPayer.id, { _tag: "revoke" })
      expect(revoked.encerramento?.cancelamento).toMatchObject({
        solicitante: "USUARIO_PAGADOR",
        codigo: "SLDB"
      })
      expect(revoked.solicitacao?.status).toBe("ACEITA")
      yield* advance(24 * 100)
      for (const id of [byMerchant.id, byPayer.id]) {
        const cycles = yield* subs.cycles(caller, id)
        expect(cycles.map((c) => c.status)).toEqual(["CANCELADA"])
      }
      const again = yield* Effect.either(subs.cancel(caller, byMerchant.id))
      expect(Either.isLeft(again) && again.left._tag === "Refused" && again.left.code).toBe(
        "subscription_not_cancellable"
      )
      yield* ledgerOk
    }).pipe(Effect.provide(subscriptionsEngine()))
  )

  it.effect("bad input is a 4xx with the field at fault", () =>
    Effect.gen(function* () {
      const { caller } = yield* setup
      const subs = yield* Subscriptions.Subscriptions
      const bad = [
        gym("JORNADA_2", { valor: { valorRec: 100, valorMinimoRecebedor: 50 } }),
        gym("JORNADA_2", { calendario: { dataInicial: "2026-12-01", periodicidade: "MENSAL" } }),
        gym("JORNADA_2", {
          calendario: { dataInicial: "2027-01-10", dataFinal: "2027-01-01", periodicidade: "MENSAL" }
        }),
        gym("JORNADA_1", { pagador: undefined }),
        gym("JORNADA_3", { cobranca: undefined }),
        gym("JORNADA_2", { vinculo: { contrato: "x", devedor: { cpf: "1", nome: "A" } } })
      ]
      for (const input of bad) {
        const r = yield* Effect.either(subs.create(caller, input))
        expect(Either.isLeft(r) && r.left._tag).toBe("ValidationError")
      }
      const store = yield* SubscriptionStore
      expect(
        yield* store.listSubscriptions({ merchantId: caller.merchant.id, mode: "test", limit: 10 })
      ).toEqual([])
      expect(Option.isNone(yield* store.getSubscription("sub_none"))).toBe(true)
      expect(DueDate.isBusinessDay(DueDate.checkedDay("2027-02-10"))).toBe(true)
    }).pipe(Effect.provide(subscriptionsEngine()))
  )
})
