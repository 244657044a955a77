/**
 * Live charges through the Asaas gateway against the simulated Asaas, on SQLite and Postgres: a
 * charge is an Asaas Pix payment under its txid whose QR code is Asaas's; paid, it completes
 * once with the Pix's end-to-end id whatever the webhooks do; a webhook without the configured
 * token, or about a payment not received, changes nothing; a Pix Asaas still holds (CONFIRMED)
 * is not credited; a lost webhook is found by reconciliation; a creation Asaas never answered is
 * a 502 whose same-key retry adopts Asaas's payment, and one nobody came back for is removed at
 * Asaas; a 429 or an Asaas that is down is a 502 that makes nothing. Expiry: an expired charge's
 * payment is removed at Asaas, and a Pix that still arrives after the expiry is returned.
 */
import { randomUUID } from "node:crypto"
import { send } from "@pixgate/testkit/harness"
import { liveStores, until } from "@pixgate/testkit/live"
import { expectAsaasLedgerClean, type LiveAsaas, startLiveAsaas } from "@pixgate/testkit/liveAsaas"
import { must } from "@pixgate/testkit/must"
import { testWaitMs } from "@pixgate/testkit/wait"
import { Duration, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const stores = liveStores("pixgate-live-asaas")
const deadlineMs = 4000
const windowMs = 12_000
/** The São Paulo day of an ISO moment (UTC-3 all year). */
const dayOf = (iso: string) => new Date(Date.parse(iso) - 3 * 3_600_000).toISOString().slice(0, 10)

/** Helpers over one live engine. */
const helpers = (get: () => LiveAsaas) => {
  const create = (key: string, body: Record<string, unknown>, idempotencyKey?: string) =>
    send(get().h.base, "POST", "/api/v1/charges", {
      key,
      body,
      ...(idempotencyKey === undefined ? {} : { headers: { "idempotency-key": idempotencyKey } })
    })
  const charge = async (key: string, amount: number, extra: Record<string, unknown> = {}) => {
    const answer = await create(key, { amount, ...extra })
    expect(answer.status, answer.text).toBe(201)
    return answer.body as { transactionId: string; txid: string; qrCode: string; expiresAt: string }
  }
  const find = async (key: string, id: string) =>
    (
      (await send(get().h.base, "GET", "/api/v1/transactions?limit=100", { key })).body.data as Array<
        Record<string, unknown> & { id: string; status: string }
      >
    ).find((t) => t.id === id)
  const statusOf = async (key: string, id: string) => (await find(key, id))?.status
  const paymentOf = (txid: string) => must(get().sim.paymentOf(txid), `the Asaas payment of ${txid}`)
  const events = (type: string, id: string) =>
    get().webhooks.filter((w) => w.type === type && w.data.transactionId === id)
  return { create, charge, find, statusOf, paymentOf, events }
}

describe.each(stores)("live charges through Asaas on $name", (store) => {
  let live: LiveAsaas
  let drop: () => Promise<void> = async () => {}
  beforeAll(async () => {
    const db = await store.open()
    drop = db.drop
    live = await startLiveAsaas(db.url, { timeoutMs: deadlineMs, unknownChargeWindowMs: windowMs })
  })
  afterAll(async () => {
    await live?.close()
    await drop()
  })
  const { create, charge, find, statusOf, paymentOf, events } = helpers(() => live)
  const callback = (body: unknown, token?: string) =>
    send(live.h.base, "POST", `/bank/callbacks/${live.secret}`, {
      body,
      ...(token === undefined ? {} : { headers: { "asaas-access-token": token } })
    })
  const token = () => Redacted.value(must(live.settings.webhookToken, "the webhook token"))

  it("a charge is an Asaas Pix payment under its txid; paid, it completes once with the Pix's end-to-end id", async () => {
    const m = await live.merchant()
    const c = await charge(m.liveKey, 12.34, { description: "2 cafes" })
    const payment = paymentOf(c.txid)
    expect(payment).toMatchObject({
      value: 1234,
      customer: live.customerId,
      // The day the charge expires, in São Paulo.
      dueDate: dayOf(c.expiresAt),
      description: "2 cafes"
    })
    expect(c.qrCode).toBe(payment.payload)
    // Delivered twice (Asaas delivers at least once): credited once.
    const pix = await live.sim.pay(payment.id, { events: "twice" })
    await until("completed", async () => (await statusOf(m.liveKey, c.transactionId)) === "completed")
    expect(await find(m.liveKey, c.transactionId)).toMatchObject({
      endToEndId: pix.endToEndIdentifier,
      amount: 12.34
    })
    const delivered = live.sim.deliveries.filter(
      (d) => d.event === "PAYMENT_RECEIVED" && (d.body.payment as { id: string }).id === payment.id
    )
    expect(delivered.map((d) => [d.status, d.token])).toEqual([
      [200, token()],
      [200, token()]
    ])
    await until(
      "transaction.completed delivered",
      () => events("transaction.completed", c.transactionId).length > 0
    )
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(events("transaction.completed", c.transactionId)).toHaveLength(1)
    await expectAsaasLedgerClean(live)
  })

  it("a charge with its payer's name and CPF is made out to the payer's own customer, found again next time", async () => {
    const m = await live.merchant()
    const payer = { clientName: "Fulano de Tal", clientDoc: "123.456.789-09" }
    const first = await charge(m.liveKey, 5, payer)
    const second = await charge(m.liveKey, 6, payer)
    const customers = [...live.sim.state.customers.values()].filter((c) => c.cpfCnpj === "12345678909")
    expect(customers).toMatchObject([{ name: "Fulano de Tal", notificationDisabled: true }])
    expect([paymentOf(first.txid).customer, paymentOf(second.txid).customer]).toEqual([
      customers[0]?.id,
      customers[0]?.id
    ])
  })

  it("a webhook without the configured token is refused; one about a payment not received changes nothing", async () => {
    const m = await live.merchant()
    const c = await charge(m.liveKey, 9)
    const event = { id: "evt_forged", event: "PAYMENT_RECEIVED", payment: { id: paymentOf(c.txid).id } }
    expect((await callback(event)).status).toBe(503)
    expect((await callback(event, "x".repeat(48))).status).toBe(503)
    expect((await callback(event, token())).status).toBe(200)
    expect(await statusOf(m.liveKey, c.transactionId)).toBe("pending")
    expect(
      (await callback({ event: "PAYMENT_RECEIVED", payment: { id: "pay_unknown" } }, token())).status
    ).toBe(200)
  })

  it("a Pix Asaas still holds (CONFIRMED) is not credited until Asaas says RECEIVED", async () => {
    const m = await live.merchant()
    const c = await charge(m.liveKey, 15)
    const payment = paymentOf(c.txid)
    await live.sim.pay(payment.id, { status: "CONFIRMED" })
    await new Promise((resolve) => setTimeout(resolve, 2500))
    expect(await statusOf(m.liveKey, c.transactionId)).toBe("pending")
    await live.sim.receive(payment.id)
    await until("completed", async () => (await statusOf(m.liveKey, c.transactionId)) === "completed")
    await expectAsaasLedgerClean(live)
  })

  it("a Pix whose webhook never came is found by reconciliation", async () => {
    const m = await live.merchant()
    const c = await charge(m.liveKey, 7.5)
    const pix = await live.sim.pay(paymentOf(c.txid).id, { events: "never" })
    await until("reconciled", async () => (await statusOf(m.liveKey, c.transactionId)) === "completed")
    expect((await find(m.liveKey, c.transactionId))?.endToEndId).toBe(pix.endToEndIdentifier)
    expect(
      live.sim.requests.some((r) => r.route === "payments.list" && r.query.includes("status=RECEIVED"))
    ).toBe(true)
    await expectAsaasLedgerClean(live)
  })

  it("a creation Asaas never answered: 502; the same-key retry adopts its payment; one nobody came back for is removed", async () => {
    const m = await live.merchant()
    const unknownAttempts = () =>
      live.h.logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((l) => l.msg === "Creating a charge at the bank had an unknown outcome; it is found out")
        .map((l) => ({ transactionId: String(l.transactionId), txid: String(l.txid) }))
    const before = unknownAttempts().length
    live.sim.addFault({ route: "payments.create", kind: "timeout", after: true, times: 2 })
    const adoptedKey = randomUUID()
    expect((await create(m.liveKey, { amount: 20 }, adoptedKey)).status).toBe(502)
    expect((await create(m.liveKey, { amount: 21 }, randomUUID())).status).toBe(502)
    const [adopted, abandoned] = unknownAttempts().slice(before)
    expect(paymentOf(must(adopted, "the first attempt").txid).deleted).toBe(false)
    const retried = await create(m.liveKey, { amount: 20 }, adoptedKey)
    expect(retried.status, retried.text).toBe(201)
    expect(retried.body).toMatchObject({ transactionId: adopted?.transactionId, txid: adopted?.txid })
    const byReference = (txid: string) =>
      [...live.sim.state.payments.values()].filter((p) => p.externalReference === txid)
    expect(byReference(adopted?.txid ?? "")).toHaveLength(1)
    await until(
      "the abandoned payment is removed at Asaas",
      () => paymentOf(abandoned?.txid ?? "").deleted,
      windowMs + testWaitMs
    )
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(paymentOf(adopted?.txid ?? "").deleted).toBe(false)
    expect(await statusOf(m.liveKey, adopted?.transactionId ?? "")).toBe("pending")
  })

  it("a 429 on creation, or Asaas down, is a 502 that makes nothing; the key is free for a retry", async () => {
    const m = await live.merchant()
    const made = () => live.sim.state.payments.size
    const before = made()
    const key = randomUUID()
    live.sim.addFault({ route: "payments.create", kind: "status", status: 429, retryAfter: 1, times: 1 })
    const throttled = await create(m.liveKey, { amount: 3 }, key)
    expect([throttled.status, throttled.body.code]).toEqual([502, "gateway_error"])
    expect(made()).toBe(before)
    expect(
      live.h.logs.some(
        (l) => l.includes("Asaas refused the creation of a charge") && l.includes("too_many_requests")
      )
    ).toBe(true)
    expect((await create(m.liveKey, { amount: 3 }, key)).status).toBe(201)
    live.sim.addFault({ route: "*", kind: "status", status: 503 })
    try {
      expect((await create(m.liveKey, { amount: 4 })).status).toBe(502)
    } finally {
      live.sim.clearFaults()
    }
    expect((await create(m.liveKey, { amount: 4 })).status).toBe(201)
  })
})

describe.each(stores)("live charges through Asaas that expire, on $name", (store) => {
  let live: LiveAsaas
  let drop: () => Promise<void> = async () => {}
  beforeAll(async () => {
    const db = await store.open()
    drop = db.drop
    const config = {
      allowPrivateWebhookUrls: true,
      allowInsecureLiveWebhooks: true,
      jobLease: Duration.seconds(5),
      chargeExpiry: Duration.seconds(3)
    }
    live = await startLiveAsaas(db.url, {}, {}, { engine: { config } })
  })
  afterAll(async () => {
    await live?.close()
    await drop()
  })
  const { charge, find, statusOf, paymentOf, events } = helpers(() => live)

  it("an expired charge fails (expired) and its payment is removed at Asaas: it can no longer be paid", async () => {
    const m = await live.merchant()
    const c = await charge(m.liveKey, 10)
    await until("expired", async () => (await statusOf(m.liveKey, c.transactionId)) === "failed")
    expect((await find(m.liveKey, c.transactionId))?.failureReason).toBe("expired")
    await until("removed at Asaas", () => paymentOf(c.txid).deleted)
    await expect(live.sim.pay(paymentOf(c.txid).id)).rejects.toThrow(/removed/)
    expect(live.sim.requests.filter((r) => r.route === "payments.delete")).toHaveLength(1)
  })

  it("a Pix that arrives after the expiry is recorded, never credited, and returned to its payer", async () => {
    const m = await live.merchant()
    const before = await live.h.engine((e) => e.admin.balance(m.merchantId, "live"))
    // Asaas does not remove the payment in time: the payer pays after the charge expired.
    live.sim.addFault({ route: "payments.delete", kind: "status", status: 500 })
    try {
      const c = await charge(m.liveKey, 15)
      await until("expired", async () => (await statusOf(m.liveKey, c.transactionId)) === "failed")
      const pix = await live.sim.pay(paymentOf(c.txid).id)
      await until("refunded", async () => (await statusOf(m.liveKey, c.transactionId)) === "refunded")
      expect(await find(m.liveKey, c.transactionId)).toMatchObject({
        failureReason: "paid_after_expiry",
        receivedAmount: 15,
        endToEndId: pix.endToEndIdentifier
      })
      expect(paymentOf(c.txid).refunds.map((r) => [r.value, r.status])).toEqual([[1500, "DONE"]])
      expect(await live.h.engine((e) => e.admin.balance(m.merchantId, "live"))).toEqual(before)
      await until("the refund is told", () =>
        events("transaction.failed", c.transactionId).some((e) => e.data.status === "refunded")
      )
    } finally {
      live.sim.clearFaults()
    }
    await expectAsaasLedgerClean(live)
  })
})
