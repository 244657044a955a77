/**
 * Live mode end to end against the PSP simulator (mTLS, OAuth2, API Pix, Efí-style sends), on
 * SQLite and on Postgres: charges paid by the bank complete once whatever its callbacks do, a
 * lost callback is found by reconciliation, tokens are renewed, a PSP that is down never loses
 * or doubles money, rejected sends return it, unknown outcomes are asked about and never sent
 * twice. The live ledger is checked after each.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Gateway } from "@pixgate/gateway-apipix"
import { send } from "@pixgate/testkit/harness"
import { expectLedgerClean, type Live, liveStores, startLive, until } from "@pixgate/testkit/live"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const stores = liveStores("pixgate-live")

describe.each(stores)("live mode against the PSP simulator on $name", (store) => {
  let live: Live
  let drop: () => Promise<void> = async () => {}
  beforeAll(async () => {
    const db = await store.open()
    drop = db.drop
    live = await startLive(db.url)
  })
  afterAll(async () => {
    if (process.env.LIVE_DEBUG) {
      console.log(
        live?.h.logs
          .filter((l) => !l.includes('"level":"INFO"'))
          .slice(0, 40)
          .join("\n")
      )
      console.log(JSON.stringify(live?.psp.deliveries.slice(0, 5)))
      console.log(JSON.stringify(live?.psp.requests.slice(0, 30)))
    }
    await live?.close()
    await drop()
  })

  const list = async (key: string) =>
    (await send(live.h.base, "GET", "/api/v1/transactions?limit=100", { key })).body.data as Array<
      Record<string, unknown> & { id: string; status: string }
    >
  const find = async (key: string, id: string) => (await list(key)).find((t) => t.id === id)
  const statusOf = async (key: string, id: string) => (await find(key, id))?.status
  const balance = (merchantId: string) => live.h.engine((e) => e.admin.balance(merchantId, "live"))
  const charge = async (key: string, amount: number) => {
    const answer = await send(live.h.base, "POST", "/api/v1/charges", { key, body: { amount } })
    expect(answer.status, answer.text).toBe(201)
    return answer.body as { transactionId: string; txid: string; qrCode: string }
  }
  /** A merchant with `amount` reais paid in through the bank. */
  const funded = async (amount: number) => {
    const m = await live.merchant()
    const c = await charge(m.liveKey, amount)
    await live.psp.payCob(c.txid, { callback: "now" })
    await until(
      "the funding charge completes",
      async () => (await statusOf(m.liveKey, c.transactionId)) === "completed"
    )
    return m
  }
  const payout = async (key: string, amount: number) => {
    const answer = await send(live.h.base, "POST", "/api/v1/payouts", {
      key,
      body: { amount, pixKey: "destino@banco.example" }
    })
    expect(answer.status, answer.text).toBe(201)
    expect(answer.body.status).toBe("pending")
    return answer.body as { transactionId: string }
  }
  const sendOf = (payoutId: string) => live.psp.state.sends.get(Gateway.idEnvio(payoutId))
  const sendPuts = (payoutId: string) =>
    live.psp.requests.filter((r) => r.route === "send.put" && r.path.endsWith(Gateway.idEnvio(payoutId)))
      .length

  it("a charge paid at the bank completes with the bank's endToEndId and sends transaction.completed", async () => {
    const m = await live.merchant()
    const c = await charge(m.liveKey, 12.34)
    const cob = live.psp.state.cobs.get(c.txid)
    expect(cob?.valor.original).toBe("12.34")
    expect(c.qrCode).toBe(cob?.pixCopiaECola)
    const pix = await live.psp.payCob(c.txid, { callback: "now" })
    await until("completed", async () => (await statusOf(m.liveKey, c.transactionId)) === "completed")
    expect(await find(m.liveKey, c.transactionId)).toMatchObject({
      endToEndId: pix.endToEndId,
      amount: 12.34
    })
    await until("transaction.completed delivered", () =>
      live.webhooks.some(
        (w) => w.type === "transaction.completed" && w.data.transactionId === c.transactionId
      )
    )
    const event = live.webhooks.find(
      (w) => w.type === "transaction.completed" && w.data.transactionId === c.transactionId
    )
    expect(event?.data).toMatchObject({ endToEndId: pix.endToEndId, status: "completed" })
    await expectLedgerClean(live)
  })

  it("duplicate, late and out-of-order callbacks change nothing", async () => {
    const m = await live.merchant()
    const twice = await charge(m.liveKey, 10)
    const pix = await live.psp.payCob(twice.txid, { callback: "twice" })
    await until("completed", async () => (await statusOf(m.liveKey, twice.transactionId)) === "completed")
    const afterOne = await balance(m.merchantId)

    // Out of order: two callbacks held, then delivered in reverse.
    const a = await charge(m.liveKey, 10)
    const b = await charge(m.liveKey, 10)
    await live.psp.payCob(a.txid, { callback: "hold" })
    await live.psp.payCob(b.txid, { callback: "hold" })
    await live.psp.releaseCallbacks("reverse")
    await until("both completed", async () => {
      const rows = await list(m.liveKey)
      return [a, b].every((c) => rows.find((t) => t.id === c.transactionId)?.status === "completed")
    })
    // Late: the first PIX's callback again, long after; and once more with a changed amount.
    const late = await send(live.h.base, "POST", `/bank/callbacks/${live.secret}/pix`, {
      body: {
        pix: [
          { endToEndId: pix.endToEndId, txid: twice.txid, valor: "10.00", horario: new Date().toISOString() }
        ]
      }
    })
    expect(late.status).toBe(200)
    const forged = await send(live.h.base, "POST", `/bank/callbacks/${live.secret}/pix`, {
      body: { pix: [{ endToEndId: pix.endToEndId, txid: twice.txid, valor: "99.00" }] }
    })
    expect(forged.status).toBe(200)
    const end = await balance(m.merchantId)
    expect(end.available).toBeCloseTo(afterOne.available * 3, 2)
    const completions = () =>
      live.webhooks.filter(
        (w) =>
          w.type === "transaction.completed" &&
          [twice, a, b].some((c) => c.transactionId === w.data.transactionId)
      ).length
    await until("three completions delivered", () => completions() >= 3)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(completions()).toBe(3)
    await expectLedgerClean(live)
  })

  it("a wrong secret is a 404 and changes nothing", async () => {
    const answer = await send(live.h.base, "POST", `/bank/callbacks/${"x".repeat(48)}/pix`, {
      body: { pix: [] }
    })
    expect(answer.status).toBe(404)
  })

  it("a callback never sent is caught by reconciliation", async () => {
    const m = await live.merchant()
    const c = await charge(m.liveKey, 7.5)
    await live.psp.payCob(c.txid, { callback: "never" })
    await until("reconciled", async () => (await statusOf(m.liveKey, c.transactionId)) === "completed")
    await expectLedgerClean(live)
  })

  it("a PIX of another amount is recorded, not credited, and returned to the payer", async () => {
    const m = await live.merchant()
    const c = await charge(m.liveKey, 20)
    const before = await balance(m.merchantId)
    const pix = await live.psp.payCob(c.txid, { valor: "2.00", callback: "now" })
    await until("refunded", async () => (await statusOf(m.liveKey, c.transactionId)) === "refunded")
    expect(await balance(m.merchantId)).toEqual(before)
    const devolucoes = live.psp.state.pix.get(pix.endToEndId)?.devolucoes ?? []
    expect(devolucoes.map((d) => d.valor)).toEqual(["2.00"])
    await expectLedgerClean(live)
  })

  it("a token that expires mid-run is renewed", async () => {
    const m = await live.merchant()
    await charge(m.liveKey, 1)
    live.psp.expireTokens()
    await charge(m.liveKey, 2)
    live.psp.addFault({ route: "cob.put", kind: "expireToken", times: 1 })
    await charge(m.liveKey, 3)
    const tokens = () => live.psp.requests.filter((r) => r.route === "token" && r.outcome === 200).length
    expect(tokens()).toBeGreaterThanOrEqual(3)
    // Many callers at once on an expired token: one renewal for all of them.
    const before = tokens()
    live.psp.expireTokens()
    await Promise.all(Array.from({ length: 8 }, (_, i) => charge(m.liveKey, 4 + i)))
    expect(tokens()).toBe(before + 1)
    await expectLedgerClean(live)
  })

  it("the PSP down: 502 on charges, payouts stay pending and settle after it recovers", async () => {
    const m = await funded(50)
    const before = await balance(m.merchantId)
    live.psp.addFault({ route: "*", kind: "status", status: 503 })
    try {
      const refused = await send(live.h.base, "POST", "/api/v1/charges", {
        key: m.liveKey,
        body: { amount: 5 }
      })
      expect(refused.status).toBe(502)
      expect(refused.body).toEqual({ error: "Failed to create charge", code: "gateway_error" })
      const p = await payout(m.liveKey, 10)
      await new Promise((resolve) => setTimeout(resolve, 1500))
      expect(await statusOf(m.liveKey, p.transactionId)).toBe("pending")
      expect((await balance(m.merchantId)).available).toBeLessThan(before.available - 9.99)
      expect(sendOf(p.transactionId)).toBeUndefined()
      live.psp.clearFaults()
      await until("the send reaches the bank", () => sendOf(p.transactionId) !== undefined)
      await live.psp.settleSend(Gateway.idEnvio(p.transactionId), { callback: "now" })
      await until("settled", async () => (await statusOf(m.liveKey, p.transactionId)) === "completed")
      // The first attempt sends without asking and meets the outage (a 503: nothing carried
      // out); every later attempt asks first, and the one send the bank took follows its 404.
      const calls = live.psp.requests
        .filter(
          (r) =>
            (r.route === "send.put" || r.route === "send.get") &&
            r.path.endsWith(Gateway.idEnvio(p.transactionId))
        )
        .map((r) => `${r.route} ${r.outcome}`)
      expect(calls[0]).toBe("send.put 503")
      expect(calls.filter((c) => c.startsWith("send.put") && c !== "send.put 503")).toEqual(["send.put 201"])
      const taken = calls.indexOf("send.put 201")
      expect(calls[taken - 1]).toBe("send.get 404")
      expect(calls.slice(1, taken).every((c) => c.startsWith("send.get"))).toBe(true)
      expect(
        [...live.psp.state.sends.values()].filter((s) => s.idEnvio === Gateway.idEnvio(p.transactionId))
      ).toHaveLength(1)
      expect(await find(m.liveKey, p.transactionId)).toMatchObject({
        endToEndId: sendOf(p.transactionId)?.e2eId
      })
    } finally {
      live.psp.clearFaults()
    }
    await expectLedgerClean(live)
  })

  it("a rejected send fails the payout and returns the balance", async () => {
    const m = await funded(30)
    const before = await balance(m.merchantId)
    const p = await payout(m.liveKey, 10)
    await until("the send reaches the bank", () => sendOf(p.transactionId) !== undefined)
    await live.psp.rejectSend(Gateway.idEnvio(p.transactionId), { callback: "never" })
    await until("failed", async () => (await statusOf(m.liveKey, p.transactionId)) === "failed")
    expect(await balance(m.merchantId)).toEqual(before)
    await expectLedgerClean(live)
  })

  it("an unknown outcome followed by the bank's 'it went through' makes exactly one transfer", async () => {
    const m = await funded(30)
    // The PSP accepts the send, but its answer is lost (a 500 after doing the work).
    live.psp.addFault({ route: "send.put", kind: "status", status: 500, after: true, times: 1 })
    const p = await payout(m.liveKey, 10)
    await until("the send reaches the bank", () => sendOf(p.transactionId) !== undefined)
    // Several polls go by with the send still in processing: never a second send.
    await until(
      "asked about",
      () =>
        live.psp.requests.filter(
          (r) => r.route === "send.get" && r.path.endsWith(Gateway.idEnvio(p.transactionId))
        ).length >= 3
    )
    expect(await statusOf(m.liveKey, p.transactionId)).toBe("pending")
    await live.psp.settleSend(Gateway.idEnvio(p.transactionId), { callback: "never" })
    await until("settled", async () => (await statusOf(m.liveKey, p.transactionId)) === "completed")
    expect(sendPuts(p.transactionId)).toBe(1)
    expect(
      [...live.psp.state.sends.values()].filter((s) => s.idEnvio === Gateway.idEnvio(p.transactionId))
    ).toHaveLength(1)
    await expectLedgerClean(live)
  })
})

