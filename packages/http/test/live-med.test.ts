/**
 * MED devoluções the bank performs on its own, against the PSP simulator (API Pix `devolucoes`
 * of natureza `MED_FRAUDE` / `MED_OPERACIONAL` in `GET /pix` and the `/pix` callbacks), on SQLite
 * and Postgres: reported by callback then seen again by reconciliation, or by reconciliation
 * first and the held callback after: booked once either way; a full return makes the charge
 * `refunded` and the fee's part a shortfall; a partial return against an infraction with a block
 * takes the block first and releases the rest.
 */
import type { Domain } from "@pixgate/core"
import {
  expectLedgerClean,
  type Live,
  statusOf as liveStatusOf,
  liveStores,
  paidCharge,
  startLive,
  until
} from "@pixgate/testkit/live"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

describe.each(liveStores("pixgate-live-med"))("MED devoluções from the bank on $name", (store) => {
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

  const balance = (merchantId: string) => live.h.engine((e) => e.admin.balance(merchantId, "live"))
  const returns = (id: string) => live.h.engine((e) => e.infractions.returns(id as Domain.TransactionId))
  const statusOf = (key: string, id: string) => liveStatusOf(live, key, id)
  /** A merchant with one live charge of `amount` paid through the bank. */
  const paid = (amount: number) => paidCharge(live, amount)
  /** Waits for two more reconciliation runs (each reads `GET /pix`). */
  const reconciled = async () => {
    const reads = () => live.psp.requests.filter((r) => r.method === "GET" && r.path.endsWith("/pix")).length
    const start = reads()
    await until("reconciliation ran twice more", () => reads() >= start + 2)
  }

  it("a full MED devolução by callback, seen again by reconciliation: booked once, the charge refunded", async () => {
    const { m, id, e2e } = await paid(30)
    const before = await balance(m.merchantId)
    const devolucao = await live.psp.medReturn(e2e, {
      valor: "30.00",
      natureza: "MED_FRAUDE",
      callback: "now"
    })
    await until("the devolução is booked", async () => (await returns(id)).length === 1)
    await reconciled()
    const booked = await returns(id)
    expect(booked).toMatchObject([
      { id: devolucao.rtrId, amount: 3000, nature: "MED_FRAUDE", infractionId: null }
    ])
    expect(await statusOf(m.liveKey, id)).toBe("refunded")
    // The whole PIX went back: the fee's part leaves the balance below zero (a debt the next credits settle).
    const after = await balance(m.merchantId)
    expect(after.available).toBeCloseTo(before.available - 30, 2)
    expect(after.available).toBeLessThan(0)
    await expectLedgerClean(live)
  })

  it("reported by reconciliation first and by the held callback after: booked once", async () => {
    const { m, id, e2e } = await paid(20)
    const before = await balance(m.merchantId)
    await live.psp.medReturn(e2e, { valor: "5.00", natureza: "MED_OPERACIONAL", callback: "hold" })
    await until("reconciliation books it", async () => (await returns(id)).length === 1)
    await live.psp.releaseCallbacks("held")
    await reconciled()
    expect(await returns(id)).toHaveLength(1)
    expect(await statusOf(m.liveKey, id)).toBe("completed")
    expect((await balance(m.merchantId)).available).toBeCloseTo(before.available - 5, 2)
    await expectLedgerClean(live)
  })

  it("a partial return against a blocked infraction: from the block first, the rest released", async () => {
    const { m, id, e2e } = await paid(40)
    const before = await balance(m.merchantId)
    const opened = await live.h.engine((e) =>
      e.infractions.open({
        transactionId: id as Domain.TransactionId,
        bankId: `INF-${e2e}`,
        type: "fraud",
        reason: "golpe",
        amountClaimed: 2500 as never
      })
    )
    expect(opened.ok).toBe(true)
    const blocked = await balance(m.merchantId)
    expect(blocked.held).toBe(25)
    expect(blocked.available).toBeCloseTo(before.available - 25, 2)
    await live.psp.medReturn(e2e, { valor: "10.00", natureza: "MED_FRAUDE", callback: "now" })
    await until("the devolução is booked", async () => (await returns(id)).length === 1)
    const [inf] = await live.h.engine((e) =>
      e.infractions.list({ merchantId: m.merchantId as never, mode: "live" })
    )
    expect(inf).toMatchObject({ status: "accepted", blockedAmount: 0, returnedAmount: 1000 })
    const after = await balance(m.merchantId)
    expect(after.held).toBe(0)
    expect(after.available).toBeCloseTo(before.available - 10, 2)
    expect(await statusOf(m.liveKey, id)).toBe("completed")
    // Delivered to the merchant's receiver like every webhook: the block, then the return.
    const med = () =>
      live.webhooks.filter((w) => w.data.transactionId === id && w.type.startsWith("chargeback."))
    await until("both MED webhooks arrive", () => med().length >= 2)
    expect(med().map((w) => [w.type, (w.data.chargeback as { status: string }).status])).toEqual([
      ["chargeback.created", "open"],
      ["chargeback.updated", "accepted"]
    ])
    expect(med()[0].data.chargeback).toMatchObject({
      amount: 25,
      blockedAmount: 25,
      returnedAmount: 0,
      type: "fraud"
    })
    expect(typeof (med()[0].data.chargeback as { deadline: unknown }).deadline).toBe("string")
    expect(med()[1].data.chargeback).toMatchObject({ blockedAmount: 0, returnedAmount: 10 })
    await expectLedgerClean(live)
  })
})
