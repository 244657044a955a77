/**
 * Every endpoint's success answer against the spec's tables (field by field, types and
 * presence), the list's paging, filters, order and inclusive dates, mode and merchant isolation,
 * and the served OpenAPI document against the real bodies.
 */
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { BrCode, MemoryStore, Money } from "@pixgate/core"
import { type Harness, listen, send, start } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"
import { Clock, Effect, Either, Layer, ManagedRuntime } from "effect"
import * as DocsPage from "../src/DocsPage.js"
import { Api, Handler, Log, OpenApi, Pixgate, Router } from "../src/node.js"
import { validate } from "./support/jsonSchema.js"
import {
  expectCharge,
  expectError,
  expectHealth,
  expectPage,
  expectPayout,
  expectTransaction
} from "./support/spec.js"

let h: Harness
beforeAll(async () => {
  // Many requests on one key as fast as the server answers: the limiter (tested in errors.test.ts)
  // would answer 429 on a fast run.
  h = await start({ engine: { worker: false }, rateLimit: false })
})
afterAll(() => h.close())

describe("GET /api/health", () => {
  it("answers { status: ok, timestamp } without a key", async () => {
    const before = Date.now()
    const answer = await h.request("GET", "/api/health")
    expect(answer.status).toBe(200)
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/)
    expectHealth(answer.body)
    expect(Date.parse(answer.body.timestamp)).toBeGreaterThanOrEqual(before - 1)
  })

  it("answers HEAD without a body", async () => {
    const response = await fetch(`${h.base}/api/health`, { method: "HEAD" })
    expect(response.status).toBe(200)
    expect(await response.text()).toBe("")
  })
})

describe("POST /api/v1/charges", () => {
  it("201 with the charge creation result", async () => {
    const m = await h.merchant("Padaria")
    const before = Date.now()
    const answer = await h.request("POST", "/api/v1/charges", {
      key: m.testKey,
      body: { amount: 100, clientName: "Maria", clientDoc: "529.982.247-25", description: "Pedido 1" }
    })
    expect(answer.status).toBe(201)
    expectCharge(answer.body)
    const charge = answer.body
    expect(charge.amount).toBe(100)
    expect(charge.fees).toEqual({
      feeAmount: 0.99,
      gatewayFeeAmount: 0.25,
      adminMargin: 0.74,
      netAmount: 99.01
    })
    expect(charge.txid).toMatch(/^[a-zA-Z0-9]{26,35}$/)
    const expiresIn = Date.parse(charge.expiresAt) - before
    expect(expiresIn).toBeGreaterThan(3_590_000)
    expect(expiresIn).toBeLessThanOrEqual(3_601_000)
    expect(Buffer.from(charge.qrCodeBase64, "base64").subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    )
    const decoded = Either.getOrThrow(BrCode.decode(charge.qrCode))
    expect(decoded).toMatchObject({
      kind: "dynamic",
      amountCents: 10000,
      currency: "986",
      country: "BR",
      reference: "***"
    })
  })

  it("rounds fees once, the parts summing to the total", async () => {
    const m = await h.merchant()
    const answer = await h.request("POST", "/api/v1/charges", { key: m.testKey, body: { amount: 10.5 } })
    expect(answer.body.fees).toEqual({
      feeAmount: 0.1,
      gatewayFeeAmount: 0.03,
      adminMargin: 0.07,
      netAmount: 10.4
    })
  })

  it("takes expiresIn and ignores unknown fields", async () => {
    const m = await h.merchant()
    const before = Date.now()
    const answer = await h.request("POST", "/api/v1/charges", {
      key: m.testKey,
      body: { amount: 3, expiresIn: 120, extra: [1] }
    })
    expect(answer.status).toBe(201)
    expect(Date.parse(answer.body.expiresAt) - before).toBeLessThanOrEqual(121_000)
  })

  it("appears in the list as a pending deposit with the same numbers", async () => {
    const m = await h.merchant()
    const charge = (
      await h.request("POST", "/api/v1/charges", {
        key: m.testKey,
        body: { amount: 20, clientName: " Ana " }
      })
    ).body
    const page = (await h.request("GET", "/api/v1/transactions", { key: m.testKey })).body
    expectPage(page)
    const [tx] = page.data
    expectTransaction(tx)
    expect(tx).toMatchObject({
      id: charge.transactionId,
      type: "deposit",
      status: "pending",
      amount: 20,
      clientName: "Ana",
      clientDocument: null,
      pixKey: null,
      txid: charge.txid,
      endToEndId: null,
      feeAmount: charge.fees.feeAmount,
      gatewayFeeAmount: charge.fees.gatewayFeeAmount,
      netAmount: charge.fees.netAmount
    })
    expect(tx.createdAt).toBe(tx.updatedAt)
  })
})

