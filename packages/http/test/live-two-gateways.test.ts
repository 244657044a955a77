/**
 * A gateway per merchant, two banks in one process, on SQLite and Postgres: the simulated PSP
 * (API Pix with Efí's sends, the default gateway) and the simulated Asaas beside it. One merchant
 * stays on Efí, another is assigned to Asaas through the admin API: each one's charges, payouts,
 * refunds and bank callbacks go to its own bank only, its webhooks to its own endpoint, and the
 * ledger check passes. A due-date charge of the Asaas merchant is refused with 422
 * `capability_unavailable` before any bank is asked. Moving the Asaas merchant back to Efí moves
 * its new charges only: the refund of a PIX Asaas received goes back through Asaas.
 */
import { liveStores, until } from "@pixgate/testkit/live"
import { startTwoGateways, type TwoGateways } from "@pixgate/testkit/liveTwoGateways"
import { must } from "@pixgate/testkit/must"
import { testWait } from "@pixgate/testkit/wait"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const stores = liveStores("pixgate-two-gateways")
const token = "two-gateways-admin-token"
/** An assignment's settling time, and a margin. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 5_500))

describe.each(stores)("two gateways in one engine on $name", (store) => {
  let two: TwoGateways
  let drop: () => Promise<void> = async () => {}
  beforeAll(async () => {
    const db = await store.open()
    drop = db.drop
    two = await startTwoGateways(db.url, token)
  }, testWait(1))
  afterAll(async () => {
    await two?.close()
    await drop()
  })

  const statusOf = async (key: string, id: string) =>
    (
      (await two.h.request("GET", "/api/v1/transactions?limit=100", { key })).body.data as Array<{
        id: string
        status: string
      }>
    ).find((t) => t.id === id)?.status
  const charge = async (key: string, body: Record<string, unknown>) => {
    const answer = await two.h.request("POST", "/api/v1/charges", { key, body })
    expect(answer.status, answer.text).toBe(201)
    return answer.body as { transactionId: string; txid: string }
  }
  const payout = async (key: string, amount: number) => {
    const answer = await two.h.request("POST", "/api/v1/payouts", {
      key,
      body: { amount, pixKey: "destino@banco.example" }
    })
    expect(answer.status, answer.text).toBe(201)
    return answer.body as { transactionId: string }
  }
  const refund = async (merchantId: string, chargeId: string, amount: number, key: string) => {
    const answer = await two.admin("POST", `/merchants/${merchantId}/charges/${chargeId}/refunds`, {
      body: { amount },
      headers: { "idempotency-key": key }
    })
    expect(answer.status, answer.text).toBe(201)
    return answer.body as { refundId: string }
  }
  const refundStatus = async (merchantId: string, chargeId: string, refundId: string) =>
    (
      (await two.admin("GET", `/merchants/${merchantId}/charges/${chargeId}/refunds`)).body.refunds as Array<{
        refundId: string
        status: string
      }>
    ).find((r) => r.refundId === refundId)?.status
  const cobAtEfi = (txid: string) => two.psp.state.cobs.has(txid)
  const paymentAtAsaas = (txid: string) => two.sim.paymentOf(txid)

  it(
    "each merchant's charges, payouts, refunds and callbacks go to its own bank; the ledger check passes",
    async () => {
      const gateways = await two.admin("GET", "/gateways")
      expect(gateways.status, gateways.text).toBe(200)
      expect(gateways.body.data).toMatchObject([
        { name: "efi", isDefault: true, capabilities: { dueDateCharges: true } },
        { name: "asaas", isDefault: false, capabilities: { dueDateCharges: false, sends: true } }
      ])
      const onEfi = await two.merchant("Loja Efí")
      const onAsaas = await two.merchant("Loja Asaas")
      const unknown = await two.admin("PUT", `/merchants/${onAsaas.merchantId}/gateway`, {
        body: { gateway: "inter" }
      })
      expect(unknown.status, unknown.text).toBe(422)
      expect(unknown.body.code).toBe("invalid_gateway")
      const assigned = await two.admin("PUT", `/merchants/${onAsaas.merchantId}/gateway`, {
        body: { gateway: "asaas" }
      })
      expect(assigned.status, assigned.text).toBe(200)
      // Not in effect yet: the next gateway and when.
      expect(assigned.body).toMatchObject({ gateway: "efi", isDefault: true, next: { gateway: "asaas" } })
      await settle()
      const read = await two.admin("GET", `/merchants/${onAsaas.merchantId}/gateway`)
      expect(read.body).toMatchObject({ gateway: "asaas", isDefault: false, configured: true, next: null })
      expect((await two.admin("GET", `/merchants/${onEfi.merchantId}/gateway`)).body).toMatchObject({
        gateway: "efi",
        isDefault: true
      })

      // Charges: each at its own bank only; each paid there completes through that bank's callback.
      const efiCharge = await charge(onEfi.liveKey, { amount: 40 })
      const asaasCharge = await charge(onAsaas.liveKey, { amount: 50 })
      expect(cobAtEfi(efiCharge.txid)).toBe(true)
      expect(paymentAtAsaas(efiCharge.txid)).toBeUndefined()
      expect(cobAtEfi(asaasCharge.txid)).toBe(false)
      const payment = must(paymentAtAsaas(asaasCharge.txid), "the Asaas payment")
      await two.psp.payCob(efiCharge.txid)
      await two.sim.pay(payment.id)
      await until(
        "both paid",
        async () =>
          (await statusOf(onEfi.liveKey, efiCharge.transactionId)) === "completed" &&
          (await statusOf(onAsaas.liveKey, asaasCharge.transactionId)) === "completed"
      )

      // A capability the merchant's bank lacks: refused before any bank is asked.
      // (Writes only: the gateway's own reads, its reconciliation's polls, go on meanwhile.)
      const writesAtAsaas = () => two.sim.requests.filter((r) => r.method !== "GET").length
      const asaasBefore = writesAtAsaas()
      const due = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10)
      const dueBody = {
        amount: 20,
        dueDate: due,
        clientName: "Empresa de Alimentos SA",
        clientDoc: "11.222.333/0001-81"
      }
      const refused = await two.h.request("POST", "/api/v1/charges", { key: onAsaas.liveKey, body: dueBody })
      expect(refused.status, refused.text).toBe(422)
      expect(refused.body).toMatchObject({ code: "capability_unavailable", details: [{ path: "dueDate" }] })
      expect(refused.body.error).toContain("asaas")
      expect(writesAtAsaas()).toBe(asaasBefore)
      const dueAtEfi = await charge(onEfi.liveKey, dueBody)
      expect(two.psp.state.cobs.has(dueAtEfi.txid)).toBe(true)

      // Payouts: a send at Efí, a transfer at Asaas, never the other.
      const efiPayout = await payout(onEfi.liveKey, 10)
      const asaasPayout = await payout(onAsaas.liveKey, 12)
      await until(
        "both payouts complete",
        async () =>
          (await statusOf(onEfi.liveKey, efiPayout.transactionId)) === "completed" &&
          (await statusOf(onAsaas.liveKey, asaasPayout.transactionId)) === "completed"
      )
      expect(two.sim.transferOf(efiPayout.transactionId)).toBeUndefined()
      expect(two.sim.transferOf(asaasPayout.transactionId)).toBeDefined()
      expect(two.psp.state.sends.size).toBe(1)

      // Back to Efí: new charges go there; the refund of the PIX Asaas received goes back through Asaas.
      const back = await two.admin("PUT", `/merchants/${onAsaas.merchantId}/gateway`, {
        body: { gateway: "efi" }
      })
      expect(back.status, back.text).toBe(200)
      await settle()
      const later = await charge(onAsaas.liveKey, { amount: 15 })
      expect(cobAtEfi(later.txid)).toBe(true)
      expect(paymentAtAsaas(later.txid)).toBeUndefined()
      const atAsaas = await refund(onAsaas.merchantId, asaasCharge.transactionId, 5, "two-refund-asaas")
      const atEfi = await refund(onEfi.merchantId, efiCharge.transactionId, 4, "two-refund-efi")
      await until(
        "both refunds complete",
        async () =>
          (await refundStatus(onAsaas.merchantId, asaasCharge.transactionId, atAsaas.refundId)) ===
            "completed" &&
          (await refundStatus(onEfi.merchantId, efiCharge.transactionId, atEfi.refundId)) === "completed"
      )
      expect(must(paymentAtAsaas(asaasCharge.txid), "the Asaas payment").refunds).toHaveLength(1)
      const devolucoes = [...two.psp.state.pix.values()].flatMap((p) => p.devolucoes)
      expect(devolucoes).toHaveLength(1)

      // Webhooks: each merchant's events at its own endpoint, about its own transactions only.
      const ids = {
        [onEfi.merchantId]: new Set([
          efiCharge.transactionId,
          dueAtEfi.transactionId,
          efiPayout.transactionId
        ]),
        [onAsaas.merchantId]: new Set([
          asaasCharge.transactionId,
          asaasPayout.transactionId,
          later.transactionId
        ])
      }
      await until(
        "the webhooks arrive",
        async () => two.webhooks.filter((w) => w.type === "refund.completed").length === 2
      )
      for (const w of two.webhooks) {
        const merchant = must(w.merchantId, "the endpoint's merchant")
        const about = (w.data.transactionId ?? w.data.id) as string
        expect(ids[merchant]?.has(about), `${w.type} ${about} at ${merchant}`).toBe(true)
      }
      // Asaas's events reached its own callback route and were applied (200).
      const asaasEvents = two.sim.deliveries.filter((d) => d.event === "PAYMENT_RECEIVED")
      expect(asaasEvents.length).toBeGreaterThan(0)
      for (const d of asaasEvents) {
        expect(d.url).toMatch(/\/bank\/callbacks\/[0-9a-f]+\/gateways\/asaas$/)
        expect(d.status).toBe(200)
      }
      const check = await two.h.engine((e) => e.admin.checkLedger("live"))
      expect(check).toMatchObject({ unbalancedEntries: [], balanceMismatches: [], total: 0 })
    },
    testWait(4)
  )
})
