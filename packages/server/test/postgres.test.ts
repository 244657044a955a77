/**
 * The HTTP layer on Postgres (skipped with a warning when no server answers, except in CI):
 * the standalone server and the CLI on a fresh database, and malformed input that Postgres is
 * stricter about than SQLite (NUL characters, huge numbers) never becoming a 5xx.
 */
import { afterAll, beforeAll, expect, it } from "@effect/vitest"
import { testDataKey, testDataKeys } from "@pixgate/testkit/dataKeys"
import { send } from "@pixgate/testkit/harness"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import * as Cli from "../src/Cli.js"
import { Server } from "../src/index.js"

describePostgres("on Postgres", () => {
  const database = useFreshDatabase()
  let server: Server.RunningServer
  let key: string

  beforeAll(async () => {
    let out = ""
    const code = await Cli.run(["merchant", "create", "--name", "Loja PG", "--json"], {
      env: { PIXGATE_DATABASE: database.url(), PIXGATE_DATA_KEY: testDataKey },
      cwd: process.cwd(),
      stdout: (t) => {
        out += t
      },
      stderr: (t) => {
        out += t
      }
    })
    expect(code, out).toBe(0)
    key = JSON.parse(out).testKey
    server = await Server.start({
      port: 0,
      database: database.url(),
      dataKeys: testDataKeys,
      log: { level: "none" }
    })
  })
  afterAll(() => server?.close())

  it("the admin router turns NUL ids and query values into 404 and 422, never 503", async () => {
    const adminServer = await Server.start({
      port: 0,
      database: database.url(),
      dataKeys: testDataKeys,
      adminToken: "postgres-admin-token",
      log: { level: "none" }
    })
    const headers = { authorization: "Bearer postgres-admin-token" }
    expect((await send(adminServer.url, "GET", "/admin/merchants/a%00b", { headers })).status).toBe(404)
    expect(
      (await send(adminServer.url, "GET", "/admin/merchants/x/balance?mode=%00", { headers })).status
    ).toBe(422)
    const log = await send(adminServer.url, "GET", "/admin/merchants/x/webhook-log?eventId=%00", { headers })
    expect(log.body).toMatchObject({
      code: "invalid_query",
      error: "eventId must not contain NUL characters"
    })
    expect((await send(adminServer.url, "POST", "/admin/events/%00/redeliver", { headers })).status).toBe(404)
    await adminServer.close()
  })

  it("serves the API: charge, payout refused, list", async () => {
    expect((await send(server.url, "GET", "/api/health")).status).toBe(200)
    const charge = await send(server.url, "POST", "/api/v1/charges", {
      key,
      body: { amount: 12.34, clientName: "Ana" }
    })
    expect(charge.status).toBe(201)
    const payout = await send(server.url, "POST", "/api/v1/payouts", {
      key,
      body: { amount: 1, pixKey: "a@b.com" }
    })
    expect(payout.body).toEqual({ error: "Insufficient balance", code: "insufficient_balance" })
    const page = await send(server.url, "GET", "/api/v1/transactions?page=9007199254740991", { key })
    expect(page.body).toMatchObject({ data: [], total: 1 })
  })

  it("never answers 5xx to input Postgres is strict about", async () => {
    const bodies = [
      { amount: 1, clientName: "a\u0000b" },
      { amount: 1, description: "\u0000" },
      { amount: 1, clientName: "\ud800" },
      { amount: 1, description: "😀".repeat(70) },
      { amount: 9_007_199_254_740_992 },
      { amount: 1, expiresIn: 1e300 }
    ]
    const failures: Array<string> = []
    for (const body of bodies) {
      const answer = await send(server.url, "POST", "/api/v1/charges", { key, body })
      if (answer.status >= 500) failures.push(`${JSON.stringify(body)} -> ${answer.status}`)
    }
    expect(failures).toEqual([])
    const keys = ["a\u0000b", "\u00ff".repeat(255)]
    for (const idempotencyKey of keys) {
      const answer = await send(server.url, "POST", "/api/v1/charges", {
        key,
        body: { amount: 1 },
        headers: { "idempotency-key": idempotencyKey }
      }).catch(() => undefined)
      if (answer !== undefined) expect(answer.status).toBeLessThan(500)
    }
    for (const query of [
      "startDate=0001-01-01",
      "endDate=9999-12-31",
      "startDate=0000-01-01",
      "type=%00",
      "x=%00"
    ]) {
      expect((await send(server.url, "GET", `/api/v1/transactions?${query}`, { key })).status).toBeLessThan(
        500
      )
    }
  })
})
