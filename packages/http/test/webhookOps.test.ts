/**
 * The webhook operations in the admin API over a real socket: resend answers 202 with the
 * resend's id and count, a repeat is recognised, bad input is a 422, an unknown merchant a 404;
 * the health and the enable endpoints; the operator scope for the writes.
 */
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { adminSender, type Harness, listen, start } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"

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

describe("webhook operations over the admin API", () => {
  it("resend (202, repeated), health, enable; bad input and unknown merchants", async () => {
    const created = await admin("POST", "/merchants", { body: { name: "Loja Ops" } })
    const merchantId = String(created.body.merchantId)
    await admin("PUT", `/merchants/${merchantId}/webhooks/test`, {
      body: { url: "http://127.0.0.1:9/hook", secret: "s3cret-webhook-secret" }
    })
    const since = new Date(Date.now() - 3_600_000).toISOString()
    const first = await admin("POST", `/merchants/${merchantId}/webhook-resends`, { body: { since } })
    expect(first.status, first.text).toBe(202)
    expect(first.body).toMatchObject({
      merchantId,
      scope: "all",
      queued: 0,
      repeated: false,
      ratePerSecond: 10
    })
    expect(String(first.body.resendId)).toMatch(/^rsd_/)
    const again = await admin("POST", `/merchants/${merchantId}/webhook-resends`, { body: { since } })
    expect(again.status).toBe(202)
    expect(again.body).toMatchObject({ resendId: first.body.resendId, repeated: true, queued: 0 })

    const bad = await admin("POST", `/merchants/${merchantId}/webhook-resends`, {
      body: { since: "yesterday" }
    })
    expect(bad.status, bad.text).toBe(422)
    const future = await admin("POST", `/merchants/${merchantId}/webhook-resends`, {
      body: { since: new Date(Date.now() + 86_400_000).toISOString() }
    })
    expect(future.status).toBe(422)
    const unknown = await admin("POST", "/merchants/mer_nope/webhook-resends", { body: { since } })
    expect(unknown.status).toBe(404)
    const noLive = await admin("POST", `/merchants/${merchantId}/webhook-resends`, {
      body: { since, mode: "live" }
    })
    expect(noLive.status).toBe(404)

    const health = await admin("GET", `/merchants/${merchantId}/webhook-health`)
    expect(health.status).toBe(200)
    expect(health.body).toMatchObject({
      merchantId,
      windowHours: 24,
      endpoints: [
        {
          mode: "test",
          state: "healthy",
          attempts: 0,
          successRate: null,
          lastSuccessAt: null,
          consecutiveFailures: 0,
          p95LatencyMs: null,
          disabledAt: null
        }
      ]
    })
    const enabled = await admin("POST", `/merchants/${merchantId}/webhooks/test/enable`)
    expect(enabled.status).toBe(200)
    expect(enabled.body).toMatchObject({ merchantId, mode: "test", wasDisabled: false, resend: null })
  })

  it("a read-only token reads the health but may not resend", async () => {
    const reader = (await h.engine((e) => e.adminTokens.create({ name: "ops-reader", scope: "read-only" })))
      .token
    const asReader = (method: string, path: string, body?: unknown) =>
      admin(method, path, { headers: { authorization: `Bearer ${reader}` }, ...(body ? { body } : {}) })
    const created = await admin("POST", "/merchants", { body: { name: "Loja Leitura" } })
    const merchantId = String(created.body.merchantId)
    expect((await asReader("GET", `/merchants/${merchantId}/webhook-health`)).status).toBe(200)
    const refused = await asReader("POST", `/merchants/${merchantId}/webhook-resends`, {
      since: new Date(0).toISOString()
    })
    expect(refused.status).toBe(403)
  })
})
