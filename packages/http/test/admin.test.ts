/**
 * The optional admin router over a real socket: bearer token, every merchant panel operation,
 * and its effect on the public API.
 */
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { MemoryStore } from "@pixgate/core"
import { adminSender, type Harness, listen, send, start } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"
import { Pixgate } from "../src/node.js"
import { expectError } from "./support/spec.js"

const token = "admin-token-0123456789abcdef"
let h: Harness
let adminBase: string
const server = createServer()

const admin = adminSender(() => adminBase, token)

beforeAll(async () => {
  h = await start({ admin: { token, basePath: "/admin" }, engine: { worker: false } })
  server.on("request", must(h.pixgate.admin, "h.pixgate.admin").nodeHandler)
  adminBase = await listen(server)
})
afterAll(async () => {
  server.close()
  await h.close()
})

describe("admin authentication", () => {
  for (const [what, headers] of [
    ["no token", {}],
    ["wrong token", { authorization: "Bearer nope" }],
    ["token prefix", { authorization: `Bearer ${token.slice(0, -1)}` }],
    ["token as x-api-key", { "x-api-key": token }],
    ["basic auth", { authorization: `Basic ${Buffer.from(`admin:${token}`).toString("base64")}` }]
  ] as const) {
    it(`401 with ${what}`, async () => {
      const answer = await send(adminBase, "POST", "/admin/merchants", { body: { name: "X" }, headers })
      expectError(answer, 401, "Unauthorized", "unauthorized")
      expect(answer.headers.get("www-authenticate")).toMatch(/^Bearer/)
    })
  }

  it("is off unless a token is configured", async () => {
    const plain = await Pixgate.make({ store: MemoryStore.layer, log: { level: "none" } })
    expect(plain.admin).toBeUndefined()
    await plain.dispose()
  })

  it("rejects an empty token at start-up", async () => {
    await expect(Pixgate.make({ store: MemoryStore.layer, admin: { token: "" } })).rejects.toThrow(
      /admin.token/
    )
  })
})