describe("live mode: a PIX after the charge expired", () => {
  let live: Live
  let dir: string
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pixgate-live-late-"))
    // The PSP's clock runs two hours ahead: every PIX it reports arrives after a 1 h charge expired.
    live = await startLive(
      `sqlite:${join(dir, "late.db")}`,
      {},
      { now: () => new Date(Date.now() + 2 * 3_600_000) }
    )
  })
  afterAll(async () => {
    await live?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it("is recorded on the charge, never credited, and returned to the payer automatically", async () => {
    const m = await live.merchant()
    const created = await send(live.h.base, "POST", "/api/v1/charges", {
      key: m.liveKey,
      body: { amount: 15 }
    })
    expect(created.status).toBe(201)
    const before = await live.h.engine((e) => e.admin.balance(m.merchantId, "live"))
    const pix = await live.psp.payCob(created.body.txid, { callback: "now" })
    const statusOf = async () =>
      (
        (await send(live.h.base, "GET", "/api/v1/transactions", { key: m.liveKey })).body.data as Array<{
          id: string
          status: string
          endToEndId: string | null
        }>
      ).find((t) => t.id === created.body.transactionId)
    await until("refunded", async () => (await statusOf())?.status === "refunded")
    expect((await statusOf())?.endToEndId).toBe(pix.endToEndId)
    expect(await live.h.engine((e) => e.admin.balance(m.merchantId, "live"))).toEqual(before)
    expect(live.psp.state.pix.get(pix.endToEndId)?.devolucoes.map((d) => [d.valor, d.status])).toEqual([
      ["15.00", "DEVOLVIDO"]
    ])
    await until("transaction.failed delivered", () =>
      live.webhooks.some((w) => w.type === "transaction.failed" && w.data.reason === "paid_after_expiry")
    )
    await expectLedgerClean(live)
  })
})
