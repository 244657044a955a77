/**
 * Live subscriptions over the RecurringGateway port, against a bank in memory: a create whose
 * outcome is unknown is found at the bank (never created twice), the bank's reports approve it
 * and pay its cycle (booked like a live charge), a cancellation goes to the bank.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer, Option, TestClock } from "effect"
import * as MemoryStore from "../src/adapters/MemoryStore.js"
import type * as Money from "../src/domain/Money.js"
import * as Engine from "../src/Engine.js"
import { GatewayFailure } from "../src/ports/BankGateway.js"
import type * as RG from "../src/ports/RecurringGateway.js"
import * as Store from "../src/ports/Store.js"
import * as WebhookTransport from "../src/ports/WebhookTransport.js"
import type { Caller } from "../src/services/Auth.js"
import * as Subscriptions from "../src/services/Subscriptions.js"
import { start } from "./support/subscriptions.js"

/** A receiver's bank in memory: its first POST /rec is carried out but answers a time-out. */
const fakeBank = () => {
  const recs = new Map<string, RG.RecurrenceSnapshot>()
  const cobrs = new Map<string, RG.CycleChargeSnapshot>()
  let creates = 0
  let puts = 0
  const recurring: RG.RecurringGateway = {
    pollDelay: 5_000,
    createLocation: () =>
      Effect.succeed({
        id: "108",
        location: "bank.example/qr/v2/rec/abc",
        criacao: new Date(start).toISOString()
      }),
    createRecurrence: (request) =>
      Effect.suspend(() => {
        creates++
        const idRec = `RR12345678${"20261202"}${String(creates).padStart(11, "0")}`
        recs.set(idRec, {
          idRec,
          status: "CRIADA",
          vinculo: request.vinculo,
          calendario: request.calendario,
          valor: request.valor,
          politicaRetentativa: request.politicaRetentativa,
          atualizacao: [{ status: "CRIADA", data: new Date(start).toISOString() }]
        })
        return creates === 1
          ? Effect.fail(new GatewayFailure({ message: "time-out", outcome: "unknown" }))
          : Effect.succeed(recs.get(idRec) as RG.RecurrenceSnapshot)
      }),
    readRecurrence: (idRec) => Effect.succeed(Option.fromNullable(recs.get(idRec))),
    findRecurrences: () => Effect.succeed([...recs.values()]),
    cancelRecurrence: (idRec) =>
      Effect.suspend(() => {
        const rec = recs.get(idRec) as RG.RecurrenceSnapshot
        const next: RG.RecurrenceSnapshot = {
          ...rec,
          status: "CANCELADA",
          atualizacao: [...rec.atualizacao, { status: "CANCELADA", data: new Date(start).toISOString() }],
          encerramento: { cancelamento: { solicitante: "USUARIO_RECEBEDOR", codigo: "SLCR", descricao: "x" } }
        }
        recs.set(idRec, next)
        return Effect.succeed(next)
      }),
    requestAuthorization: () => Effect.fail(new GatewayFailure({ message: "not in this test" })),
    readSolicitation: () => Effect.succeed(Option.none()),
    cancelSolicitation: () => Effect.fail(new GatewayFailure({ message: "not in this test" })),
    createCycleCharge: (txid, request) =>
      Effect.sync(() => {
        puts++
        const snap: RG.CycleChargeSnapshot = cobrs.get(txid) ?? {
          idRec: request.idRec,
          txid,
          status: "ATIVA",
          calendario: { dataDeVencimento: request.dataDeVencimento },
          valor: request.valor,
          atualizacao: [
            { status: "CRIADA", data: "2026-12-02T15:00:00Z" },
            { status: "ATIVA", data: "2026-12-02T15:00:00Z" }
          ],
          tentativas: [
            {
              dataLiquidacao: request.dataDeVencimento,
              tipo: "AGND",
              endToEndId: "E12345678202612101500abcdefghijk",
              status: "AGENDADA",
              atualizacao: [{ status: "AGENDADA", data: "2026-12-02T15:00:00Z" }]
            }
          ]
        }
        cobrs.set(txid, snap)
        return snap
      }),
    readCycleCharge: (txid) => Effect.succeed(Option.fromNullable(cobrs.get(txid))),
    requestRetry: () => Effect.fail(new GatewayFailure({ message: "not in this test" })),
    cancelCycleCharge: () => Effect.fail(new GatewayFailure({ message: "not in this test" }))
  }
  const gateway: RG.RecurringBankGateway = {
    capabilities: {
      charges: true,
      dueDateCharges: true,
      sends: false,
      refunds: false,
      reconciliation: false,
      recurring: true,
      infractions: false
    },
    createCharge: () => Effect.succeed({ location: "bank.example/qr/v2/cob" }),
    timers: () => [],
    recurring
  }
  return { gateway, recs, cobrs, counts: () => ({ creates, puts }) }
}

