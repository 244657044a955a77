/** Subscriptions (Pix Automático recurrences) and their cycles (migration 0023). */
import { describe, expect } from "@effect/vitest"
import { Ids, type Recurrence, SubscriptionStore } from "@pixgate/core"
import { Effect, Option } from "effect"
import { baseTime } from "../fixtures.js"
import type { Suite } from "./helpers.js"

const store = SubscriptionStore.SubscriptionStore

/** A new subscription of a fresh merchant (or `merchantId`). */
export const subscriptionRecord = (
  overrides: Partial<Recurrence.Subscription> = {},
  at = baseTime
): Recurrence.Subscription => ({
  id: Ids.newId("sub", at),
  merchantId: Ids.merchantId(at),
  mode: "test",
  idRec: `RR12345678${"20260302"}${Ids.randomBase62(11)}`,
  jornada: "JORNADA_2",
  vinculo: { contrato: "C-1", devedor: { cpf: "12345678909", nome: "Ana" }, objeto: "Academia" },
  calendario: { dataInicial: "2026-04-01", dataFinal: null, periodicidade: "MENSAL" },
  valor: { valorRec: 9990, valorMinimoRecebedor: null },
  politicaRetentativa: "PERMITE_3R_7D",
  status: "CRIADA",
  atualizacao: [{ status: "CRIADA", data: new Date(at).toISOString() }],
  encerramento: null,
  tipoJornada: "AGUARDANDO_DEFINICAO",
  chargeId: null,
  txid: null,
  solicitacao: null,
  location: "pix.example.com/qr/v2/rec/abc",
  pixCopiaECola: "000201",
  valorMaximoPagador: null,
  valorCiclo: 9990,
  payer: null,
  nextCycle: 0,
  nextAt: null,
  createdAt: at,
  updatedAt: at,
  version: 1,
  ...overrides
})

/** A new cycle of `subscription`. */
export const cycleRecord = (
  subscription: Recurrence.Subscription,
  sequence: number,
  overrides: Partial<Recurrence.Cycle> = {}
): Recurrence.Cycle => ({
  txid: Ids.newTxid(baseTime),
  subscriptionId: subscription.id,
  merchantId: subscription.merchantId,
  mode: subscription.mode,
  idRec: subscription.idRec ?? "",
  sequence,
  dataDeVencimento: "2026-04-01",
  dataLiquidacao: "2026-04-01",
  ajusteDiaUtil: true,
  valor: 9990,
  politicaRetentativa: subscription.politicaRetentativa,
  status: "CRIADA",
  atualizacao: [{ status: "CRIADA", data: new Date(baseTime).toISOString() }],
  encerramento: null,
  tentativas: [],
  transactionId: Ids.transactionId(baseTime),
  nextAt: null,
  createdAt: baseTime,
  updatedAt: baseTime,
  version: 1,
  ...overrides
})