describe("POST /api/v1/payouts", () => {
  it("201 pending; balance falls by amount + 0.33; the recipient gets the full amount", async () => {
    const m = await h.merchant()
    await h.engine((e) => e.admin.topUp(m.merchantId, { amount: Money.reais(100) }))
    const answer = await h.request("POST", "/api/v1/payouts", {
      key: m.testKey,
      body: { amount: 50, pixKey: "Fulano@Example.com", clientName: "Fulano", description: "Saque" }
    })
    expect(answer.status).toBe(201)
    expectPayout(answer.body)
    expect(answer.body.amount).toBe(50)
    expect(answer.body.fees).toEqual({
      feeAmount: 0.33,
      gatewayFeeAmount: 0.1,
      adminMargin: 0.23,
      netAmount: 49.67
    })
    expect(answer.body.endToEndId).toMatch(/^E\d{8}\d{12}[a-zA-Z0-9]{11}$/)
    expect(await h.engine((e) => e.admin.balance(m.merchantId, "test"))).toMatchObject({ available: 49.67 })
    const [tx] = (await h.request("GET", "/api/v1/transactions", { key: m.testKey })).body.data
    expectTransaction(tx)
    expect(tx).toMatchObject({
      id: answer.body.transactionId,
      type: "withdrawal",
      status: "pending",
      amount: 50,
      pixKey: "fulano@example.com",
      txid: null,
      endToEndId: answer.body.endToEndId,
      feeAmount: 0.33
    })
  })

  for (const pixKey of [
    "fulano@example.com",
    "529.982.247-25",
    "52998224725",
    "11.222.333/0001-81",
    "11222333000181",
    "+5511999998888",
    "123e4567-e89b-42d3-a456-426614174000"
  ]) {
    it(`accepts the PIX key ${pixKey}`, async () => {
      const m = await h.merchant()
      await h.engine((e) => e.admin.topUp(m.merchantId, { amount: Money.reais(10) }))
      const answer = await h.request("POST", "/api/v1/payouts", {
        key: m.testKey,
        body: { amount: 1, pixKey }
      })
      expect(answer.status, answer.text).toBe(201)
    })
  }
})

describe("GET /api/v1/transactions", () => {
  let key: string
  beforeAll(async () => {
    const m = await h.merchant("Lista")
    key = m.testKey
    await h.engine((e) => e.admin.topUp(m.merchantId, { amount: Money.reais(1000) }))
    for (let i = 1; i <= 105; i++) {
      await h.request("POST", "/api/v1/charges", { key, body: { amount: i } })
    }
    for (let i = 1; i <= 3; i++) {
      await h.request("POST", "/api/v1/payouts", { key, body: { amount: i, pixKey: "a@b.com" } })
    }
  })

  it("defaults to page 1 of 20, newest first", async () => {
    const page = (await h.request("GET", "/api/v1/transactions", { key })).body
    expectPage(page)
    expect(page).toMatchObject({ total: 108, page: 1, limit: 20, pages: 6 })
    expect(page.data).toHaveLength(20)
    expect(page.data[0]).toMatchObject({ type: "withdrawal", amount: 3 })
    const times = page.data.map((t: { createdAt: string }) => t.createdAt)
    expect([...times].sort().reverse()).toEqual(times)
  })

  it("clamps limit to 100 and says so", async () => {
    const page = (await h.request("GET", "/api/v1/transactions?limit=500", { key })).body
    expect(page).toMatchObject({ limit: 100, total: 108, pages: 2 })
    expect(page.data).toHaveLength(100)
  })

  it("pages are disjoint and stable; a page past the end is empty", async () => {
    const all = (await h.request("GET", "/api/v1/transactions?limit=100", { key })).body.data
    const rest = (await h.request("GET", "/api/v1/transactions?limit=100&page=2", { key })).body
    expect(rest.data).toHaveLength(8)
    const ids = [...all, ...rest.data].map((t: { id: string }) => t.id)
    expect(new Set(ids).size).toBe(108)
    const past = (await h.request("GET", "/api/v1/transactions?page=99", { key })).body
    expect(past).toEqual({ data: [], total: 108, page: 99, limit: 20, pages: 6 })
  })

  it("filters by type and status; total counts the filtered set", async () => {
    const withdrawals = (await h.request("GET", "/api/v1/transactions?type=withdrawal", { key })).body
    expect(withdrawals).toMatchObject({ total: 3, pages: 1 })
    expect(withdrawals.data.every((t: { type: string }) => t.type === "withdrawal")).toBe(true)
    const completed = (await h.request("GET", "/api/v1/transactions?status=completed&type=deposit", { key }))
      .body
    expect(completed).toEqual({ data: [], total: 0, page: 1, limit: 20, pages: 0 })
  })

  it("uses the first of repeated parameters", async () => {
    const page = (await h.request("GET", "/api/v1/transactions?type=withdrawal&type=nonsense", { key })).body
    expect(page.total).toBe(3)
  })

  it("ignores parameters it does not know (there is no search)", async () => {
    const page = (await h.request("GET", "/api/v1/transactions?search=anything&limit=1", { key })).body
    expect(page.total).toBe(108)
  })
})

