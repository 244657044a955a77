/**
 * Live refunds (devoluções) at the edges the bank decides, against the PSP simulator on SQLite
 * and Postgres: a devolução the bank takes (assigning its `rtrId` while it processes) and then
 * refuses fails without that id, since `returnId` is the returned PIX's and no PIX went back; one
 * it settles carries it. A 429 on the devolução's `PUT` made nothing: it is logged as the bank's
 * refusal for now (rate limited), never as a send that got no answer, and the refund is sent
 * again and settles once.
 */
import { Money } from "@pixgate/core"
import { send } from "@pixgate/testkit/harness"
import { expectLedgerClean, type Live, liveStores, startLive, until } from "@pixgate/testkit/live"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const stores = liveStores("pixgate-live-refunds")

describe.each(stores)("live refunds against the PSP simulator on $name", (store) => {
  let live: Live
  let drop: () => Promise<void> = async () => {}
  beforeAll(async () => {
    const db = await store.open()
    drop = db.drop
    live = await startLive(db.url)
  })
  afterAll(async () => {
    await live?.close()
    await drop()
  })

  /** A merchant with a completed live charge of `amount` reais: its id and the bank's end-to-end id. */
  const paidCharge = async (amount: number) => {
    const m = await live.merchant()
    const c = await send(live.h.base, "POST", "/api/v1/charges", { key: m.liveKey, body: { amount } })
    expect(c.status, c.text).toBe(201)
    const pix = await live.psp.payCob(c.body.txid, { callback: "now" })
    await until("the charge completes", async () => {
      const list = await send(live.h.base, "GET", "/api/v1/transactions?limit=100", { key: m.liveKey })
      return (list.body.data as Array<{ id: string; status: string }>).some(
        (t) => t.id === c.body.transactionId && t.status === "completed"
      )
    })
    return { merchantId: m.merchantId, chargeId: c.body.transactionId as string, endToEndId: pix.endToEndId }
  }
  const refund = (merchantId: string, chargeId: string, reais: number, key: string) =>
    live.h.engine((e) => e.admin.createRefund(merchantId, chargeId, { amount: Money.reais(reais) }, key))
  const refundOf = async (merchantId: string, chargeId: string, refundId: string) =>
    (await live.h.engine((e) => e.admin.listRefunds(merchantId, chargeId))).refunds.find(
      (r) => r.refundId === refundId
    )
  const devolucao = (endToEndId: string, bankRefundId: string) =>
    live.psp.state.pix.get(endToEndId)?.devolucoes.find((d) => d.id === bankRefundId)

  it("a devolução refused after the bank gave it an rtrId fails without a returnId; a settled one carries it", async () => {
    const charge = await paidCharge(30)
    live.psp.setRefundOutcome("manual")
    try {
      const refused = await refund(charge.merchantId, charge.chargeId, 10, "live-refused-after-processing")
      await until(
        "the bank is processing it",
        () => devolucao(charge.endToEndId, refused.bankRefundId) !== undefined
      )
      const processing = devolucao(charge.endToEndId, refused.bankRefundId)
      expect(processing?.status).toBe("EM_PROCESSAMENTO")
      expect(processing?.rtrId).toMatch(/^D/)
      // The engine asks about it while the bank processes it.
      await until("asked about while processing", () =>
        live.psp.requests.some((r) => r.route === "devolucao.get" && r.path.endsWith(refused.bankRefundId))
      )
      live.psp.rejectRefund(charge.endToEndId, refused.bankRefundId, "Saldo insuficiente")
      await until(
        "the refund fails",
        async () =>
          (await refundOf(charge.merchantId, charge.chargeId, refused.refundId))?.status === "failed"
      )
      expect(await refundOf(charge.merchantId, charge.chargeId, refused.refundId)).toMatchObject({
        status: "failed",
        failureReason: "bank_rejected",
        returnId: null
      })

      const settled = await refund(charge.merchantId, charge.chargeId, 5, "live-settled-after-processing")
      await until(
        "the bank is processing it",
        () => devolucao(charge.endToEndId, settled.bankRefundId) !== undefined
      )
      live.psp.settleRefund(charge.endToEndId, settled.bankRefundId)
      await until(
        "the refund completes",
        async () =>
          (await refundOf(charge.merchantId, charge.chargeId, settled.refundId))?.status === "completed"
      )
      expect((await refundOf(charge.merchantId, charge.chargeId, settled.refundId))?.returnId).toBe(
        devolucao(charge.endToEndId, settled.bankRefundId)?.rtrId
      )
    } finally {
      live.psp.setRefundOutcome("settle")
    }
    await expectLedgerClean(live)
  })

  it("a 429 on the devolução is logged as the bank's refusal for now, not as no answer; the refund is sent again and settles once", async () => {
    const charge = await paidCharge(20)
    live.psp.addFault({ route: "devolucao.put", kind: "status", status: 429, retryAfter: 1, times: 1 })
    try {
      const throttled = await refund(charge.merchantId, charge.chargeId, 8, "live-throttled")
      await until(
        "the refund completes",
        async () =>
          (await refundOf(charge.merchantId, charge.chargeId, throttled.refundId))?.status === "completed"
      )
      const lines = live.h.logs.filter((l) => l.includes(throttled.refundId))
      expect(lines.some((l) => l.includes("rate limited"))).toBe(true)
      expect(lines.some((l) => l.includes("got no answer"))).toBe(false)
      const bankId = throttled.bankRefundId
      const puts = live.psp.requests.filter((r) => r.route === "devolucao.put" && r.path.endsWith(bankId))
      expect(puts.map((r) => r.outcome)).toEqual([429, 201])
      expect(
        live.psp.state.pix.get(charge.endToEndId)?.devolucoes.filter((d) => d.id === bankId)
      ).toHaveLength(1)
    } finally {
      live.psp.clearFaults()
    }
    await expectLedgerClean(live)
  })
})