/** Storing, versions and what is due. */
const storingAndDue = (it: Suite<SubscriptionStore.SubscriptionStore>) => {
  it.effect("stores, reads by id and idRec, lists newest first by merchant, mode and status", () =>
    Effect.gen(function* () {
      const s = yield* store
      const a = subscriptionRecord({}, baseTime)
      const b = subscriptionRecord({ merchantId: a.merchantId, status: "APROVADA" }, baseTime + 1)
      const other = subscriptionRecord({ merchantId: a.merchantId, mode: "live" }, baseTime + 2)
      for (const x of [a, b, other]) expect(yield* s.insertSubscription(x)).toBe("created")
      expect(yield* s.getSubscription(a.id)).toEqual(Option.some(a))
      expect(yield* s.findSubscriptionByIdRec(b.idRec as string)).toEqual(Option.some(b))
      expect(yield* s.getSubscription("sub_missing")).toEqual(Option.none())
      // Taken id or idRec: refused, nothing stored.
      expect(yield* s.insertSubscription({ ...a, idRec: null })).toBe("exists")
      expect(yield* s.insertSubscription(subscriptionRecord({ idRec: a.idRec }))).toBe("exists")
      // Several without an idRec yet (live, unknown outcome) are fine.
      expect(yield* s.insertSubscription(subscriptionRecord({ idRec: null }))).toBe("created")
      expect(yield* s.insertSubscription(subscriptionRecord({ idRec: null }))).toBe("created")
      const page = { merchantId: a.merchantId, mode: "test" as const, limit: 10 }
      expect((yield* s.listSubscriptions(page)).map((x) => x.id)).toEqual([b.id, a.id])
      expect((yield* s.listSubscriptions({ ...page, status: "CRIADA" })).map((x) => x.id)).toEqual([a.id])
      expect((yield* s.listSubscriptions({ ...page, before: b.id })).map((x) => x.id)).toEqual([a.id])
      expect((yield* s.listSubscriptions({ ...page, limit: 1 })).map((x) => x.id)).toEqual([b.id])
    })
  )

  it.effect("a change is written only over the version it read", () =>
    Effect.gen(function* () {
      const s = yield* store
      const a = subscriptionRecord()
      yield* s.insertSubscription(a)
      const approved = { ...a, status: "APROVADA" as const, nextAt: baseTime + 50, version: 2 }
      expect(yield* s.replaceSubscription(approved)).toBe(true)
      expect(yield* s.replaceSubscription({ ...approved, status: "CANCELADA" })).toBe(false)
      expect(yield* s.getSubscription(a.id)).toEqual(Option.some(approved))
      // An idRec another subscription holds is refused.
      const b = subscriptionRecord()
      yield* s.insertSubscription(b)
      expect(yield* s.replaceSubscription({ ...approved, idRec: b.idRec, version: 3 })).toBe(false)
      // Racing writers over one version: exactly one wins.
      const wins = yield* Effect.forEach(
        Array.from({ length: 12 }, (_, i) => ({ ...approved, nextCycle: i + 1, version: 3 })),
        (next) => s.replaceSubscription(next),
        { concurrency: "unbounded" }
      )
      expect(wins.filter(Boolean)).toHaveLength(1)
    })
  )

  it.effect("due subscriptions and cycles, soonest first", () =>
    Effect.gen(function* () {
      const s = yield* store
      const far = 9_000_000_000_000
      const late = subscriptionRecord({ nextAt: far + 20 })
      const soon = subscriptionRecord({ nextAt: far + 10 })
      const never = subscriptionRecord({ nextAt: null })
      for (const x of [late, soon, never]) yield* s.insertSubscription(x)
      const due = (yield* s.dueSubscriptions(far + 20, 1000)).filter(
        (x) => x.nextAt !== null && x.nextAt >= far
      )
      expect(due.map((x) => x.id)).toEqual([soon.id, late.id])
      const c1 = cycleRecord(soon, 0, { nextAt: far + 7 })
      const c2 = cycleRecord(soon, 1, { nextAt: far + 3 })
      yield* s.insertCycle(c1)
      yield* s.insertCycle(c2)
      const cycles = (yield* s.dueCycles(far + 7, 1000)).filter((c) => c.subscriptionId === soon.id)
      expect(cycles.map((c) => c.txid)).toEqual([c2.txid, c1.txid])
      expect((yield* s.dueCycles(far + 5, 1000)).filter((c) => c.subscriptionId === soon.id)).toHaveLength(1)
    })
  )
}

/** One cycle per sequence, even racing. */
const cyclesOnce = (it: Suite<SubscriptionStore.SubscriptionStore>) => {
  it.effect("one cycle per subscription and sequence, never two, even racing", () =>
    Effect.gen(function* () {
      const s = yield* store
      const sub = subscriptionRecord()
      yield* s.insertSubscription(sub)
      const first = cycleRecord(sub, 0)
      expect(yield* s.insertCycle(first)).toBe("created")
      expect(yield* s.insertCycle(cycleRecord(sub, 0))).toBe("exists")
      expect(yield* s.insertCycle({ ...cycleRecord(sub, 1), txid: first.txid })).toBe("exists")
      const results = yield* Effect.forEach(
        Array.from({ length: 16 }, () => cycleRecord(sub, 1)),
        (c) => s.insertCycle(c),
        { concurrency: "unbounded" }
      )
      expect(results.filter((r) => r === "created")).toHaveLength(1)
      const listed = yield* s.listCycles(sub.id)
      expect(listed.map((c) => c.sequence)).toEqual([0, 1])
      expect(listed[0]).toEqual(first)
      expect(yield* s.getCycle(first.txid)).toEqual(Option.some(first))
      const paid = { ...first, status: "CONCLUIDA" as const, version: 2 }
      expect(yield* s.replaceCycle(paid)).toBe(true)
      expect(yield* s.replaceCycle({ ...paid, status: "CANCELADA" })).toBe(false)
      expect(yield* s.replaceCycle({ ...paid, sequence: 5, version: 3 })).toBe(false)
      expect(yield* s.getCycle(first.txid)).toEqual(Option.some(paid))
    })
  )
}

/** Registers the subscription store tests. */
export const subscriptions = (it: Suite<SubscriptionStore.SubscriptionStore>) =>
  describe("subscriptions", () => {
    storingAndDue(it)
    cyclesOnce(it)
  })