describe("dates are inclusive whole UTC days", () => {
  let now = Date.parse("2026-03-10T00:00:00.000Z")
  const real = Clock.make()
  const clock: Clock.Clock = {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => now,
    currentTimeMillis: Effect.sync(() => now),
    unsafeCurrentTimeNanos: () => BigInt(now) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(now) * 1_000_000n),
    sleep: (duration) => real.sleep(duration)
  }
  const runtime = ManagedRuntime.make(
    Pixgate.layer({ store: MemoryStore.layer, engine: { worker: false }, log: { level: "none" } }).pipe(
      Layer.provideMerge(Layer.setClock(clock))
    )
  )
  const server = createServer()
  let base: string
  let key: string
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    const rt = await runtime.runtime()
    const router = Router.make(Api.routes(""), { removed: Api.removed })
    server.on("request", Handler.node(rt, router, { maxBodySize: 65536, log: Log.writer({ level: "none" }) }))
    base = await listen(server)
    const { Engine } = await import("@pixgate/core")
    key = (
      await runtime.runPromise(
        Effect.flatMap(Engine.Engine, (e) => e.admin.createMerchant({ name: "Datas" }))
      )
    ).testKey
    for (const [name, at] of [
      ["first", "2026-03-10T00:00:00.000Z"],
      ["last", "2026-03-10T23:59:59.999Z"],
      ["after", "2026-03-11T00:00:00.000Z"],
      ["before", "2026-03-09T23:59:59.999Z"]
    ] as const) {
      now = Date.parse(at)
      ids[name] = (
        await send(base, "POST", "/api/v1/charges", { key, body: { amount: 1 } })
      ).body.transactionId
    }
  })
  afterAll(async () => {
    server.close()
    await runtime.dispose()
  })

  const list = async (query: string) =>
    (
      (await send(base, "GET", `/api/v1/transactions?${query}`, { key })).body.data as Array<{ id: string }>
    ).map((t) => t.id)

  it("orders by createdAt, newest first", async () => {
    expect(await list("")).toEqual([ids.after, ids.last, ids.first, ids.before])
  })
  it("startDate = endDate is that whole day", async () => {
    expect(await list("startDate=2026-03-10&endDate=2026-03-10")).toEqual([ids.last, ids.first])
  })
  it("startDate alone starts at 00:00:00.000Z", async () => {
    expect(await list("startDate=2026-03-10")).toEqual([ids.after, ids.last, ids.first])
    expect(await list("startDate=2026-03-11")).toEqual([ids.after])
  })
  it("endDate alone ends before the next day", async () => {
    expect(await list("endDate=2026-03-10")).toEqual([ids.last, ids.first, ids.before])
    expect(await list("endDate=2026-03-09")).toEqual([ids.before])
  })
  it("ties in createdAt are ordered by id, stably across pages", async () => {
    now = Date.parse("2026-04-01T12:00:00.000Z")
    for (let i = 0; i < 7; i++) await send(base, "POST", "/api/v1/charges", { key, body: { amount: 2 } })
    const pages = await Promise.all([1, 2, 3].map((p) => list(`startDate=2026-04-01&limit=3&page=${p}`)))
    const flat = pages.flat()
    expect(flat).toHaveLength(7)
    expect([...flat].sort().reverse()).toEqual(flat)
  })
})

