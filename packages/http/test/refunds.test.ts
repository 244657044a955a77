/**
 * Refunds (devoluções) over the admin API, on SQLite and Postgres, with the real clock: in the
 * sandbox (they complete 2-3 s later; 6.66 fails) and live against the PSP simulator
 * (`PUT /pix/{e2eid}/devolucao/{id}`). A partial then a full refund (the charge `refunded`), a
 * refund refused for balance, a retry that answers the first refund, a refused one whose money
 * comes back, and an unknown outcome (the bank did the refund, the answer was lost) resolved by
 * asking, without a second send.
 */
import { createServer } from "node:http"
import { Refunds } from "@pixgate/core"
import { type Answer, adminSender, listen, send } from "@pixgate/testkit/harness"
import { expectLedgerClean, type Live, liveStores, startLive, until } from "@pixgate/testkit/live"
import { must } from "@pixgate/testkit/must"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const stores = liveStores("pixgate-refunds")
const token = "refunds-admin-token-0123456789"

describe.each(stores)("refunds on $name", (store) => {
  let live: Live
  let drop: () => Promise<void> = async () => {}
  let admin: ReturnType<typeof adminSender>
  const adminServer = createServer()
  beforeAll(async () => {
    const db = await store.open()
    drop = db.drop
    live = await startLive(db.url, {}, {}, { admin: { token, basePath: "/admin" } })
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

  const refund = (merchantId: string, chargeId: string, body: unknown, key?: string): Promise<Answer> =>
    admin("POST", `/merchants/${merchantId}/charges/${chargeId}/refunds`, {
      body,
      headers: key === undefined ? {} : { "idempotency-key": key }
    })
  const refunds = async (merchantId: string, chargeId: string) => {
    const answer = await admin("GET", `/merchants/${merchantId}/charges/${chargeId}/refunds`)
    expect(answer.status, answer.text).toBe(200)
    return answer.body as {
      refunded: number
      refundable: number
      refunds: Array<{ refundId: string; status: string; amount: number; failureReason: string | null }>
    }
  }
  const statusOf = async (key: string, id: string) => {
    const list = await send(live.h.base, "GET", "/api/v1/transactions?limit=100", { key })
    return (list.body.data as Array<{ id: string; status: string }>).find((t) => t.id === id)?.status
  }
  const available = async (merchantId: string, mode: "test" | "live") =>
    (await admin("GET", `/merchants/${merchantId}/balance?mode=${mode}`)).body.available as number
  const settled = (merchantId: string, chargeId: string, refundId: string, status = "completed") =>
    until(`refund ${refundId} is ${status}`, async () =>
      (await refunds(merchantId, chargeId)).refunds.some(
        (r) => r.refundId === refundId && r.status === status
      )
    )

  describe("in the sandbox", () => {
    const paidCharge = async (key: string, amount: number) => {
      const c = await send(live.h.base, "POST", "/api/v1/charges", { key, body: { amount } })
      expect(c.status, c.text).toBe(201)
      const id = c.body.transactionId as string
      const paid = await admin("POST", `/sandbox/transactions/${id}/pay`)
      if (paid.status === 409 && paid.body.code === "charge_not_pending") {
        // On a loaded machine the sandbox's own payment (2-3 s after creation) can come first:
        // the charge must then be completed, which is what this helper asks for.
        const list = await send(live.h.base, "GET", "/api/v1/transactions?type=deposit&limit=100", { key })
        // The list names a transaction by `id`.
        const tx = (list.body.data as ReadonlyArray<{ id: string; status: string }>).find((t) => t.id === id)
        expect(tx?.status, list.text).toBe("completed")
      } else expect(paid.status, paid.text).toBe(200)
      return id
    }

    it("a partial then a full refund: debited at once, completed 2-3 s later, the charge refunded; a retry answers the first", async () => {
      const m = await live.h.merchant()
      const charge = await paidCharge(m.testKey, 100)
      // The charge's fee stays earned: a full refund needs more than the charge credited.
      expect(
        (await admin("POST", `/merchants/${m.merchantId}/sandbox/topup`, { body: { amount: 50 } })).status
      ).toBe(200)
      const before = await available(m.merchantId, "test")

      const first = await refund(
        m.merchantId,
        charge,
        { amount: 30, description: "Item devolvido" },
        "partial-1"
      )
      expect(first.status, first.text).toBe(201)
      expect(first.body).toMatchObject({
        transactionId: charge,
        amount: 30,
        status: "pending",
        description: "Item devolvido"
      })
      expect(first.body.bankRefundId).toBe(Refunds.bankRefundId(first.body.refundId))
      expect(await available(m.merchantId, "test")).toBeCloseTo(before - 30, 2)
      // The same key: the first refund, never a second one; another amount under it is refused.
      const again = await refund(
        m.merchantId,
        charge,
        { amount: 30, description: "Item devolvido" },
        "partial-1"
      )
      expect(again.status, again.text).toBe(201)
      expect(again.body.refundId).toBe(first.body.refundId)
      const mismatch = await refund(m.merchantId, charge, { amount: 31 }, "partial-1")
      expect([mismatch.status, mismatch.body.code]).toEqual([422, "idempotency_mismatch"])
      expect(await available(m.merchantId, "test")).toBeCloseTo(before - 30, 2)

      await settled(m.merchantId, charge, first.body.refundId)
      expect(await statusOf(m.testKey, charge)).toBe("completed")
      const over = await refund(m.merchantId, charge, { amount: 70.01 }, "too-much")
      expect([over.status, over.body.code]).toEqual([422, "refund_exceeds_received"])

      const rest = await refund(m.merchantId, charge, { amount: 70 }, "rest-1")
      expect(rest.status, rest.text).toBe(201)
      await settled(m.merchantId, charge, rest.body.refundId)
      expect(await statusOf(m.testKey, charge)).toBe("refunded")
      const list = await refunds(m.merchantId, charge)
      expect(list).toMatchObject({ refunded: 100, refundable: 0 })
      expect(list.refunds.map((r) => [r.amount, r.status])).toEqual([
        [30, "completed"],
        [70, "completed"]
      ])
      expect(await available(m.merchantId, "test")).toBeCloseTo(before - 100, 2)
      const done = await refund(m.merchantId, charge, { amount: 1 }, "after-full")
      expect([done.status, done.body.code]).toEqual([409, "refund_not_refundable"])
    })

    it("refused for balance, with a clear 422 and the balance unchanged; 6.66 fails and its money returns", async () => {
      const m = await live.h.merchant()
      const charge = await paidCharge(m.testKey, 10)
      const before = await available(m.merchantId, "test")
      expect(before).toBeLessThan(10)
      const short = await refund(m.merchantId, charge, { amount: 10 }, "short")
      expect([short.status, short.body.code]).toEqual([422, "insufficient_balance"])
      expect(await available(m.merchantId, "test")).toBe(before)
      expect((await refunds(m.merchantId, charge)).refunds).toEqual([])
      const missingKey = await refund(m.merchantId, charge, { amount: 1 })
      expect([missingKey.status, missingKey.body.code]).toEqual([422, "invalid_idempotency_key"])

      const failing = await refund(m.merchantId, charge, { amount: 6.66 }, "magic")
      expect(failing.status, failing.text).toBe(201)
      expect(await available(m.merchantId, "test")).toBeCloseTo(before - 6.66, 2)
      await settled(m.merchantId, charge, failing.body.refundId, "failed")
      expect(await available(m.merchantId, "test")).toBe(before)
      expect((await refunds(m.merchantId, charge)).refunds[0]).toMatchObject({
        failureReason: "bank_rejected"
      })
      expect(await statusOf(m.testKey, charge)).toBe("completed")
    })
  })

  describe("live, against the PSP simulator", () => {
    const paidCharge = async (key: string, amount: number) => {
      const c = await send(live.h.base, "POST", "/api/v1/charges", { key, body: { amount } })
      expect(c.status, c.text).toBe(201)
      await live.psp.payCob(c.body.txid, { callback: "now" })
      await until(
        "the charge completes",
        async () => (await statusOf(key, c.body.transactionId)) === "completed"
      )
      return c.body.transactionId as string
    }
    const devolucoesOf = (bankRefundId: string) =>
      [...live.psp.state.pix.values()].flatMap((p) => p.devolucoes.filter((d) => d.id === bankRefundId))
    const puts = (bankRefundId: string) =>
      live.psp.requests.filter((r) => r.method === "PUT" && r.path.endsWith(`/devolucao/${bankRefundId}`))
        .length
    const events = (type: string, refundId: string) =>
      live.webhooks.filter(
        (w) => w.type === type && (w.data.refund as { id?: string } | undefined)?.id === refundId
      )

    it("a partial then a full refund at the bank, the charge refunded; then one refused for balance", async () => {
      const m = await live.merchant()
      const a = await paidCharge(m.liveKey, 100)
      const b = await paidCharge(m.liveKey, 50)
      const before = await available(m.merchantId, "live")

      const first = await refund(
        m.merchantId,
        a,
        { amount: 30, description: "Devolução parcial" },
        "live-partial"
      )
      expect(first.status, first.text).toBe(201)
      await settled(m.merchantId, a, first.body.refundId)
      const bankId = first.body.bankRefundId as string
      expect(devolucoesOf(bankId)).toMatchObject([
        { valor: "30.00", status: "DEVOLVIDO", descricao: "Devolução parcial" }
      ])
      expect(puts(bankId)).toBe(1)
      const listed = await refunds(m.merchantId, a)
      expect(listed.refunds[0]).toMatchObject({ status: "completed" })
      expect(
        (await admin("GET", `/merchants/${m.merchantId}/charges/${a}/refunds`)).body.refunds[0].returnId
      ).toMatch(/^D/)

      const rest = await refund(m.merchantId, a, { amount: 70 }, "live-rest")
      expect(rest.status, rest.text).toBe(201)
      await settled(m.merchantId, a, rest.body.refundId)
      expect(await statusOf(m.liveKey, a)).toBe("refunded")
      expect(await available(m.merchantId, "live")).toBeCloseTo(before - 100, 2)
      await until(
        "the refund events arrive",
        () => events("refund.completed", rest.body.refundId).length === 1
      )
      expect(events("refund.created", first.body.refundId)).toHaveLength(1)
      expect(events("refund.completed", rest.body.refundId)[0].data.status).toBe("refunded")

      // What is left (the second charge's net) does not cover its full refund.
      const short = await refund(m.merchantId, b, { amount: 50 }, "live-short")
      expect([short.status, short.body.code]).toEqual([422, "insufficient_balance"])
      expect(await available(m.merchantId, "live")).toBeCloseTo(before - 100, 2)
      await expectLedgerClean(live)
    })

    it("an unknown outcome (the bank refunded, the answer was lost) is asked about, never sent twice; a refusal returns the money", async () => {
      const m = await live.merchant()
      const charge = await paidCharge(m.liveKey, 40)
      const before = await available(m.merchantId, "live")
      live.psp.addFault({ route: "devolucao.put", kind: "reset", after: true, times: 1 })
      const lost = await refund(m.merchantId, charge, { amount: 10 }, "live-lost")
      expect(lost.status, lost.text).toBe(201)
      await settled(m.merchantId, charge, lost.body.refundId)
      expect(puts(lost.body.bankRefundId)).toBe(1)
      expect(devolucoesOf(lost.body.bankRefundId)).toHaveLength(1)
      expect(await available(m.merchantId, "live")).toBeCloseTo(before - 10, 2)

      live.psp.setRefundOutcome("reject")
      try {
        const refused = await refund(m.merchantId, charge, { amount: 5 }, "live-refused")
        expect(refused.status, refused.text).toBe(201)
        await settled(m.merchantId, charge, refused.body.refundId, "failed")
        expect(await available(m.merchantId, "live")).toBeCloseTo(before - 10, 2)
        await until(
          "refund.failed arrives",
          () => events("refund.failed", refused.body.refundId).length === 1
        )
      } finally {
        live.psp.setRefundOutcome("settle")
      }
      await expectLedgerClean(live)
    })
  })
})
