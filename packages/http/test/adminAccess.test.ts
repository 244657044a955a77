/**
 * The admin API's panel access operations over a real socket, every answer checked against the
 * OpenAPI document by the harness: invites with roles, password reset links, the audit log.
 */
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { adminSender, type Harness, listen, start } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"
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

describe("panel access through the admin API", () => {
  it("invites with roles, issues reset links and lists the audit log by pages", async () => {
    const { merchantId } = (await admin("POST", "/merchants", { body: { name: "Acesso" } })).body
    const owner = await admin("POST", `/merchants/${merchantId}/panel-invites`, {
      body: { email: "dona@loja.example" }
    })
    expect(owner.status).toBe(201)
    expect(owner.body).toMatchObject({ role: "owner", path: expect.stringMatching(/^\/invite\//) })
    const viewer = await admin("POST", `/merchants/${merchantId}/panel-invites`, {
      body: { email: "ver@loja.example" }
    })
    expect(viewer.body.role).toBe("viewer")
    const finance = await admin("POST", `/merchants/${merchantId}/panel-invites`, {
      body: { email: "ver@loja.example", role: "finance" }
    })
    expect([finance.body.userId, finance.body.role]).toEqual([viewer.body.userId, "finance"])
    expectError(
      await admin("POST", `/merchants/${merchantId}/panel-invites`, {
        body: { email: "x@loja.example", role: "admin" }
      }),
      422,
      "role must be one of: owner, finance, developer, viewer"
    )

    const reset = await admin("POST", `/merchants/${merchantId}/panel-reset-links`, {
      body: { email: "dona@loja.example" }
    })
    expect(reset.status).toBe(201)
    expect(reset.body).toMatchObject({
      userId: owner.body.userId,
      path: `/reset/${reset.body.token}`,
      secondFactorReset: false
    })
    const inAnHour = Date.parse(reset.body.expiresAt) - Date.now()
    expect(inAnHour).toBeGreaterThan(50 * 60_000)
    expect(inAnHour).toBeLessThanOrEqual(60 * 60_000)
    expectError(
      await admin("POST", `/merchants/${merchantId}/panel-reset-links`, {
        body: { email: "nobody@loja.example" }
      }),
      404,
      "Panel user not found",
      "not_found"
    )
    expectError(
      await admin("POST", `/merchants/${merchantId}/panel-reset-links`, { body: { email: "no" } }),
      422,
      "email must be a valid e-mail address"
    )

    const first = await admin("GET", `/merchants/${merchantId}/audit-log?limit=2`)
    expect(first.status).toBe(200)
    expect(first.body.data.map((e: { action: string }) => e.action)).toEqual([
      "password.reset-link",
      "user.invite"
    ])
    expect(first.body.next).toBe(first.body.data[1].id)
    const rest = await admin("GET", `/merchants/${merchantId}/audit-log?limit=10&before=${first.body.next}`)
    expect(rest.body.data.map((e: { action: string }) => e.action)).toEqual([
      "role.change",
      "user.invite",
      "user.invite"
    ])
    expect(rest.body.next).toBeNull()
    for (const e of [...first.body.data, ...rest.body.data]) expect(e.actor).toBe("operator")
    // The one-time tokens never reach the log.
    expect(JSON.stringify([first.body, rest.body])).not.toContain(reset.body.token)
    expect(JSON.stringify([first.body, rest.body])).not.toContain(owner.body.token)
    expectError(
      await admin("GET", `/merchants/${merchantId}/audit-log?limit=x`),
      422,
      "limit must be a non-negative integer"
    )
    expectError(await admin("GET", "/merchants/mer_missing/audit-log"), 404, "Merchant not found")
  })
})