describe("isolation", () => {
  it("a merchant sees only its own transactions, of its key's mode only", async () => {
    const a = await h.merchant("A")
    const b = await h.merchant("B")
    await h.request("POST", "/api/v1/charges", { key: a.testKey, body: { amount: 1 } })
    await h.request("POST", "/api/v1/charges", { key: a.testKey, body: { amount: 2 } })
    await h.request("POST", "/api/v1/charges", { key: b.testKey, body: { amount: 3 } })
    const aTest = (await h.request("GET", "/api/v1/transactions", { key: a.testKey })).body
    const aLive = (await h.request("GET", "/api/v1/transactions", { key: a.liveKey })).body
    const bTest = (await h.request("GET", "/api/v1/transactions", { key: b.testKey })).body
    expect(aTest.total).toBe(2)
    expect(aLive).toEqual({ data: [], total: 0, page: 1, limit: 20, pages: 0 })
    expect(bTest.data.map((t: { amount: number }) => t.amount)).toEqual([3])
  })

  it("test money never pays live payouts", async () => {
    const m = await h.merchant()
    await h.engine((e) => e.admin.topUp(m.merchantId, { amount: Money.reais(100) }))
    const live = await h.request("POST", "/api/v1/payouts", {
      key: m.liveKey,
      body: { amount: 1, pixKey: "a@b.com" }
    })
    expect(live.status).toBe(502)
    expect(await h.engine((e) => e.admin.balance(m.merchantId, "live"))).toMatchObject({ available: 0 })
  })
})

