/**
 * Live due-date charges against the PSP simulator, on SQLite and Postgres: the engine creates a
 * `PUT /cobv/{txid}` with the terms in the standard's shape, and the simulated bank, whose clock
 * the test moves, computes on its own what the payer pays on the day (early with the discount, on
 * the due date, late with fine and interest); the engine credits it when it is what the terms
 * ask for, and records and returns (devolução) a PIX after the last payable day.
 */

import { DueDate } from "@pixgate/core"
import { send } from "@pixgate/testkit/harness"
import { expectLedgerClean, type Live, liveStores, startLive, until } from "@pixgate/testkit/live"
import { must } from "@pixgate/testkit/must"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const stores = liveStores("pixgate-live-cobv")
const day = 86_400_000

describe.each(stores)("live due-date charges on $name", (store) => {
  let live: Live
  let drop: () => Promise<void> = async () => {}
  /** Days the simulated bank's clock is ahead of the real one. */
  let daysAhead = 0
  beforeAll(async () => {
    const db = await store.open()
    drop = db.drop
    live = await startLive(db.url, {}, { now: () => new Date(Date.now() + daysAhead * day) })
  })
  afterAll(async () => {
    await live?.close()
    await drop()
  })

  const today = DueDate.dayOf(Date.now())
  const due = DueDate.nextBusinessDay(today + 10)
  const terms = {
    amount: 200,
    clientName: "Empresa de Alimentos SA",
    clientDoc: "11.222.333/0001-81",
    dueDate: DueDate.formatDay(due),
    daysAfterDue: 5,
    fine: { type: "fixed", value: 4 },
    interest: { type: "percentPerDay", value: 0.1 },
    discount: { type: "fixedUntil", dates: [{ until: DueDate.formatDay(due - 3), value: 10 }] }
  }

  const create = async (key: string, body: Record<string, unknown> = terms) => {
    const answer = await send(live.h.base, "POST", "/api/v1/charges", { key, body })
    expect(answer.status, answer.text).toBe(201)
    return answer.body as { transactionId: string; txid: string; qrCode: string; fees: { feeAmount: number } }
  }
  const transaction = async (key: string, id: string) =>
    must(
      (
        (await send(live.h.base, "GET", "/api/v1/transactions?limit=100", { key })).body.data as Array<
          Record<string, unknown>
        >
      ).find((t) => t.id === id),
      '( (await send(live.h.base, "GET", "/api/v1/transactions?limit=100", { key })).body.data as Array< Record<string, unknown> > ).find((t) => t.id === id)'
    )
  /** Pays the cobv at the simulated bank on São Paulo day `on` (the bank computes the amount). */
  const payOn = async (txid: string, on: number, valor?: string) => {
    daysAhead = on - today
    try {
      return await live.psp.payCob(txid, { callback: "now", ...(valor === undefined ? {} : { valor }) })
    } finally {
      daysAhead = 0
    }
  }
  const balance = async (merchantId: string) =>
    Math.round((await live.h.engine((e) => e.admin.balance(merchantId, "live"))).available * 100)

  it("creates a cobv at the bank with the terms in the standard's shape", async () => {
    const m = await live.merchant()
    const charge = await create(m.liveKey)
    const put = live.psp.requests.find((r) => r.route === "cobv.put" && r.path.endsWith(`/${charge.txid}`))
    expect(put?.outcome).toBe(201)
    const cob = must(live.psp.state.cobs.get(charge.txid), "live.psp.state.cobs.get(charge.txid)")
    expect(cob.loc.tipoCob).toBe("cobv")
    expect(cob.devedor).toEqual({ nome: "Empresa de Alimentos SA", cnpj: "11222333000181" })
    expect(cob.vencimento).toEqual({
      dataDeVencimento: DueDate.formatDay(due),
      validadeAposVencimento: 5,
      multa: { modalidade: 1, valorPerc: "4.00" },
      juros: { modalidade: 2, valorPerc: "0.10" },
      desconto: {
        modalidade: 1,
        descontoDataFixa: [{ data: DueDate.formatDay(due - 3), valorPerc: "10.00" }]
      }
    })
    expect(charge.qrCode).toBe(cob.pixCopiaECola)
  })

  for (const [what, on, received] of [
    ["paid early, with the discount", () => due - 5, 19000],
    ["paid on the due date", () => due, 20000],
    // 2 days late: fine 4.00, interest 0.1% x 2 of 200.00 = 0.40.
    ["paid late, with fine and interest", () => due + 2, 20440]
  ] as const) {
    it(`${what}: the bank's amount is the engine's, credited less the fee`, async () => {
      const m = await live.merchant()
      const charge = await create(m.liveKey)
      const before = await balance(m.merchantId)
      const pix = await payOn(charge.txid, on())
      expect(pix.valor).toBe((received / 100).toFixed(2))
      await until(
        "completed",
        async () => (await transaction(m.liveKey, charge.transactionId)).status === "completed"
      )
      const fee = Math.round(charge.fees.feeAmount * 100)
      expect(await transaction(m.liveKey, charge.transactionId)).toMatchObject({
        receivedAmount: received / 100,
        endToEndId: pix.endToEndId
      })
      expect(await balance(m.merchantId)).toBe(before + received - fee)
      await expectLedgerClean(live)
    })
  }

  it("with an abatement, paid late with what the Central Bank's rule asks, completes", async () => {
    const m = await live.merchant()
    const charge = await create(m.liveKey, {
      amount: 150,
      clientName: "Empresa de Alimentos SA",
      clientDoc: "11.222.333/0001-81",
      dueDate: DueDate.formatDay(due),
      daysAfterDue: 30,
      abatement: { type: "fixed", value: 10 },
      fine: { type: "percent", value: 2 },
      interest: { type: "percentPerDay", value: 0.1 }
    })
    const before = await balance(m.merchantId)
    // 140.00 left after the abatement: fine 2% = 2.80, interest 0.1% x 9 days = 1.26.
    const pix = await payOn(charge.txid, due + 9, "144.06")
    await until(
      "completed",
      async () => (await transaction(m.liveKey, charge.transactionId)).status === "completed"
    )
    expect(await transaction(m.liveKey, charge.transactionId)).toMatchObject({
      receivedAmount: 144.06,
      endToEndId: pix.endToEndId
    })
    expect(await balance(m.merchantId)).toBe(before + 14406 - Math.round(charge.fees.feeAmount * 100))
    await expectLedgerClean(live)
  })

  it("after the last payable day: recorded, not credited, and returned at the bank", async () => {
    const m = await live.merchant()
    const charge = await create(m.liveKey)
    const before = await balance(m.merchantId)
    const pix = await payOn(charge.txid, DueDate.nextBusinessDay(due + 5) + 1)
    await until(
      "returned",
      async () => (await transaction(m.liveKey, charge.transactionId)).status === "refunded"
    )
    expect(await transaction(m.liveKey, charge.transactionId)).toMatchObject({
      failureReason: "paid_after_expiry",
      endToEndId: pix.endToEndId
    })
    expect(live.psp.state.pix.get(pix.endToEndId)?.devolucoes.map((d) => d.valor)).toEqual([pix.valor])
    expect(await balance(m.merchantId)).toBe(before)
    await expectLedgerClean(live)
  })
})
