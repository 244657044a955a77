/**
 * Live payouts carry the bank's end-to-end id, never one the engine made up: the 201 has the id
 * the PSP simulator issued when the send answered within the inline budget, `null` when the
 * send is slower, and the id appears once the bank gives it. Live failures are told
 * (`transaction.failed` to a real local receiver, with the reason), a PIX returned to its payer
 * is told as `refunded`, and the transaction list shows `failureReason` and `receivedAmount`.
 * The simulator issues ids with its own ISPB (12345678), so an id the engine invented (with its
 * default ISPB 99999999) cannot pass for the bank's. SQLite and Postgres.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Events } from "@pixgate/core"
import { Gateway } from "@pixgate/gateway-apipix"
import { send } from "@pixgate/testkit/harness"
import { expectLedgerClean, type Live, liveStores, startLive, until } from "@pixgate/testkit/live"
import { Either, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const stores = liveStores("pixgate-live-payouts")
const bankIspb = "12345678"
const invented = /^E99999999/
// The inline budget: twice the default, room for a loaded machine to answer "in time".
const budgetMs = 6000

describe.each(stores)("live payouts against the PSP simulator on $name", (store) => {
  let live: Live
  let drop: () => Promise<void> = async () => {}
  beforeAll(async () => {
    const db = await store.open()
    drop = db.drop
    live = await startLive(db.url, { sendBudgetMs: budgetMs, timeoutMs: 10_000 }, { ispb: bankIspb })
  })
  afterAll(async () => {
    await live?.close()
    await drop()
  })

  type Row = Record<string, unknown> & { id: string; status: string; endToEndId: string | null }
  const list = async (key: string) =>
    (await send(live.h.base, "GET", "/api/v1/transactions?limit=100", { key })).body.data as Array<Row>
  const find = async (key: string, id: string) => (await list(key)).find((t) => t.id === id)
  const funded = async (amount: number) => {
    const m = await live.merchant()
    const c = await send(live.h.base, "POST", "/api/v1/charges", { key: m.liveKey, body: { amount } })
    expect(c.status, c.text).toBe(201)
    await live.psp.payCob(c.body.txid, { callback: "now" })
    await until(
      "the funding charge completes",
      async () => (await find(m.liveKey, c.body.transactionId))?.status === "completed"
    )
    return m
  }
  const payout = async (key: string, amount: number, headers: Record<string, string> = {}) => {
    const answer = await send(live.h.base, "POST", "/api/v1/payouts", {
      key,
      body: { amount, pixKey: "destino@banco.example" },
      headers
    })
    expect(answer.status, answer.text).toBe(201)
    expect(answer.body.status).toBe("pending")
    return answer
  }
  const sendOf = (payoutId: string) => live.psp.state.sends.get(Gateway.idEnvio(payoutId))
  const events = (type: string, transactionId: string) =>
    live.webhooks.filter((w) => w.type === type && w.data.transactionId === transactionId)

  it("the 201 carries the end-to-end id the bank issued when the send answers in time", async () => {
    const m = await funded(30)
    const answer = await payout(m.liveKey, 10, { "idempotency-key": "payout-in-time" })
    const id = answer.body.transactionId as string
    const bank = sendOf(id)?.e2eId
    expect(bank).toMatch(new RegExp(`^E${bankIspb}`))
    expect(answer.body.endToEndId).toBe(bank)
    expect((await find(m.liveKey, id))?.endToEndId).toBe(bank)
    // A replay says what the first answer said: the bank's id.
    const replay = await payout(m.liveKey, 10, { "idempotency-key": "payout-in-time" })
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.body).toEqual(answer.body)
    await live.psp.settleSend(Gateway.idEnvio(id), { callback: "now" })
    await until("withdrawal.completed delivered", () => events("withdrawal.completed", id).length > 0)
    expect(events("withdrawal.completed", id)[0]?.data).toMatchObject({
      endToEndId: bank,
      status: "completed"
    })
    // One send at the bank: the inline attempt and the job are one.
    expect(
      live.psp.requests.filter((r) => r.route === "send.put" && r.path.endsWith(Gateway.idEnvio(id)))
    ).toHaveLength(1)
    await expectLedgerClean(live)
  })

  it("payouts at once: each sent once, each 201 with its own bank id", async () => {
    const m = await funded(50)
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => payout(m.liveKey, 1 + i)))
    const ids = answers.map((a) => a.body.transactionId as string)
    await until("every send reaches the bank", () => ids.every((id) => sendOf(id) !== undefined))
    // Several polls of the job go by: never a second send.
    await new Promise((resolve) => setTimeout(resolve, 1000))
    for (const [i, id] of ids.entries()) {
      expect(
        live.psp.requests.filter((r) => r.route === "send.put" && r.path.endsWith(Gateway.idEnvio(id)))
      ).toHaveLength(1)
      expect([null, sendOf(id)?.e2eId]).toContain(answers[i]?.body.endToEndId)
      expect((await find(m.liveKey, id))?.endToEndId).toBe(sendOf(id)?.e2eId)
    }
    expect(new Set(ids.map((id) => sendOf(id)?.e2eId)).size).toBe(ids.length)
    for (const id of ids) await live.psp.settleSend(Gateway.idEnvio(id), { callback: "now" })
    await until("all completed", async () => {
      const rows = await list(m.liveKey)
      return ids.every((id) => rows.find((t) => t.id === id)?.status === "completed")
    })
    await expectLedgerClean(live)
  })

  it("a send slower than the budget: 201 pending with endToEndId null, the bank's id later", async () => {
    const m = await funded(30)
    // Past the budget, within the client's time-out.
    live.psp.addFault({ route: "send.put", kind: "latency", ms: budgetMs + 1500, times: 1 })
    try {
      const answer = await payout(m.liveKey, 10, { "idempotency-key": "payout-slow" })
      const id = answer.body.transactionId as string
      expect(answer.body.endToEndId).toBeNull()
      expect((await find(m.liveKey, id))?.endToEndId ?? null).toBeNull()
      await until("the send reaches the bank", () => sendOf(id) !== undefined)
      const bank = sendOf(id)?.e2eId
      expect(bank).toMatch(new RegExp(`^E${bankIspb}`))
      await until(
        "the pending payout shows the bank's id",
        async () => (await find(m.liveKey, id))?.endToEndId === bank
      )
      expect((await find(m.liveKey, id))?.status).toBe("pending")
      // A replay of the 201 now carries the bank's id too.
      const replay = await payout(m.liveKey, 10, { "idempotency-key": "payout-slow" })
      expect(replay.headers.get("idempotent-replayed")).toBe("true")
      expect(replay.body).toEqual({ ...answer.body, endToEndId: bank })
      await live.psp.settleSend(Gateway.idEnvio(id), { callback: "now" })
      await until("completed", async () => (await find(m.liveKey, id))?.status === "completed")
      expect((await find(m.liveKey, id))?.endToEndId).toBe(bank)
      expect(
        [...live.psp.state.sends.values()].filter((s) => s.idEnvio === Gateway.idEnvio(id))
      ).toHaveLength(1)
    } finally {
      live.psp.clearFaults()
    }
    await expectLedgerClean(live)
  })

  it("a send the bank rejects: failed, money back, transaction.failed with its reason, the bank's words logged", async () => {
    const m = await funded(30)
    const before = await live.h.engine((e) => e.admin.balance(m.merchantId, "live"))
    const answer = await payout(m.liveKey, 10)
    const id = answer.body.transactionId as string
    await until("the send reaches the bank", () => sendOf(id) !== undefined)
    await live.psp.rejectSend(Gateway.idEnvio(id), {
      motivo: "Conta do favorecido encerrada",
      callback: "now"
    })
    await until("transaction.failed delivered", () => events("transaction.failed", id).length > 0)
    expect(events("transaction.failed", id)[0]?.data).toMatchObject({
      transactionId: id,
      type: "withdrawal",
      status: "failed",
      reason: "bank_rejected",
      amount: 10
    })
    expect(await find(m.liveKey, id)).toMatchObject({ status: "failed", failureReason: "bank_rejected" })
    expect(await live.h.engine((e) => e.admin.balance(m.merchantId, "live"))).toEqual(before)
    expect(
      live.h.logs.some((l) => l.includes("bankReason") && l.includes("Conta do favorecido encerrada"))
    ).toBe(true)
    await expectLedgerClean(live)
  })

  it("a send the PSP refuses (422): failed at once, transaction.failed, the PSP's code logged", async () => {
    const m = await funded(30)
    live.psp.addFault({ route: "send.put", kind: "status", status: 422, times: 1 })
    try {
      const answer = await payout(m.liveKey, 10)
      const id = answer.body.transactionId as string
      expect(answer.body.endToEndId).toBeNull()
      await until("transaction.failed delivered", () => events("transaction.failed", id).length > 0)
      expect(events("transaction.failed", id)[0]?.data).toMatchObject({
        status: "failed",
        reason: "bank_rejected"
      })
      expect(await find(m.liveKey, id)).toMatchObject({
        status: "failed",
        failureReason: "bank_rejected",
        endToEndId: null
      })
      expect(live.h.logs.some((l) => l.includes(id) && l.includes("bankCode"))).toBe(true)
    } finally {
      live.psp.clearFaults()
    }
    await expectLedgerClean(live)
  })

  it("a PIX of another amount: transaction.failed with receivedAmount, then refunded is told; the list shows both", async () => {
    const m = await live.merchant()
    const c = await send(live.h.base, "POST", "/api/v1/charges", { key: m.liveKey, body: { amount: 20 } })
    expect(c.status).toBe(201)
    const id = c.body.transactionId as string
    const pix = await live.psp.payCob(c.body.txid, { valor: "2.00", callback: "now" })
    await until("the refund is told", () =>
      events("transaction.failed", id).some((e) => e.data.status === "refunded")
    )
    const told = events("transaction.failed", id)
    expect(told.map((e) => e.data.status)).toEqual(["failed", "refunded"])
    for (const e of told) {
      expect(e.data).toMatchObject({
        reason: "amount_mismatch",
        receivedAmount: 2,
        amount: 20,
        endToEndId: pix.endToEndId
      })
    }
    expect(await find(m.liveKey, id)).toMatchObject({
      status: "refunded",
      failureReason: "amount_mismatch",
      receivedAmount: 2,
      endToEndId: pix.endToEndId
    })
    await expectLedgerClean(live)
  })

  it("logs tell a send not made from a send with no answer", async () => {
    const m = await funded(30)
    const logged = (id: string, words: string) => live.h.logs.some((l) => l.includes(id) && l.includes(words))
    // The bank cannot be asked: nothing is sent this time.
    live.psp.addFault({ route: "send.get", kind: "status", status: 503, times: 1 })
    const asked = (await payout(m.liveKey, 5)).body.transactionId as string
    await until("the unasked send logged", () => logged(asked, "nothing was sent this time"))
    expect(logged(asked, "may have reached the bank")).toBe(false)
    // The bank takes the send but its answer is lost: it may have reached the bank.
    live.psp.addFault({ route: "send.put", kind: "status", status: 500, after: true, times: 1 })
    const lost = (await payout(m.liveKey, 5)).body.transactionId as string
    await until("the unanswered send logged", () => logged(lost, "may have reached the bank"))
    for (const id of [asked, lost]) {
      await until("the send reaches the bank", () => sendOf(id) !== undefined)
      await live.psp.settleSend(Gateway.idEnvio(id), { callback: "now" })
      await until("completed", async () => (await find(m.liveKey, id))?.status === "completed")
      expect((await find(m.liveKey, id))?.endToEndId).toBe(sendOf(id)?.e2eId)
    }
    live.psp.clearFaults()
    await expectLedgerClean(live)
  })

  it("a devolução the PSP refuses is logged with its code and words, and asked again", async () => {
    const m = await live.merchant()
    const c = await send(live.h.base, "POST", "/api/v1/charges", { key: m.liveKey, body: { amount: 20 } })
    const id = c.body.transactionId as string
    live.psp.addFault({ route: "devolucao.put", kind: "status", status: 400, times: 1 })
    try {
      await live.psp.payCob(c.body.txid, { valor: "3.00", callback: "now" })
      await until("refunded", async () => (await find(m.liveKey, id))?.status === "refunded")
      expect(
        live.h.logs.some(
          (l) => l.includes(id) && l.includes("refused a PIX's return") && l.includes("bankCode")
        )
      ).toBe(true)
    } finally {
      live.psp.clearFaults()
    }
    await expectLedgerClean(live)
  })

  it("no live answer or event ever carried an end-to-end id the bank did not issue", async () => {
    const ids = live.webhooks.flatMap((w) =>
      typeof w.data.endToEndId === "string" ? [w.data.endToEndId] : []
    )
    expect(ids.length).toBeGreaterThan(0)
    expect(ids.filter((e) => invented.test(e))).toEqual([])
    const created = live.webhooks.filter(
      (w) => w.type === "withdrawal.created" || w.type === "transaction.created"
    )
    expect(created.length).toBeGreaterThan(0)
    for (const w of created) expect(w.data.endToEndId).toBeUndefined()
    // Every event received has the documented shape (the OpenAPI document's webhooks).
    const decode = Schema.decodeUnknownEither(Events.WebhookEvent, { onExcessProperty: "error" })
    for (const w of live.webhooks) {
      const body = { id: "evt_x", event: w.type, data: w.data, timestamp: new Date().toISOString() }
      expect(Either.isRight(decode(body)), JSON.stringify(body)).toBe(true)
    }
  })
})

describe("live: a PIX after the charge expired, returned to its payer", () => {
  let live: Live
  let dir: string
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pixgate-live-payouts-late-"))
    // The PSP's clock runs two hours ahead: every PIX it reports arrives after a 1 h charge expired.
    live = await startLive(
      `sqlite:${join(dir, "late.db")}`,
      {},
      { ispb: bankIspb, now: () => new Date(Date.now() + 2 * 3_600_000) }
    )
  })
  afterAll(async () => {
    await live?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it("is told as failed (paid_after_expiry) and then refunded, with what was received", async () => {
    const m = await live.merchant()
    const c = await send(live.h.base, "POST", "/api/v1/charges", { key: m.liveKey, body: { amount: 15 } })
    expect(c.status).toBe(201)
    const id = c.body.transactionId as string
    const pix = await live.psp.payCob(c.body.txid, { valor: "15.00", callback: "now" })
    const told = () =>
      live.webhooks.filter((w) => w.type === "transaction.failed" && w.data.transactionId === id)
    await until("the refund is told", () => told().some((e) => e.data.status === "refunded"))
    expect(told().map((e) => e.data.status)).toEqual(["failed", "refunded"])
    for (const e of told()) {
      expect(e.data).toMatchObject({
        reason: "paid_after_expiry",
        receivedAmount: 15,
        endToEndId: pix.endToEndId
      })
    }
    const rows = (await send(live.h.base, "GET", "/api/v1/transactions", { key: m.liveKey })).body
      .data as Array<Record<string, unknown>>
    expect(rows.find((t) => t.id === id)).toMatchObject({
      status: "refunded",
      failureReason: "paid_after_expiry",
      receivedAmount: 15
    })
    await expectLedgerClean(live)
  })
})