describe("merchant panel operations", () => {
  it("merchants, keys, revocation", async () => {
    const created = await admin("POST", "/merchants", { body: { name: "Loja Admin", city: "Recife" } })
    expect(created.status).toBe(201)
    expect(Object.keys(created.body).sort()).toEqual(["liveKey", "merchantId", "testKey"])
    const { merchantId, testKey } = created.body
    expect((await h.request("GET", "/api/v1/transactions", { key: testKey })).status).toBe(200)

    const merchant = await admin("GET", `/merchants/${merchantId}`)
    expect(merchant.body).toMatchObject({ merchantId, name: "Loja Admin", city: "Recife" })

    const key = await admin("POST", `/merchants/${merchantId}/keys`, { body: { mode: "live" } })
    expect(key.status).toBe(201)
    expect(key.body.key).toMatch(/^sk_live_/)
    const keys = (await admin("GET", `/merchants/${merchantId}/keys`)).body.data
    expect(keys).toHaveLength(3)
    expect(JSON.stringify(keys)).not.toContain(key.body.key)

    const first = keys.find((k: { mode: string }) => k.mode === "test")
    expect((await admin("DELETE", `/keys/${first.keyId}`)).body).toEqual({
      keyId: first.keyId,
      revoked: true
    })
    expectError(await h.request("GET", "/api/v1/transactions", { key: testKey }), 401, "Unauthorized")
    expectError(await admin("DELETE", `/keys/${first.keyId}`), 404, "Active API key not found", "not_found")
  })

  it("validates its bodies and parameters", async () => {
    expectError(await admin("POST", "/merchants", { body: { name: 5 } }), 422, "name must be a string")
    expectError(
      await admin("POST", "/merchants", { body: { name: "" } }),
      422,
      "name must be 1 to 140 characters"
    )
    expectError(await admin("POST", "/merchants", { body: "[]" }), 400, "Invalid JSON body")
    expectError(
      await admin("POST", "/merchants/nope/keys", { body: { mode: "prod" } }),
      422,
      "mode must be one of: test, live"
    )
    expectError(await admin("GET", "/merchants/nope/balance?mode=test"), 404, "Merchant not found")
    expectError(await admin("GET", "/merchants/nope/balance"), 422, "mode must be one of: test, live")
    expectError(
      await admin("PUT", "/merchants/nope/fee-plan", { body: { charge: 1 } }),
      422,
      "body.charge must be an object"
    )
    expectError(await admin("GET", "/merchants"), 405, "Method not allowed")
    expectError(await admin("GET", "/nothing"), 404, "Not found")
  })

  it("webhooks, balance, top-up, fee plan, sandbox actions, webhook log, redelivery", async () => {
    const { merchantId, testKey } = (await admin("POST", "/merchants", { body: { name: "Ops" } })).body
    const hook = await admin("PUT", `/merchants/${merchantId}/webhooks/test`, {
      body: { url: "http://127.0.0.1:9/hook", secret: "whsec-long-enough" }
    })
    expect(hook.body).toMatchObject({ merchantId, mode: "test", url: "http://127.0.0.1:9/hook" })
    expect(hook.text).not.toContain("whsec-long-enough")
    expectError(
      await admin("PUT", `/merchants/${merchantId}/webhooks/live`, {
        body: { url: "https://127.0.0.1/hook", secret: "whsec-long-enough" }
      }),
      422,
      "Webhook URL host 127.0.0.1 is a loopback address; live-mode webhooks must use a public address"
    )
    expectError(
      await admin("PUT", `/merchants/${merchantId}/webhooks/live`, {
        body: { url: "http://8.8.8.8/hook", secret: "whsec-long-enough" }
      }),
      422,
      "Live-mode webhook URLs must use https (each delivery carries the endpoint's secret)"
    )

    expect(
      (await admin("POST", `/merchants/${merchantId}/sandbox/topup`, { body: { amount: 100 } })).body
    ).toMatchObject({
      available: 100
    })
    expect((await admin("GET", `/merchants/${merchantId}/balance?mode=test`)).body).toEqual({
      merchantId,
      mode: "test",
      available: 100,
      held: 0
    })

    const plan = {
      charge: { gatewayRate: 10_000, marginRate: 10_000, gatewayFixed: 0, marginFixed: 0 },
      payout: { gatewayRate: 0, marginRate: 0, gatewayFixed: 50, marginFixed: 50 }
    }
    expect((await admin("PUT", `/merchants/${merchantId}/fee-plan`, { body: plan })).status).toBe(200)
    const charge = (await h.request("POST", "/api/v1/charges", { key: testKey, body: { amount: 100 } })).body
    expect(charge.fees).toEqual({ feeAmount: 2, gatewayFeeAmount: 1, adminMargin: 1, netAmount: 98 })

    const paid = await admin("POST", `/sandbox/transactions/${charge.transactionId}/pay`)
    expect(paid.body).toMatchObject({ id: charge.transactionId, status: "completed" })
    expectError(
      await admin("POST", `/sandbox/transactions/${charge.transactionId}/pay`),
      409,
      "Charge is not pending"
    )

    const payout = (
      await h.request("POST", "/api/v1/payouts", { key: testKey, body: { amount: 10, pixKey: "a@b.com" } })
    ).body
    expect((await admin("POST", `/sandbox/transactions/${payout.transactionId}/settle`)).body.status).toBe(
      "completed"
    )
    const payout2 = (
      await h.request("POST", "/api/v1/payouts", { key: testKey, body: { amount: 10, pixKey: "a@b.com" } })
    ).body
    expect((await admin("POST", `/sandbox/transactions/${payout2.transactionId}/fail`)).body.status).toBe(
      "failed"
    )

    const chargeback = await admin("POST", `/sandbox/transactions/${charge.transactionId}/chargebacks`, {
      body: {}
    })
    expect(chargeback.status).toBe(201)
    const resolved = await admin("POST", `/sandbox/chargebacks/${chargeback.body.chargebackId}/resolve`, {
      body: { outcome: "accepted" }
    })
    expect(resolved.body.status).toBeDefined()

    const log = (await admin("GET", `/merchants/${merchantId}/webhook-log?mode=test&limit=5`)).body.data
    expect(log.length).toBeGreaterThan(0)
    expect(log[0]).toMatchObject({
      eventId: expect.any(String),
      event: expect.any(String),
      status: "pending"
    })
    expect(JSON.stringify(log)).not.toContain("whsec-long-enough")
    const redelivered = await admin("POST", `/events/${log[0].eventId}/redeliver`)
    expect(redelivered.status).toBe(202)
    expectError(await admin("POST", "/events/evt_nope/redeliver"), 404, "Event or webhook endpoint not found")
    expectError(
      await admin("GET", `/merchants/${merchantId}/webhook-log?status=sent`),
      422,
      "status must be one of: pending, delivered, failed"
    )
  })

  it("webhook signing keys: shown once when the endpoint is first set, kept on later sets, rotated with an overlap", async () => {
    const { merchantId } = (await admin("POST", "/merchants", { body: { name: "Keys" } })).body
    const path = `/merchants/${merchantId}/webhooks/test`
    const first = await admin("PUT", path, { body: { url: "http://127.0.0.1:9/a", secret: "first-secret" } })
    expect(first.status).toBe(200)
    expect(first.body.signingKey).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(first.body.signingKey.slice(6), "base64")).toHaveLength(32)
    const again = await admin("PUT", path, { body: { url: "http://127.0.0.1:9/b", secret: "second-secret" } })
    expect(again.body).toEqual({
      merchantId,
      mode: "test",
      url: "http://127.0.0.1:9/b",
      secretHeader: true,
      updatedAt: expect.any(String)
    })
    // The secret header off, then on again by a set that leaves the field out (a set states the endpoint whole).
    const off = await admin("PUT", path, {
      body: { url: "http://127.0.0.1:9/b", secret: "second-secret", secretHeader: false }
    })
    expect([off.status, off.body.secretHeader, off.body.signingKey]).toEqual([200, false, undefined])
    const wrong = await admin("PUT", path, {
      body: { url: "http://127.0.0.1:9/b", secret: "x-secret-1", secretHeader: "no" }
    })
    expect([wrong.status, wrong.body.code]).toEqual([422, "invalid_field"])
    expect(wrong.body.error).toBe("secretHeader must be true or false")

    const rotate = `${path}/signing-key`
    const rotated = await admin("POST", rotate, { body: {} })
    expect(rotated.status).toBe(200)
    expect(rotated.body).toEqual({
      merchantId,
      mode: "test",
      signingKey: expect.stringMatching(/^whsec_/),
      previousKeyExpiresAt: expect.any(String)
    })
    expect(rotated.body.signingKey).not.toBe(first.body.signingKey)
    const overlapEnd = Date.parse(rotated.body.previousKeyExpiresAt) - Date.now()
    expect(overlapEnd).toBeGreaterThan(86_400_000 - 60_000)
    expect(overlapEnd).toBeLessThanOrEqual(86_400_000)
    const status = await admin("GET", `/merchants/${merchantId}/webhook-status`)
    expect(status.body).toEqual({
      merchantId,
      endpoints: [
        {
          mode: "test",
          url: "http://127.0.0.1:9/b",
          status: "healthy",
          consecutiveFailures: 0,
          failingSince: null,
          concurrency: 16,
          pending: 0,
          inFlight: 0,
          previousKeyExpiresAt: rotated.body.previousKeyExpiresAt
        }
      ]
    })
    expect(JSON.stringify(status.body)).not.toContain("whsec_")
    expect(
      (await admin("POST", rotate, { body: { overlapSeconds: 0 } })).body.previousKeyExpiresAt
    ).toBeNull()
    for (const overlapSeconds of [-1, 1.5, 604_801]) {
      expectError(
        await admin("POST", rotate, { body: { overlapSeconds } }),
        422,
        "overlap must be a whole number of seconds from 0 to 604800",
        "invalid_overlap"
      )
    }
    expectError(
      await admin("POST", `/merchants/${merchantId}/webhooks/live/signing-key`, { body: {} }),
      404,
      "Webhook endpoint not found"
    )
  })

  it("webhook secrets that cannot travel in a header are refused with 422, and nothing is stored", async () => {
    const { merchantId } = (await admin("POST", "/merchants", { body: { name: "Secrets" } })).body
    const path = `/merchants/${merchantId}/webhooks/test`
    const cases = [
      ["short", "secret must be 8 to 256 characters"],
      ["x".repeat(257), "secret must be 8 to 256 characters"],
      [
        "line\nbreak-secret",
        "secret must be printable ASCII characters (no line breaks, control or non-ASCII characters)"
      ],
      [
        "tab\tseparated",
        "secret must be printable ASCII characters (no line breaks, control or non-ASCII characters)"
      ],
      [
        "del\u007f-secret",
        "secret must be printable ASCII characters (no line breaks, control or non-ASCII characters)"
      ],
      [
        "senha-çãé-secreta",
        "secret must be printable ASCII characters (no line breaks, control or non-ASCII characters)"
      ],
      [
        "segredo-€-secret",
        "secret must be printable ASCII characters (no line breaks, control or non-ASCII characters)"
      ],
      [" leading-space", "secret must not start or end with a space"],
      ["trailing-space ", "secret must not start or end with a space"]
    ] as const
    for (const [secret, message] of cases) {
      const answer = await admin("PUT", path, { body: { url: "http://127.0.0.1:9/h", secret } })
      expectError(answer, 422, message, "invalid_secret")
      expect(answer.body.details).toEqual([{ path: "secret", message }])
    }
    expect((await admin("GET", `/merchants/${merchantId}/webhook-status`)).body.endpoints).toEqual([])
    const ok = await admin("PUT", path, {
      body: { url: "http://127.0.0.1:9/h", secret: "inner spaces ~ ok!" }
    })
    expect(ok.status).toBe(200)
  })

  it("serves its own OpenAPI document behind the token", async () => {
    const doc = (await admin("GET", "/openapi.json")).body
    expect(doc.openapi).toBe("3.1.0")
    expect(doc.servers).toEqual([{ url: "/admin" }])
    expect(Object.keys(doc.paths)).toContain("/merchants/{merchantId}/keys")
    expect(doc.components.securitySchemes.adminToken).toMatchObject({ type: "http", scheme: "bearer" })
    expect((await send(adminBase, "GET", "/admin/openapi.json")).status).toBe(401)
  })
})
