/**
 * Live payouts and refunds through the Asaas gateway against the simulated Asaas, on SQLite and
 * Postgres. A payout is one Asaas transfer to its Pix key under the payout's id; settled, it
 * completes with the transfer's end-to-end id; failed or refused, its money returns; an answer
 * lost after Asaas made the transfer is found by asking (listing transfers), never sent twice;
 * a transfer Asaas never got is sent once it answers again; an identical transfer within 15
 * minutes (Asaas's 409) waits and goes once Asaas takes it. Refunds go through
 * `POST /payments/{id}/refund`, found again by their description: partial then full, an answer
 * lost (asked, never sent twice), one Asaas cancels (money back). Settings Asaas cannot work
 * with stop the engine before it serves.
 */
import { createServer } from "node:http"
import { type Answer, adminSender, listen, send } from "@pixgate/testkit/harness"
import { liveStores, until } from "@pixgate/testkit/live"
import { expectAsaasLedgerClean, type LiveAsaas, startLiveAsaas } from "@pixgate/testkit/liveAsaas"
import { must } from "@pixgate/testkit/must"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const stores = liveStores("pixgate-live-asaas-money")
const token = "asaas-money-admin-token-0123456789"

describe.each(stores)("live payouts and refunds through Asaas on $name", (store) => {
  let live: LiveAsaas
  let drop: () => Promise<void> = async () => {}
  let admin: ReturnType<typeof adminSender>
  const adminServer = createServer()
  beforeAll(async () => {
    const db = await store.open()
    drop = db.drop
    live = await startLiveAsaas(db.url, {}, {}, { admin: { token, basePath: "/admin" } })
    adminServer.on("request", must(live.h.pixgate.admin, "live.h.pixgate.admin").nodeHandler)
    const adminBase = await listen(adminServer)
    admin = adminSender(() => adminBase, token)
  })
  afterAll(async () => {
    adminServer.closeAllConnections()
    await new Promise((resolve) => adminServer.close(resolve))
    await live?.close()
    await drop()
  })

  const find = async (key: string, id: string) =>
    (
      (await send(live.h.base, "GET", "/api/v1/transactions?limit=100", { key })).body.data as Array<
        Record<string, unknown> & { id: string; status: string }
      >
    ).find((t) => t.id === id)
  const statusOf = async (key: string, id: string) => (await find(key, id))?.status
  const balance = (merchantId: string) => live.h.engine((e) => e.admin.balance(merchantId, "live"))
  /** A charge of `amount` reais to `m`, paid through Asaas. */
  const paidCharge = async (m: { liveKey: string }, amount: number) => {
    const c = await send(live.h.base, "POST", "/api/v1/charges", { key: m.liveKey, body: { amount } })
    expect(c.status, c.text).toBe(201)
    await live.sim.pay(must(live.sim.paymentOf(c.body.txid), "the charge's payment").id)
    await until("paid", async () => (await statusOf(m.liveKey, c.body.transactionId)) === "completed")
    return { chargeId: c.body.transactionId as string, txid: c.body.txid as string }
  }
  /** A merchant, and a charge of `amount` reais paid through Asaas. */
  const funded = async (amount: number) => {
    const m = await live.merchant()
    return { ...m, ...(await paidCharge(m, amount)) }
  }
  const payout = async (key: string, amount: number, pixKey = "destino@banco.example") => {
    const answer = await send(live.h.base, "POST", "/api/v1/payouts", { key, body: { amount, pixKey } })
    expect(answer.status, answer.text).toBe(201)
    expect(answer.body.status).toBe("pending")
    return answer.body as { transactionId: string; endToEndId: string | null }
  }
  const transferOf = (payoutId: string) => live.sim.transferOf(payoutId)
  const calls = (route: string) => live.sim.requests.filter((r) => r.route === route)
  const transfersOf = (payoutId: string) =>
    [...live.sim.state.transfers.values()].filter((t) => t.externalReference === payoutId)

  it("a payout is one Asaas transfer to its Pix key under the payout's id; settled, it completes with its end-to-end id", async () => {
    const m = await funded(30)
    const creates = calls("transfers.create").length
    const p = await payout(m.liveKey, 10, "+55 11 98765-4321")
    const transfer = must(transferOf(p.transactionId), "the payout's transfer")
    expect(transfer).toMatchObject({ value: 1000, pixAddressKey: "11987654321", pixAddressKeyType: "PHONE" })
    expect(p.endToEndId).toBeNull()
    const settled = await live.sim.settleTransfer(transfer.id)
    await until("completed", async () => (await statusOf(m.liveKey, p.transactionId)) === "completed")
    expect((await find(m.liveKey, p.transactionId))?.endToEndId).toBe(settled.endToEndIdentifier)
    expect(calls("transfers.create").length - creates).toBe(1)
    await until("withdrawal.completed", () =>
      live.webhooks.some((w) => w.type === "withdrawal.completed" && w.data.transactionId === p.transactionId)
    )
    await expectAsaasLedgerClean(live)
  })

  it("a transfer Asaas fails, or refuses for its balance: the payout fails and its money returns", async () => {
    const m = await funded(40)
    const before = await balance(m.merchantId)
    const failed = await payout(m.liveKey, 10)
    await live.sim.failTransfer(
      must(transferOf(failed.transactionId), "the transfer").id,
      "Chave Pix inexistente"
    )
    await until("failed", async () => (await statusOf(m.liveKey, failed.transactionId)) === "failed")
    expect((await find(m.liveKey, failed.transactionId))?.failureReason).toBe("bank_rejected")
    expect(
      live.h.logs.some((l) => l.includes(failed.transactionId) && l.includes("Chave Pix inexistente"))
    ).toBe(true)
    const saved = live.sim.state.balance
    live.sim.state.balance = 0
    try {
      const refused = await payout(m.liveKey, 11)
      await until("refused", async () => (await statusOf(m.liveKey, refused.transactionId)) === "failed")
      expect(transfersOf(refused.transactionId)).toEqual([])
      expect(
        live.h.logs.some((l) => l.includes(refused.transactionId) && l.includes("insufficient_balance"))
      ).toBe(true)
    } finally {
      live.sim.state.balance = saved
    }
    expect(await balance(m.merchantId)).toEqual(before)
    await expectAsaasLedgerClean(live)
  })

  it("an answer lost after Asaas made the transfer: asked about by listing, never sent twice", async () => {
    const m = await funded(30)
    live.sim.addFault({ route: "transfers.create", kind: "status", status: 500, after: true, times: 1 })
    const listsBefore = calls("transfers.list").length
    const p = await payout(m.liveKey, 12)
    expect(p.endToEndId).toBeNull()
    await until("asked about", () => calls("transfers.list").length >= listsBefore + 3)
    expect(await statusOf(m.liveKey, p.transactionId)).toBe("pending")
    await live.sim.settleTransfer(must(transferOf(p.transactionId), "the transfer").id, "never")
    await until("completed", async () => (await statusOf(m.liveKey, p.transactionId)) === "completed")
    expect(transfersOf(p.transactionId)).toHaveLength(1)
    await expectAsaasLedgerClean(live)
  })

  it("a transfer Asaas never got (503) is sent once Asaas answers again, once", async () => {
    const m = await funded(30)
    live.sim.addFault({ route: "transfers.create", kind: "status", status: 503, times: 1 })
    const p = await payout(m.liveKey, 13)
    await until("sent", () => transferOf(p.transactionId) !== undefined)
    expect(transfersOf(p.transactionId)).toHaveLength(1)
    await live.sim.settleTransfer(must(transferOf(p.transactionId), "the transfer").id)
    await until("completed", async () => (await statusOf(m.liveKey, p.transactionId)) === "completed")
    await expectAsaasLedgerClean(live)
  })

  it("an identical transfer within 15 minutes (Asaas's 409) waits, and goes once Asaas takes it", async () => {
    const m = await funded(40)
    const first = await payout(m.liveKey, 14, "gemeo@banco.example")
    const second = await payout(m.liveKey, 14, "gemeo@banco.example")
    await until("refused as identical", () => calls("transfers.create").some((r) => r.outcome === 409))
    expect(transfersOf(second.transactionId)).toEqual([])
    expect(await statusOf(m.liveKey, second.transactionId)).toBe("pending")
    // The first transfer fails: an identical one is no longer in Asaas's way.
    await live.sim.failTransfer(must(transferOf(first.transactionId), "the first transfer").id)
    await until("the second is sent", () => transfersOf(second.transactionId).length === 1)
    await live.sim.settleTransfer(must(transferOf(second.transactionId), "the second transfer").id)
    await until("completed", async () => (await statusOf(m.liveKey, second.transactionId)) === "completed")
    expect(transfersOf(second.transactionId)).toHaveLength(1)
    await expectAsaasLedgerClean(live)
  })

  const refund = (merchantId: string, chargeId: string, body: unknown, key: string): Promise<Answer> =>
    admin("POST", `/merchants/${merchantId}/charges/${chargeId}/refunds`, {
      body,
      headers: { "idempotency-key": key }
    })
  const refundStatus = async (merchantId: string, chargeId: string, refundId: string) =>
    (
      (await admin("GET", `/merchants/${merchantId}/charges/${chargeId}/refunds`)).body.refunds as Array<{
        refundId: string
        status: string
      }>
    ).find((r) => r.refundId === refundId)?.status
  const refundsAtAsaas = (txid: string) => must(live.sim.paymentOf(txid), "the charge's payment").refunds

  it("refunds: a partial then a full one at Asaas, found by their description; the charge refunded", async () => {
    const m = await funded(50)
    // The fee leaves less than the whole charge on the balance: a second charge covers the rest.
    await paidCharge(m, 20)
    const first = await refund(
      m.merchantId,
      m.chargeId,
      { amount: 20, description: "Devolução parcial" },
      "asaas-partial"
    )
    expect(first.status, first.text).toBe(201)
    await until(
      "settled",
      async () => (await refundStatus(m.merchantId, m.chargeId, first.body.refundId)) === "completed"
    )
    expect(refundsAtAsaas(m.txid)).toMatchObject([
      { value: 2000, status: "DONE", description: `pixgate:${first.body.bankRefundId} Devolução parcial` }
    ])
    const rest = await refund(m.merchantId, m.chargeId, { amount: 30 }, "asaas-rest")
    expect(rest.status, rest.text).toBe(201)
    await until(
      "settled",
      async () => (await refundStatus(m.merchantId, m.chargeId, rest.body.refundId)) === "completed"
    )
    expect(await statusOf(m.liveKey, m.chargeId)).toBe("refunded")
    await expectAsaasLedgerClean(live)
  })

  it("refunds: an answer lost is asked about, never sent twice; one Asaas cancels fails and its money returns", async () => {
    const m = await funded(40)
    live.sim.addFault({ route: "payments.refund", kind: "reset", after: true, times: 1 })
    const lost = await refund(m.merchantId, m.chargeId, { amount: 10 }, "asaas-lost")
    expect(lost.status, lost.text).toBe(201)
    await until(
      "settled",
      async () => (await refundStatus(m.merchantId, m.chargeId, lost.body.refundId)) === "completed"
    )
    expect(refundsAtAsaas(m.txid)).toHaveLength(1)
    const before = await balance(m.merchantId)
    live.sim.setRefundOutcome("cancel")
    try {
      const cancelled = await refund(m.merchantId, m.chargeId, { amount: 5 }, "asaas-cancelled")
      await until(
        "failed",
        async () => (await refundStatus(m.merchantId, m.chargeId, cancelled.body.refundId)) === "failed"
      )
      expect(await balance(m.merchantId)).toEqual(before)
    } finally {
      live.sim.setRefundOutcome("done")
    }
    await expectAsaasLedgerClean(live)
  })
})

describe.each(stores)("start-up checks of the Asaas gateway on $name", (store) => {
  it("settings Asaas cannot work with stop the engine before it serves, naming the setting", async () => {
    const db = await store.open()
    try {
      await expect(startLiveAsaas(db.url, { baseUrl: "http://127.0.0.1:9/v3" })).rejects.toThrow(
        /baseUrl: must be an https URL/
      )
      await expect(startLiveAsaas(db.url, { customerId: "42" })).rejects.toThrow(/customerId/)
    } finally {
      await db.drop()
    }
  })
})
