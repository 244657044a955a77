/**
 * The promise client against a real Pixgate (SQLite in memory, node:http on a free port): views
 * decoded, every non-2xx one `PixgateApiError` with the server's exact status, code, message,
 * details and request id, idempotent retries, listing filters and pages, and the failures that
 * have no answer (`PixgateConnectionError`).
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Money, Requests } from "@pixgate/core"
import { ChargesGroup, ListTransactionsUrlParams, PayoutsGroup, TransactionsGroup } from "@pixgate/http/api"
import { Option } from "effect"
import { Pixgate, PixgateApiError, PixgateConnectionError } from "../src/index.js"
import { startServer, type TestServer } from "./support/server.js"

let server: TestServer
let merchantId: string
let pixgate: Pixgate

beforeAll(async () => {
  server = await startServer()
  const merchant = await server.merchant()
  merchantId = merchant.merchantId
  pixgate = new Pixgate({ apiKey: merchant.testKey, baseUrl: server.baseUrl })
})
afterAll(() => server.close())

/** The rejection of `promise`, which must reject. */
const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error("expected a rejection")
}

describe("promise client", () => {
  it("health() answers ok", async () => {
    const health = await pixgate.health()
    expect(health.status).toBe("ok")
    expect(Number.isNaN(Date.parse(health.timestamp))).toBe(false)
  })

  it("charges.create answers the charge with its BR Code and QR image", async () => {
    const charge = await pixgate.charges.create({ amount: 10.5, clientName: "Maria Silva" })
    expect(charge.amount).toBe(10.5)
    // Typed as the literal "pending", as the payout's status is.
    const status: "pending" = charge.status
    expect(status).toBe("pending")
    expect(charge.txid).toMatch(/^[a-zA-Z0-9]{26,35}$/)
    expect(charge.qrCode.startsWith("000201")).toBe(true)
    expect(charge.qrCode).toContain("br.gov.bcb.pix")
    expect(charge.qrCode).toMatch(/6304[0-9A-F]{4}$/)
    expect(Buffer.from(charge.qrCodeBase64, "base64").subarray(1, 4).toString()).toBe("PNG")
    expect(charge.fees).toEqual({
      feeAmount: 0.1,
      gatewayFeeAmount: 0.03,
      adminMargin: 0.07,
      netAmount: 10.4
    })
  })

  it("a payout above the balance rejects with PixgateApiError 422 insufficient_balance", async () => {
    const error = await rejection(pixgate.payouts.create({ amount: 5, pixKey: "maria@example.com" }))
    expect(error).toBeInstanceOf(PixgateApiError)
    const apiError = error as PixgateApiError
    expect({ status: apiError.status, code: apiError.code, message: apiError.message }).toEqual({
      status: 422,
      code: "insufficient_balance",
      message: "Insufficient balance"
    })
    expect(apiError.details).toBeUndefined()
    expect(apiError.requestId).toMatch(/\S/)
    expect(apiError.name).toBe("PixgateApiError")
  })

  it("invalid input rejects with the server's exact 422 and details", async () => {
    const amount = (await rejection(pixgate.charges.create({ amount: -5 }))) as PixgateApiError
    expect(amount).toBeInstanceOf(PixgateApiError)
    expect([amount.status, amount.code, amount.message, amount.details]).toEqual([
      422,
      "invalid_amount",
      "amount must be a positive number",
      [{ path: "amount", message: "amount must be a positive number" }]
    ])
    const pixKey = (await rejection(pixgate.payouts.create({ amount: 1, pixKey: "" }))) as PixgateApiError
    expect([pixKey.status, pixKey.code, pixKey.message]).toEqual([
      422,
      "pix_key_required",
      "pixKey is required"
    ])
  })

  it("a wrong key rejects with 401 Unauthorized", async () => {
    const stranger = new Pixgate({
      apiKey: "sk_test_wrongwrongwrongwrongwrongwrongwrong",
      baseUrl: server.baseUrl
    })
    const error = (await rejection(stranger.transactions.list())) as PixgateApiError
    expect(error).toBeInstanceOf(PixgateApiError)
    expect([error.status, error.code, error.message]).toEqual([401, "unauthorized", "Unauthorized"])
  })

  it("an Idempotency-Key replays the first answer; another body under it is refused", async () => {
    await server.engine((e) => e.admin.topUp(merchantId, { amount: Money.Cents(10_000) }))
    const input = { amount: 12.34, pixKey: "maria@example.com" }
    const first = await pixgate.payouts.create(input, { idempotencyKey: "payout-0001" })
    expect(first.status).toBe("pending")
    expect(first.fees.feeAmount).toBe(0.33)
    const again = await pixgate.payouts.create(input, { idempotencyKey: "payout-0001" })
    expect(again).toEqual(first)
    const other = (await rejection(
      pixgate.payouts.create({ ...input, amount: 1 }, { idempotencyKey: "payout-0001" })
    )) as PixgateApiError
    expect([other.status, other.code, other.message]).toEqual([
      422,
      "idempotency_mismatch",
      "Idempotency-Key was already used with a different request"
    ])
    const charge = await pixgate.charges.create({ amount: 3 }, { idempotencyKey: "charge-0001" })
    expect(await pixgate.charges.create({ amount: 3 }, { idempotencyKey: "charge-0001" })).toEqual(charge)
    // Without a key, the same body makes a second payout.
    const second = await pixgate.payouts.create(input)
    expect(second.transactionId).not.toBe(first.transactionId)
  })

  it("transactions.list filters by type and status and pages newest first", async () => {
    const own = await server.merchant("Listagem")
    const client = new Pixgate({ apiKey: own.testKey, baseUrl: server.baseUrl })
    const charges = []
    for (const amount of [1, 2, 3]) charges.push(await client.charges.create({ amount }))
    await server.engine((e) => e.admin.topUp(own.merchantId, { amount: Money.Cents(5_000) }))
    const payout = await client.payouts.create({ amount: 4, pixKey: "+5511999999999" })

    const all = await client.transactions.list()
    expect([all.total, all.page, all.limit, all.pages]).toEqual([4, 1, 20, 1])
    expect(all.data.map((t) => t.id)).toEqual([
      payout.transactionId,
      ...charges.map((c) => c.transactionId).reverse()
    ])

    const deposits = await client.transactions.list({ type: "deposit", limit: 2, page: 2 })
    expect([deposits.total, deposits.page, deposits.limit, deposits.pages]).toEqual([3, 2, 2, 2])
    expect(deposits.data.map((t) => t.id)).toEqual([charges[0]?.transactionId])

    const withdrawals = await client.transactions.list({ type: "withdrawal", status: "pending" })
    expect(withdrawals.data.map((t) => [t.id, t.type, t.pixKey])).toEqual([
      [payout.transactionId, "withdrawal", "+5511999999999"]
    ])

    const today = new Date().toISOString().slice(0, 10)
    const dated = await client.transactions.list({ startDate: today, endDate: today, limit: 500 })
    expect([dated.total, dated.limit]).toEqual([4, 100])
    expect((await client.transactions.list({ page: 9 })).data).toEqual([])

    const badPage = (await rejection(client.transactions.list({ page: 0 }))) as PixgateApiError
    expect([badPage.status, badPage.code, badPage.message]).toEqual([
      422,
      "invalid_query",
      "page must be a positive integer"
    ])
    const badDates = (await rejection(
      client.transactions.list({ startDate: "2026-02-02", endDate: "2026-02-01" })
    )) as PixgateApiError
    expect([badDates.status, badDates.message]).toEqual([422, "startDate must not be after endDate"])
  })

  it("429 carries retryAfter from Retry-After", async () => {
    const limited = await startServer({ rateLimit: { requestsPerSecond: 0.01, burst: 1 } })
    try {
      const { testKey } = await limited.merchant()
      const client = new Pixgate({ apiKey: testKey, baseUrl: limited.baseUrl })
      await client.transactions.list()
      const error = (await rejection(client.transactions.list())) as PixgateApiError
      expect([error.status, error.code, error.message]).toEqual([429, "rate_limited", "Too many requests"])
      expect(error.retryAfter).toBeGreaterThanOrEqual(1)
    } finally {
      await limited.close()
    }
  })

  it("an answer that is not a Pixgate error (a proxy's page) is still a PixgateApiError", async () => {
    const proxy = createServer((_req, res) => {
      res
        .writeHead(502, { "content-type": "text/html", "x-request-id": "proxy-1" })
        .end("<h1>Bad gateway</h1>")
    })
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
    try {
      const { port } = proxy.address() as AddressInfo
      const client = new Pixgate({ apiKey: "sk_test_x", baseUrl: `http://127.0.0.1:${port}` })
      const error = (await rejection(client.charges.create({ amount: 1 }))) as PixgateApiError
      expect(error).toBeInstanceOf(PixgateApiError)
      expect([error.status, error.code, error.message, error.requestId]).toEqual([
        502,
        "unexpected_response",
        "Unexpected 502 answer",
        "proxy-1"
      ])
    } finally {
      proxy.closeAllConnections()
      await new Promise((resolve) => proxy.close(resolve))
    }
  })

  it("uses the given fetch", async () => {
    const urls: Array<string> = []
    const client = new Pixgate({
      apiKey: "sk_test_unused",
      baseUrl: server.baseUrl,
      fetch: (input, init) => {
        urls.push(input instanceof Request ? input.url : String(input))
        return fetch(input, init)
      }
    })
    await client.health()
    expect(urls).toEqual([`${server.baseUrl}/api/health`])
  })

  it("no answer within timeoutMs rejects with PixgateConnectionError", async () => {
    const silent = createServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
    try {
      const { port } = silent.address() as AddressInfo
      const client = new Pixgate({ apiKey: "sk_test_x", baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 200 })
      const error = await rejection(client.health())
      expect(error).toBeInstanceOf(PixgateConnectionError)
      expect((error as Error).message).toBe("No answer from Pixgate within 200 ms")
    } finally {
      silent.closeAllConnections()
      await new Promise((resolve) => silent.close(resolve))
    }
  })

  it("a refused connection rejects with PixgateConnectionError", async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve))
    const { port } = closed.address() as AddressInfo
    await new Promise((resolve) => closed.close(resolve))
    const client = new Pixgate({ apiKey: "sk_test_x", baseUrl: `http://127.0.0.1:${port}` })
    const error = await rejection(client.health())
    expect(error).toBeInstanceOf(PixgateConnectionError)
    expect((error as Error).message).toMatch(/^Could not reach Pixgate: /)
  })

  it("sends the JSON side of the definition's own request schemas", () => {
    // The promise client's endpoints replace these payloads with their encoded side: if the
    // definition moves to other schemas, this fails rather than the client drifting from it.
    const payload = (schema: Option.Option<{ readonly ast: unknown }>) => Option.map(schema, (s) => s.ast)
    expect(payload(ChargesGroup.endpoints.create.payloadSchema)).toEqual(
      Option.some(Requests.CreateCharge.ast)
    )
    expect(payload(PayoutsGroup.endpoints.create.payloadSchema)).toEqual(
      Option.some(Requests.CreatePayout.ast)
    )
    expect(payload(TransactionsGroup.endpoints.list.urlParamsSchema)).toEqual(
      Option.some(ListTransactionsUrlParams.ast)
    )
  })

  it("the constructor refuses a missing key or a relative base URL", () => {
    expect(() => new Pixgate({ apiKey: "", baseUrl: server.baseUrl })).toThrow("Pixgate: apiKey is required")
    expect(() => new Pixgate({ apiKey: "sk_test_x", baseUrl: "/api" })).toThrow(
      "Pixgate: baseUrl must be an absolute URL"
    )
  })
})
