/**
 * Pix Automático live, end to end, on SQLite and on Postgres: the engine's subscriptions over the
 * API Pix gateway against the PSP simulator playing the payer's bank. A subscription (journey 2)
 * is created at the bank (`/locrec`, `/rec`), approved by the payer (the `/rec` callback confirmed
 * with a read), its first cycle charged (`PUT /cobr`), paid on its date (the `/cobr` callback
 * confirmed with a read, booked like a charge, the ledger clean), and revoked by the payer; and
 * a cycle whose `PUT /cobr` answer was lost (found by a read, one PUT), rejected for lack of
 * funds, retried by the merchant and paid, then the subscription cancelled by the merchant.
 */
import { expectLedgerClean, type Live, liveStores, startLive, until } from "@pixgate/testkit/live"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const stores = liveStores("pixgate-live-subscriptions")
const day = 86_400_000
let offset = 0
/** `YYYY-MM-DD` in São Paulo, `days` from today. */
const date = (days: number) => new Date(Date.now() - 3 * 3_600_000 + days * day).toISOString().slice(0, 10)

describe.each(stores)("live subscriptions on $name", (store) => {
  let live: Live
  let drop: () => Promise<void> = async () => {}
  beforeAll(async () => {
    const db = await store.open()
    drop = db.drop
    live = await startLive(
      db.url,
      {},
      { now: () => new Date(Date.now() + offset), tokenTtlSeconds: 365 * 86_400 }
    )
  })
  afterAll(async () => {
    offset = 0
    await live?.close()
    await drop()
  })

  it("journey 2 to a paid first cycle, then a revocation by the payer", async () => {
    const { liveKey } = await live.merchant()
    const caller = await live.h.engine((e) => e.auth.authenticate(liveKey))
    const sub = await live.h.engine((e) =>
      e.subscriptions.create(caller, {
        jornada: "JORNADA_2",
        vinculo: { contrato: "GYM-LIVE", devedor: { cpf: "45164632481", nome: "Ana" }, objeto: "Academia" },
        calendario: { dataInicial: date(4), periodicidade: "MENSAL" },
        valor: { valorRec: 9990 },
        politicaRetentativa: "PERMITE_3R_7D"
      } as never)
    )
    const read = () => live.h.engine((e) => e.subscriptions.get(caller, sub.id))
    await until("the recurrence at the bank", async () => (await read()).idRec !== null)
    const idRec = (await read()).idRec as string
    expect(live.psp.recurring.state.recs.get(idRec)?.status).toBe("CRIADA")
    await live.psp.recurring.approve(idRec)
    await until("the approval reported", async () => (await read()).status === "APROVADA")
    const cycles = () => live.h.engine((e) => e.subscriptions.cycles(caller, sub.id))
    await until("the first cycle at the bank", async () => (await cycles())[0]?.status === "ATIVA")
    const [cycle] = await cycles()
    expect(live.psp.recurring.state.cobsr.get(cycle?.txid as string)?.valor.original).toBe("99.90")
    // The settlement day at the payer's bank.
    offset = 6 * day
    await live.psp.recurring.runDue()
    await until("the cycle paid", async () => (await cycles())[0]?.status === "CONCLUIDA")
    await expectLedgerClean(live)
    await live.psp.recurring.revoke(idRec)
    await until("the revocation reported", async () => (await read()).status === "CANCELADA")
    expect((await read()).encerramento?.cancelamento?.solicitante).toBe("USUARIO_PAGADOR")
    await expectLedgerClean(live)
  }, 120_000)

  it("an unknown cycle creation found by a read, a rejected cycle retried and paid, a cancellation by the merchant", async () => {
    offset = 0
    const { liveKey } = await live.merchant()
    const caller = await live.h.engine((e) => e.auth.authenticate(liveKey))
    // The bank creates the next cycle charge but its answer never comes.
    live.psp.addFault({ route: "cobr.put", kind: "timeout", after: true, times: 1 })
    const sub = await live.h.engine((e) =>
      e.subscriptions.create(caller, {
        jornada: "JORNADA_2",
        vinculo: { contrato: "GYM-LIVE-2", devedor: { cpf: "45164632481", nome: "Ana" } },
        calendario: { dataInicial: date(5), periodicidade: "MENSAL" },
        valor: { valorRec: 5000 },
        politicaRetentativa: "PERMITE_3R_7D"
      } as never)
    )
    const read = () => live.h.engine((e) => e.subscriptions.get(caller, sub.id))
    const cycles = () => live.h.engine((e) => e.subscriptions.cycles(caller, sub.id))
    await until("the recurrence at the bank", async () => (await read()).idRec !== null)
    const idRec = (await read()).idRec as string
    live.psp.recurring.setInsufficientFunds(idRec, 1)
    await live.psp.recurring.approve(idRec)
    await until("the first cycle at the bank", async () => (await cycles())[0]?.status === "ATIVA")
    const txid = (await cycles())[0]?.txid as string
    expect(
      live.psp.requests.filter((r) => r.route === "cobr.put" && r.path.endsWith(txid)).length
    ).toBeGreaterThan(0)
    expect([...live.psp.recurring.state.cobsr.values()].filter((c) => c.idRec === idRec)).toHaveLength(1)
    offset = 7 * day
    await live.psp.recurring.runDue()
    await until(
      "the rejected attempt reported",
      async () => (await cycles())[0]?.tentativas.some((t) => t.status === "REJEITADA") === true
    )
    const retryDate = new Date(Date.now() + offset - 3 * 3_600_000 + day).toISOString().slice(0, 10)
    await live.h.engine((e) => e.subscriptions.retry(caller, txid, retryDate))
    expect(live.psp.recurring.state.cobsr.get(txid)?.tentativas.map((t) => t.tipo)).toEqual(["AGND", "NTAG"])
    offset = 8 * day
    await live.psp.recurring.runDue()
    await until("the retry paid", async () => (await cycles())[0]?.status === "CONCLUIDA")
    await expectLedgerClean(live)
    await live.h.engine((e) => e.subscriptions.cancel(caller, sub.id))
    expect(live.psp.recurring.state.recs.get(idRec)?.status).toBe("CANCELADA")
    expect(live.psp.recurring.state.recs.get(idRec)?.encerramento?.cancelamento?.solicitante).toBe(
      "USUARIO_RECEBEDOR"
    )
    await expectLedgerClean(live)
  }, 120_000)
})