describe("OpenAPI document and docs page", () => {
  it("serves an OpenAPI 3.1 document of the real routes", async () => {
    const answer = await h.request("GET", "/api/openapi.json")
    expect(answer.status).toBe(200)
    const doc = answer.body
    expect(doc.openapi).toBe("3.1.0")
    expect(doc.info.version).toBe("2.0.0")
    // The removed 2.0.0 paths are there too, as deprecated operations answering 410 only.
    const deprecated = (path: string) =>
      Object.values(doc.paths[path] as Record<string, { deprecated?: boolean }>).every((op) => op.deprecated)
    const removedPaths = Object.keys(doc.paths).filter(deprecated)
    expect(removedPaths.sort()).toEqual(Api.removed.map(OpenApi.openApiPath).sort())
    for (const path of removedPaths)
      for (const op of Object.values(doc.paths[path]) as Array<{ responses: object }>)
        expect(Object.keys(op.responses)).toEqual(["410"])
    expect(
      Object.keys(doc.paths)
        .filter((p) => !deprecated(p))
        .sort()
    ).toEqual(
      [
        "/api/docs",
        "/api/docs/scalar.js",
        "/api/health",
        "/api/health/live",
        "/api/health/ready",
        "/api/openapi.json",
        "/api/v1/charges",
        "/api/v1/events/stream",
        "/api/v1/payouts",
        "/api/v1/subscriptions",
        "/api/v1/subscriptions/{id}",
        "/api/v1/subscriptions/{id}/cancel",
        "/api/v1/subscriptions/{id}/cycles",
        "/api/v1/subscriptions/{id}/cycles/{txid}/retry",
        "/api/v1/transactions"
      ].sort()
    )
    expect(doc.paths["/api/v1/charges"].post.security).toEqual([{ apiKey: [] }])
    expect(doc.paths["/api/health"].get.security).toEqual([])
    expect(doc.paths["/api/v1/events/stream"].get.security).toEqual([{ apiKey: [] }])
    expect(doc.components.securitySchemes.apiKey).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "x-api-key"
    })
    for (const status of ["201", "400", "401", "409", "413", "422", "429", "502"]) {
      expect(doc.paths["/api/v1/charges"].post.responses[status], status).toBeDefined()
      expect(doc.paths["/api/v1/payouts"].post.responses[status], status).toBeDefined()
    }
    expect(Object.keys(doc.paths["/api/v1/transactions"].get.responses)).toEqual(
      expect.arrayContaining(["200", "401", "422", "429"])
    )
    expect(doc.paths["/api/v1/charges"].post.parameters.map((p: { name: string }) => p.name)).toContain(
      "Idempotency-Key"
    )
  })

  it("describes the real request, response and error bodies", async () => {
    const doc = (await h.request("GET", "/api/openapi.json")).body
    const schemas = doc.components.schemas
    const bodyOf = (path: string, method: string, status: string) =>
      doc.paths[path][method].responses[status].content["application/json"].schema
    const check = (value: unknown, schema: Record<string, unknown>) =>
      expect(validate(value, schema, schemas)).toEqual([])
    const m = await h.merchant()
    await h.engine((e) => e.admin.topUp(m.merchantId, { amount: Money.reais(100) }))
    check((await h.request("GET", "/api/health")).body, bodyOf("/api/health", "get", "200"))
    const chargeRequest = {
      amount: 12.34,
      clientName: "Ana",
      clientDoc: "52998224725",
      description: "x",
      expiresIn: 600
    }
    check(chargeRequest, doc.paths["/api/v1/charges"].post.requestBody.content["application/json"].schema)
    check(
      (await h.request("POST", "/api/v1/charges", { key: m.testKey, body: chargeRequest })).body,
      bodyOf("/api/v1/charges", "post", "201")
    )
    const payoutRequest = { amount: 5, pixKey: "a@b.com" }
    check(payoutRequest, doc.paths["/api/v1/payouts"].post.requestBody.content["application/json"].schema)
    check(
      (await h.request("POST", "/api/v1/payouts", { key: m.testKey, body: payoutRequest })).body,
      bodyOf("/api/v1/payouts", "post", "201")
    )
    check(
      (await h.request("GET", "/api/v1/transactions", { key: m.testKey })).body,
      bodyOf("/api/v1/transactions", "get", "200")
    )
    const invalid = await h.request("POST", "/api/v1/payouts", { key: m.testKey, body: { amount: 0 } })
    check(invalid.body, bodyOf("/api/v1/payouts", "post", "422"))
    check(
      (await h.request("POST", "/api/v1/payouts", { body: {} })).body,
      bodyOf("/api/v1/payouts", "post", "401")
    )
    expect(validate({ error: "x" }, schemas.Error, schemas)).not.toEqual([])
  })

  it("renders the docs page with the renderer it serves, and a static page of the document without JavaScript", async () => {
    const response = await fetch(`${h.base}/api/docs`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/html/)
    expect(response.headers.get("content-security-policy")).toBe(
      "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; " +
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
    const html = await response.text()
    // Its only scripts: the renderer's configuration (data) and the renderer this server serves.
    expect(html.match(/<script[^>]*>/gi)).toEqual([
      '<script type="application/json" id="pixgate-docs">',
      `<script src="/api/docs/scalar.js?v=${DocsPage.rendererHash}">`
    ])
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3)/i)
    const noscript = html.slice(html.indexOf("<noscript>"))
    for (const text of [
      "/api/v1/charges",
      "/api/v1/payouts",
      "/api/v1/transactions",
      "/api/health",
      "Idempotency-Key",
      "TransactionPage"
    ]) {
      expect(noscript).toContain(text)
    }
    const renderer = await h.request("GET", "/api/docs/scalar.js")
    expect(renderer.status).toBe(200)
    expect(renderer.headers.get("content-type")).toMatch(/^text\/javascript/)
    expect(renderer.text).toContain("createApiReference")
    expect(renderer.text).not.toMatch(/sourceMappingURL/)
    const etag = renderer.headers.get("etag")
    expect(etag).toMatch(/^"scalar-\d+\.\d+\.\d+-[0-9a-f]{24}(-gzip|-br)?"$/)
    const again = await h.request("GET", "/api/docs/scalar.js", {
      headers: { "if-none-match": must(etag, "etag") }
    })
    expect([again.status, again.text, again.headers.get("etag")]).toEqual([304, "", etag])
  })

  it("the documentation needs no key and shows in 405/404 answers like any route", async () => {
    expectError(await h.request("POST", "/api/openapi.json"), 405, "Method not allowed")
  })
})
