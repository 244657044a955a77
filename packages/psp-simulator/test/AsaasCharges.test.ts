/**
 * The simulated Asaas's charges as its documentation describes them: the `access_token` header,
 * customers, Pix payments and their QR codes, a payer's Pix (with its Pix transaction and the
 * `PAYMENT_RECEIVED` event carrying the webhook's token), removal, refunds that add up to at most
 * the payment, and faults in Asaas's error shape.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { AsaasSimulator } from "../src/index.js"
import { asaas, eventReceiver } from "./asaasHelpers.js"
import { eventually } from "./helpers.js"

let sim: AsaasSimulator.AsaasSimulator
let hooks: Awaited<ReturnType<typeof eventReceiver>>
let customer: string
const token = "t".repeat(40)
const today = () => new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10)

const newPayment = async (value = 12.34, externalReference = `ref${Math.random()}`) => {
  const answer = await asaas(sim, "POST", "/payments", {
    body: { customer, billingType: "PIX", value, dueDate: today(), externalReference }
  })
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return answer.body as { id: string; status: string; value: number }
}

beforeAll(async () => {
  sim = await AsaasSimulator.start()
  hooks = await eventReceiver()
  customer = sim.createCustomer("Loja Teste", "12345678000195")
  const created = await asaas(sim, "POST", "/webhooks", {
    body: {
      name: "pixgate",
      url: hooks.url,
      email: "ops@example.com",
      enabled: true,
      interrupted: false,
      authToken: token,
      sendType: "SEQUENTIALLY",
      events: ["PAYMENT_RECEIVED", "PAYMENT_CONFIRMED", "PAYMENT_REFUNDED", "PAYMENT_PARTIALLY_REFUNDED"]
    }
  })
  expect(created.status).toBe(200)
  expect(created.body.authToken).toBeNull()
})
beforeEach(() => sim.clearFaults())
afterAll(async () => {
  await sim?.close()
  await hooks?.close()
})

describe("the simulated Asaas", () => {
  it("answers 401 in its error shape without the right access_token, 400 without a User-Agent", async () => {
    const none = await asaas(sim, "GET", "/payments", { apiKey: null })
    expect([none.status, none.body.errors[0].code]).toEqual([401, "invalid_access_token"])
    const wrong = await asaas(sim, "GET", "/payments", { apiKey: "$aact_wrong" })
    expect(wrong.status).toBe(401)
    const anonymous = await asaas(sim, "GET", "/payments", { userAgent: "" })
    expect(anonymous.status).toBe(400)
  })

  it("registers customers and finds them by CPF/CNPJ; refuses a bad document", async () => {
    const made = await asaas(sim, "POST", "/customers", {
      body: { name: "Fulano", cpfCnpj: "123.456.789-09", notificationDisabled: true }
    })
    expect(made.body).toMatchObject({
      object: "customer",
      cpfCnpj: "12345678909",
      notificationDisabled: true
    })
    const found = await asaas(sim, "GET", "/customers?cpfCnpj=12345678909")
    expect(found.body).toMatchObject({ object: "list", totalCount: 1, data: [{ id: made.body.id }] })
    const bad = await asaas(sim, "POST", "/customers", { body: { name: "X", cpfCnpj: "123" } })
    expect([bad.status, bad.body.errors[0].code]).toEqual([400, "invalid_cpfCnpj"])
  })

  it("creates a Pix payment with a dynamic QR code, lists it by externalReference, refuses bad input", async () => {
    const payment = await newPayment(10.5, "txid-list-1")
    expect(payment).toMatchObject({ status: "PENDING", value: 10.5 })
    const qr = await asaas(sim, "GET", `/payments/${payment.id}/pixQrCode`)
    expect(qr.body.payload).toMatch(/^000201010212/)
    expect(qr.body.payload).toContain("pix.asaas.simulado/qr/cobv/")
    const listed = await asaas(sim, "GET", "/payments?externalReference=txid-list-1")
    expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([payment.id])
    const past = await asaas(sim, "POST", "/payments", {
      body: { customer, billingType: "PIX", value: 1, dueDate: "2020-01-01" }
    })
    expect([past.status, past.body.errors[0].code]).toEqual([400, "invalid_dueDate"])
    const cents = await asaas(sim, "POST", "/payments", {
      body: { customer, billingType: "PIX", value: 1.005, dueDate: today() }
    })
    expect(cents.status).toBe(400)
  })

  it("a payer's Pix: RECEIVED with a Pix transaction, PAYMENT_RECEIVED with the token; paid cannot be removed", async () => {
    const payment = await newPayment(20)
    const pix = await sim.pay(payment.id)
    const read = await asaas(sim, "GET", `/payments/${payment.id}`)
    expect(read.body).toMatchObject({ status: "RECEIVED", pixTransaction: pix.id, paymentDate: today() })
    const transaction = await asaas(sim, "GET", `/pix/transactions/${pix.id}`)
    expect(transaction.body).toMatchObject({
      endToEndIdentifier: pix.endToEndIdentifier,
      payment: payment.id
    })
    expect(pix.endToEndIdentifier).toMatch(/^E19540550\d{12}[A-Za-z0-9]{11}$/)
    const event = hooks.received.find(
      (e) => e.body.event === "PAYMENT_RECEIVED" && (e.body.payment as { id: string }).id === payment.id
    )
    expect(event?.token).toBe(token)
    expect(event?.body.id).toMatch(/^evt_/)
    const removed = await asaas(sim, "DELETE", `/payments/${payment.id}`)
    expect(removed.status).toBe(400)
    await expect(sim.pay(payment.id)).rejects.toThrow()
  })

  it("a removed payment can no longer be paid and leaves the lists", async () => {
    const payment = await newPayment(5, "txid-removed")
    const removed = await asaas(sim, "DELETE", `/payments/${payment.id}`)
    expect(removed.body).toEqual({ deleted: true, id: payment.id })
    expect((await asaas(sim, "GET", `/payments/${payment.id}`)).body.deleted).toBe(true)
    expect((await asaas(sim, "GET", `/payments/${payment.id}/pixQrCode`)).status).toBe(400)
    expect((await asaas(sim, "GET", "/payments?externalReference=txid-removed")).body.data).toEqual([])
    await expect(sim.pay(payment.id)).rejects.toThrow(/removed/)
  })

  it("a precautionary block: CONFIRMED first, RECEIVED when released", async () => {
    const payment = await newPayment(7)
    await sim.pay(payment.id, { status: "CONFIRMED" })
    expect((await asaas(sim, "GET", `/payments/${payment.id}`)).body.status).toBe("CONFIRMED")
    await sim.receive(payment.id)
    expect((await asaas(sim, "GET", `/payments/${payment.id}`)).body.status).toBe("RECEIVED")
  })

  it("refunds: partial ones add up to at most the payment, each listed with its description and status", async () => {
    const payment = await newPayment(30)
    await sim.pay(payment.id)
    const first = await asaas(sim, "POST", `/payments/${payment.id}/refund`, {
      body: { value: 10, description: "pixgate:rfdone parcial" }
    })
    expect(first.status).toBe(200)
    expect(first.body.refunds).toMatchObject([
      { value: 10, status: "PENDING", description: "pixgate:rfdone parcial" }
    ])
    await eventually(() => sim.state.payments.get(payment.id)?.refunds[0]?.status === "DONE", "refund done")
    const over = await asaas(sim, "POST", `/payments/${payment.id}/refund`, { body: { value: 25 } })
    expect([over.status, over.body.errors[0].code]).toEqual([400, "invalid_value"])
    sim.setRefundOutcome("cancel")
    await asaas(sim, "POST", `/payments/${payment.id}/refund`, { body: { value: 5 } })
    await eventually(
      () => sim.state.payments.get(payment.id)?.refunds[1]?.status === "CANCELLED",
      "cancelled"
    )
    sim.setRefundOutcome("done")
    await asaas(sim, "POST", `/payments/${payment.id}/refund`, { body: { value: 20 } })
    await eventually(
      () => sim.state.payments.get(payment.id)?.status === "REFUNDED",
      "the payment is refunded once nothing is left"
    )
  })

  it("faults: a 429 with RateLimit-Reset, a 500 after the work, a reset connection", async () => {
    sim.addFault({ route: "payments.list", kind: "status", status: 429, retryAfter: 2, times: 1 })
    const throttled = await asaas(sim, "GET", "/payments")
    expect([throttled.status, throttled.headers["ratelimit-reset"]]).toEqual([429, "2"])
    sim.addFault({ route: "payments.create", kind: "status", status: 500, after: true, times: 1 })
    const lost = await asaas(sim, "POST", "/payments", {
      body: { customer, billingType: "PIX", value: 3, dueDate: today(), externalReference: "txid-lost" }
    })
    expect(lost.status).toBe(500)
    expect(sim.paymentOf("txid-lost")).toBeDefined()
    sim.addFault({ route: "payments.get", kind: "reset", times: 1 })
    await expect(asaas(sim, "GET", "/payments/pay_x")).rejects.toThrow()
    expect(sim.requests.at(-1)).toMatchObject({ route: "payments.get", outcome: "reset" })
  })
})

describe("the simulated Asaas's webhook queue", () => {
  it("is interrupted after 15 failed deliveries in a row: nothing more is sent", async () => {
    const failing = await eventReceiver(() => 500)
    const other = await AsaasSimulator.start()
    try {
      await asaas(other, "POST", "/webhooks", {
        body: { url: failing.url, events: ["PAYMENT_RECEIVED"], enabled: true, interrupted: false }
      })
      const payer = other.createCustomer("Fulano", "12345678909")
      for (let i = 0; i < 16; i++) {
        const made = await asaas(other, "POST", "/payments", {
          body: { customer: payer, billingType: "PIX", value: 1 + i, dueDate: today() }
        })
        await other.pay(made.body.id)
      }
      expect(failing.received).toHaveLength(15)
      expect([...other.state.webhooks.values()][0]?.interrupted).toBe(true)
    } finally {
      await other.close()
      await failing.close()
    }
  })
})