describe("live subscriptions over the RecurringGateway port", () => {
  it.effect(
    "an unknown create found by asking, approval and payment reported, a cancellation at the bank",
    () => {
      const bank = fakeBank()
      const layer = Subscriptions.layer.pipe(
        Layer.provideMerge(Engine.layer({ liveGateway: bank.gateway, worker: false })),
        Layer.provideMerge(Store.fromFull),
        Layer.provideMerge(MemoryStore.layer),
        Layer.provide(WebhookTransport.fetch)
      )
      return Effect.gen(function* () {
        yield* TestClock.setTime(start)
        const engine = yield* Engine.Engine
        const created = yield* engine.admin.createMerchant({ name: "Academia Forte", city: "Sao Paulo" })
        const caller: Caller = yield* engine.auth.authenticate(created.liveKey)
        const subs = yield* Subscriptions.Subscriptions
        const sub = yield* subs.create(caller, {
          jornada: "JORNADA_2",
          vinculo: { contrato: "GYM-7", devedor: { cpf: "12345678909", nome: "Ana" } },
          calendario: { dataInicial: "2026-12-10", periodicidade: "MENSAL" },
          valor: { valorRec: 9990 },
          politicaRetentativa: "PERMITE_3R_7D"
        })
        // The bank did it but answered a time-out: stored without its idRec, found by asking.
        expect(sub.idRec).toBeNull()
        yield* TestClock.adjust(Duration.seconds(6))
        while ((yield* subs.tick) > 0) {}
        const found = yield* subs.get(caller, sub.id)
        expect(found.idRec).toBe([...bank.recs.keys()][0])
        expect(bank.counts().creates).toBe(1)
        // The bank reports the payer's approval (a callback confirmed with a read).
        const idRec = found.idRec as string
        const approved: RG.RecurrenceSnapshot = {
          ...(bank.recs.get(idRec) as RG.RecurrenceSnapshot),
          status: "APROVADA",
          atualizacao: [
            { status: "CRIADA", data: "2026-12-02T15:00:00Z" },
            { status: "APROVADA", data: "2026-12-02T15:00:10Z" }
          ],
          ativacao: { tipoJornada: "JORNADA_2" }
        }
        bank.recs.set(idRec, approved)
        expect(yield* subs.reports.recurrenceRead(approved)).toBe(true)
        expect(yield* subs.reports.recurrenceRead(approved)).toBe(false)
        while ((yield* subs.tick) > 0) {}
        const [cycle] = yield* subs.cycles(caller, sub.id)
        expect(cycle?.status).toBe("ATIVA")
        expect(bank.counts().puts).toBe(1)
        // The bank reports the cycle paid: booked like a live charge, once.
        const cobr = bank.cobrs.get(cycle?.txid as string) as RG.CycleChargeSnapshot
        const paid: RG.CycleChargeSnapshot = {
          ...cobr,
          status: "CONCLUIDA",
          atualizacao: [...cobr.atualizacao, { status: "CONCLUIDA", data: "2026-12-10T13:00:00Z" }],
          pix: [
            {
              endToEndId: "E12345678202612101500abcdefghijk",
              txid: cobr.txid,
              valor: 9990 as Money.Cents,
              horario: "2026-12-02T16:00:00Z"
            }
          ]
        }
        expect(yield* subs.reports.cycleChargeRead(paid)).toBe(true)
        expect(yield* subs.reports.cycleChargeRead(paid)).toBe(false)
        const store = yield* Store.Store
        const tx = yield* store.getTransaction(cycle?.transactionId as never)
        expect(Option.map(tx, (t) => t.status)).toEqual(Option.some("completed"))
        const check = yield* store.checkLedger("live")
        expect(check.unbalancedEntries).toEqual([])
        expect(check.balanceMismatches).toEqual([])
        // The merchant cancels: at the bank first.
        const cancelled = yield* subs.cancel(caller, sub.id)
        expect(cancelled.status).toBe("CANCELADA")
        expect(bank.recs.get(idRec)?.status).toBe("CANCELADA")
      }).pipe(Effect.provide(layer))
    }
  )
})
