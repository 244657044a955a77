/**
 * Admin inputs are bounded so that no stored setting can make a later request fail with a 500:
 * fee plans whose fixed parts pass the maximum amount are refused with 422, and the most extreme
 * plan that is accepted still lets the largest payout and charge through (or refuses them with a
 * 4xx), on every store.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Fees, Money } from "@pixgate/core"
import { adminSender, type Harness, listen, start } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { expectError } from "./support/spec.js"

const token = "admin-bounds-token-0123456789"
const max = Money.defaultMaximum

/** The most extreme plan the engine accepts: rates just under 100%, fixed parts = the maximum. */
const extremeRule: Fees.FeeRule = {
  gatewayRate: 500_000,
  marginRate: 499_999,
  gatewayFixed: Money.Cents(max - 1),
  marginFixed: Money.Cents(1)
}
const extreme: Fees.FeePlan = { charge: extremeRule, payout: extremeRule }

const suite = (options: () => { readonly database?: string }) => {
  let h: Harness
  let adminBase: string
  const server = createServer()
  const admin = adminSender(() => adminBase, token)

  beforeAll(async () => {
    h = await start({
      ...options(),
      admin: { token, basePath: "/admin" },
      engine: { worker: false },
      rateLimit: false
    })
    server.on("request", must(h.pixgate.admin, "h.pixgate.admin").nodeHandler)
    adminBase = await listen(server)
  })
  afterAll(async () => {
    server.closeAllConnections()
    server.close()
    await h?.close()
  })

  it("refuses fixed parts above the maximum amount (and 2^53-1) with a clear 422", async () => {
    const { merchantId } = (await admin("POST", "/merchants", { body: { name: "Bounds" } })).body
    const tooBig = `payout fixed parts must total at most ${max} centavos (the maximum amount, 1000000.00)`
    for (const payout of [
      { ...extremeRule, marginFixed: 2 },
      { ...extremeRule, gatewayFixed: Number.MAX_SAFE_INTEGER, marginFixed: 0 },
      { ...extremeRule, gatewayFixed: 0, marginFixed: Number.MAX_SAFE_INTEGER }
    ]) {
      const plan = { charge: Fees.defaultPlan.charge, payout }
      expectError(await admin("PUT", `/merchants/${merchantId}/fee-plan`, { body: plan }), 422, tooBig)
      expectError(
        await admin("POST", "/merchants", { body: { name: "Bounds 2", feePlan: plan } }),
        422,
        tooBig
      )
    }
    expectError(
      await admin("PUT", `/merchants/${merchantId}/fee-plan`, {
        body: { payout: Fees.defaultPlan.payout, charge: { ...extremeRule, gatewayFixed: max } }
      }),
      422,
      tooBig.replace("payout", "charge")
    )
    expectError(
      await admin("PUT", `/merchants/${merchantId}/fee-plan`, {
        body: { ...extreme, payout: { ...extremeRule, gatewayFixed: 2 ** 53 } }
      }),
      422,
      "payout.gatewayFixed must be a non-negative integer"
    )
  })

  it("the most extreme accepted plan: the largest payout and charge answer 2xx or 4xx, never 500", async () => {
    const { merchantId, testKey } = (await admin("POST", "/merchants", { body: { name: "Extreme" } })).body
    expect((await admin("PUT", `/merchants/${merchantId}/fee-plan`, { body: extreme })).status).toBe(200)
    expect(
      (await admin("POST", "/merchants", { body: { name: "Extreme 2", feePlan: extreme } })).status
    ).toBe(201)
    // A payout of the maximum costs about 3x the maximum: four top-ups cover it.
    for (let i = 0; i < 4; i++) {
      const top = await admin("POST", `/merchants/${merchantId}/sandbox/topup`, {
        body: { amount: 1_000_000 }
      })
      expect(top.status, top.text).toBe(200)
    }
    const fee = Fees.forPayout(extreme, max)
    const payout = await h.request("POST", "/api/v1/payouts", {
      key: testKey,
      body: { amount: 1_000_000, pixKey: "a@b.com" },
      headers: { "idempotency-key": "extreme-payout-1" }
    })
    expect(payout.status, payout.text).toBe(201)
    expect(payout.body.fees).toEqual(Fees.toJson(fee))
    // 99.9999% of R$ 1,000,000.00 plus R$ 1,000,000.00 fixed.
    expect(fee.feeAmount).toBe(99_999_900 + max)

    const small = await h.request("POST", "/api/v1/payouts", {
      key: testKey,
      body: { amount: 0.01, pixKey: "a@b.com" }
    })
    expect(small.status, small.text).toBe(201)
    // Whatever is left cannot cover another maximum payout: a 422, not a 500.
    const refused = await h.request("POST", "/api/v1/payouts", {
      key: testKey,
      body: { amount: 1_000_000, pixKey: "a@b.com" }
    })
    expect(refused.status, refused.text).toBe(422)
    expect(refused.body.code).toBe("insufficient_balance")

    for (const amount of [0.01, 1_000_000]) {
      const charge = await h.request("POST", "/api/v1/charges", { key: testKey, body: { amount } })
      expect([amount, charge.status, charge.body.code]).toEqual([amount, 422, "amount_below_fee"])
    }
    const balance = await admin("GET", `/merchants/${merchantId}/balance?mode=test`)
    expect(balance.status).toBe(200)
    expect(Number.isSafeInteger(Math.round(balance.body.available * 100))).toBe(true)
    const list = await h.request("GET", "/api/v1/transactions", { key: testKey })
    expect(list.status, list.text).toBe(200)
  })
}

describe("admin bounds on MemoryStore", () => suite(() => ({})))

describe("admin bounds on SQLite", () => {
  const dir = mkdtempSync(join(tmpdir(), "pixgate-bounds-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  suite(() => ({ database: `sqlite:${join(dir, "bounds.db")}` }))
})

describePostgres("admin bounds on Postgres", () => {
  const database = useFreshDatabase()
  suite(() => ({ database: database.url() }))
})
