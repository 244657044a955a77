/**
 * Scoped admin tokens over a real socket, every answer checked against the admin OpenAPI
 * document by the harness: each scope reads and writes exactly what its row of the table allows
 * (403 `forbidden` otherwise), unknown and revoked tokens get 401 at once, the admin API is not
 * there (404) until a token exists, and every write (refusals included) lands in the admin audit
 * log with the token's name.
 */
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { AdminAccess } from "@pixgate/core"
import { AdminScopes } from "@pixgate/http"
import { adminSender, type Harness, listen, start } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"
import { Effect } from "effect"

let h: Harness
let adminBase: string
const server = createServer()

beforeAll(async () => {
  h = await start({ admin: { basePath: "/admin" }, engine: { worker: false } })
  server.on("request", must(h.pixgate.admin, "h.pixgate.admin").nodeHandler)
  adminBase = await listen(server)
})
afterAll(async () => {
  server.closeAllConnections()
  server.close()
  await h.close()
})

const as = (token: string) => adminSender(() => adminBase, token)
const create = (name: string, scope: AdminAccess.AdminScope) =>
  h.engine((e) => e.adminTokens.create({ name, scope }))

describe("scoped admin tokens", () => {
  it("answers 404 while no token exists, then 401 for a wrong one", async () => {
    expect((await as("pxa_nothing")("GET", "/audit-log")).status).toBe(404)
    const first = await create("first", "read-only")
    expect(first.token).toMatch(/^pxa_[0-9A-Za-z]{43}$/)
    expect((await as(first.token)("GET", "/audit-log")).status).toBe(200)
    const wrong = await as("pxa_wrongwrongwrongwrongwrongwrongwrongwrongwro")("GET", "/audit-log")
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get("www-authenticate")).toMatch(/^Bearer/)
    expect((await adminSender(() => adminBase, "")("GET", "/audit-log")).status).toBe(401)
  })

  it("lets each scope do what the table says and refuses the rest with 403", async () => {
    const full = as((await create("scopes-full", "full")).token)
    const operator = as((await create("scopes-operator", "operator")).token)
    const reader = as((await create("scopes-reader", "read-only")).token)
    const metrics = as((await create("scopes-metrics", "metrics")).token)
    const { merchantId } = (await full("POST", "/merchants", { body: { name: "Escopos" } })).body

    for (const send of [full, operator, reader]) {
      expect((await send("GET", `/merchants/${merchantId}`)).status).toBe(200)
      expect((await send("GET", "/openapi.json")).status).toBe(200)
    }
    const refused = await metrics("GET", `/merchants/${merchantId}`)
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({
      error: "This admin token's scope (metrics) does not allow this operation; it needs read-only",
      code: "forbidden"
    })

    const topUp = (send: typeof full) =>
      send("POST", `/merchants/${merchantId}/sandbox/topup`, { body: { amount: 10 } })
    expect((await topUp(operator)).status).toBe(200)
    expect((await topUp(reader)).status).toBe(403)
    expect((await topUp(metrics)).status).toBe(403)

    const newKey = (send: typeof full) =>
      send("POST", `/merchants/${merchantId}/keys`, { body: { mode: "test" } })
    expect((await newKey(operator)).status).toBe(403)
    expect((await newKey(reader)).status).toBe(403)
    expect((await newKey(full)).status).toBe(201)
    // A refused write changed nothing: the balance holds the operator's top-up only.
    const balance = await reader("GET", `/merchants/${merchantId}/balance?mode=test`)
    expect(balance.body.available).toBe(10)
  })

  it("refuses a revoked token from its next request", async () => {
    const created = await create("soon-revoked", "full")
    const send = as(created.token)
    expect((await send("GET", "/audit-log")).status).toBe(200)
    const revoked = await h.engine((e) => e.adminTokens.revoke("soon-revoked"))
    expect(revoked).toMatchObject({ id: created.id, revokedAt: expect.any(String) })
    expect((await send("GET", "/audit-log")).status).toBe(401)
    // Its name is free again, for a new token.
    const again = await create("soon-revoked", "read-only")
    expect(again.id).not.toBe(created.id)
  })

  it("keeps several tokens valid at once, and a token's last use", async () => {
    const old = await create("rotate-old", "operator")
    const next = await create("rotate-new", "operator")
    expect((await as(old.token)("GET", "/audit-log")).status).toBe(200)
    expect((await as(next.token)("GET", "/audit-log")).status).toBe(200)
    const listed = await h.engine((e) => e.adminTokens.list)
    const named = (name: string) => listed.data.find((t) => t.name === name)
    expect(named("rotate-old")?.lastUsedAt).toEqual(expect.any(String))
    expect(named("rotate-old")?.hint).toBe(old.token.slice(-4))
    expect(JSON.stringify(listed)).not.toContain(old.token)
  })

  it("records every write with the token's name and what was answered, newest first", async () => {
    const writer = as((await create("auditor-w", "operator")).token)
    const reader = as((await create("auditor-r", "read-only")).token)
    const denied = await writer("POST", "/merchants", { body: { name: "Negado" } })
    expect(denied.status).toBe(403)
    const missing = await writer("POST", "/events/evt_missing/redeliver")
    expect(missing.status).toBe(404)
    await reader("GET", "/audit-log")
    const log = await reader("GET", "/audit-log?limit=2")
    expect(log.status).toBe(200)
    expect(log.body.data).toEqual([
      expect.objectContaining({
        actor: "auditor-w",
        operation: "redeliverEvent",
        method: "POST",
        path: "/admin/events/evt_missing/redeliver",
        status: 404,
        objectId: "evt_missing"
      }),
      expect.objectContaining({
        actor: "auditor-w",
        operation: "createMerchant",
        method: "POST",
        path: "/admin/merchants",
        status: 403,
        objectId: null
      })
    ])
    expect(log.body.next).toBe(log.body.data[1].id)
    const older = await reader("GET", `/audit-log?limit=500&before=${log.body.next}`)
    const operations = older.body.data.map(
      (e: { operation: string; actor: string }) => `${e.actor} ${e.operation}`
    )
    // The tokens' own creation and revocation, by the CLI's side of the engine.
    expect(operations).toContain("cli admin-token.create")
    expect(operations).toContain("cli admin-token.revoke")
    expect(operations).toContain("scopes-operator sandboxTopUp")
    // Reads are not recorded.
    expect(operations.some((o: string) => o.endsWith("getMerchant"))).toBe(false)
  })

  it("names a scope for every admin operation", () => {
    const counted = Object.values(AdminScopes.needs).flatMap((group) => Object.values(group))
    expect(counted.length).toBeGreaterThan(25)
    expect(new Set(counted)).toEqual(new Set(["read-only", "operator", "full"]))
  })
})

describe("the environment's token", () => {
  let env: Harness
  let base: string
  const listener = createServer()
  const token = "env-admin-token-0123456789"
  beforeAll(async () => {
    env = await start({ admin: { token, basePath: "/admin" }, engine: { worker: false } })
    listener.on("request", must(env.pixgate.admin, "env.pixgate.admin").nodeHandler)
    base = await listen(listener)
  })
  afterAll(async () => {
    listener.closeAllConnections()
    listener.close()
    await env.close()
  })

  it("is a full token named env, beside stored ones", async () => {
    const send = adminSender(() => base, token)
    expect((await send("GET", "/audit-log")).status).toBe(200)
    expect((await adminSender(() => base, "nope-nope-nope")("GET", "/audit-log")).status).toBe(401)
    expect((await send("POST", "/merchants", { body: { name: "Env" } })).status).toBe(201)
    const stored = await env.engine((e) => e.adminTokens.create({ name: "beside", scope: "read-only" }))
    expect((await adminSender(() => base, stored.token)("GET", "/audit-log")).status).toBe(200)
    const log = (await send("GET", "/audit-log")).body.data
    expect(log[1]).toMatchObject({ actor: "env", tokenId: null, operation: "createMerchant", status: 201 })
    const reserved = await env.engine((e) =>
      Effect.flip(e.adminTokens.create({ name: "env", scope: "full" }))
    )
    expect(reserved).toMatchObject({ code: "invalid_name" })
  })
})
